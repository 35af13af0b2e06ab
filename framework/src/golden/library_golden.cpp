// Overlays (fprev/golden.hpp): the folder that holds the goldens of one library identity.
#include <algorithm>
#include <string>

#include "fprev/golden.hpp"
#include "fprev/pending.hpp"

namespace fprev {
namespace {

// The readable part of a library key: long enough for "NumPy-2.2.4" or "OpenBLAS-0.3.29"; the
// digest after it tells identities apart.
constexpr std::size_t kReadableKeyChars = 64;

bool file_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '+' || c == '-';
}

}  // namespace

std::string library_golden_key(std::string_view library, std::string_view version, std::string_view configuration) {
  std::string readable(library);
  if (!version.empty()) readable += "-" + std::string(version);
  if (readable.size() > kReadableKeyChars) readable.resize(kReadableKeyChars);
  std::replace_if(readable.begin(), readable.end(), [](char c) { return !file_name_char(c); }, '_');
  if (!readable.empty() && (readable.front() == '.' || readable.front() == '-')) readable.front() = '_';
  // Length-prefixed fields: no two identities give the same digested bytes.
  const std::string identity = std::to_string(library.size()) + ":" + std::string(library) +
                               std::to_string(version.size()) + ":" + std::string(version) +
                               std::to_string(configuration.size()) + ":" + std::string(configuration);
  return readable + "-" + golden_text_digest(identity).substr(0, 8);
}

std::string library_golden_key(const GoldenMetadata& meta) {
  return library_golden_key(meta.library, meta.library_version, meta.library_configuration);
}

bool same_library_identity(const GoldenMetadata& a, const GoldenMetadata& b) {
  return a.library == b.library && a.library_version == b.library_version &&
         a.library_configuration == b.library_configuration;
}

}  // namespace fprev
