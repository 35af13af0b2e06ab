// Paths of this machine made machine-independent for a golden (fprev/golden.hpp).
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "fprev/golden.hpp"

namespace fprev {
namespace {

// Replaces every occurrence of `folder` + "/" that starts a path (at the start of the text or
// after a space, a comma, a colon or '=') by `replacement`.
void replace_folder(std::string& text, std::string folder, std::string_view replacement) {
  while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
  if (folder.size() <= 1) return;  // "/" itself: every path would match
  folder += '/';
  std::size_t at = 0;
  while ((at = text.find(folder, at)) != std::string::npos) {
    const bool starts_path = at == 0 || text[at - 1] == ' ' || text[at - 1] == ',' || text[at - 1] == ':' ||
                             text[at - 1] == '=' || text[at - 1] == '(';
    if (starts_path) {
      text.replace(at, folder.size(), replacement);
      at += replacement.size();
    } else {
      ++at;
    }
  }
}

}  // namespace

std::string machine_independent_paths(std::string text) {
  std::error_code error;
  const std::filesystem::path cwd = std::filesystem::current_path(error);
  if (!error) replace_folder(text, cwd.string(), "");  // the project's own files, relative to it
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') replace_folder(text, home, "~/");
  return text;
}

}  // namespace fprev
