// Pending results on disk (fprev/pending.hpp): kept by check, accepted or rejected by people.
#include "fprev/pending.hpp"

#include <array>
#include <cstdint>
#include <fstream>

#include "golden/golden_layout.hpp"

namespace fprev {
namespace fs = std::filesystem;
namespace {

std::string hex64(std::uint64_t value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 0; i < 16; ++i) text[static_cast<std::size_t>(i)] = kHex[(value >> (60 - 4 * i)) & 0xf];
  return text;
}

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;  // FNV-1a, 64 bits

std::uint64_t fnv1a(std::uint64_t hash, std::string_view bytes) {
  for (const char byte : bytes) {
    hash ^= static_cast<unsigned char>(byte);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string with_pending_extension(const fs::path& golden) {
  // golden_path() ends with ".golden"; the pending file adds ".new".
  return golden.string() + std::string(kPendingExtension.substr(std::string_view(".golden").size()));
}

}  // namespace

std::string golden_file_digest(const fs::path& path) {
  std::error_code error;
  if (!fs::exists(path, error)) {
    if (error) throw GoldenIoError("cannot read " + path.string() + ": " + error.message());
    return std::string(kNoGoldenDigest);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw GoldenIoError("cannot read " + path.string());
  std::uint64_t hash = kFnvOffset;
  std::array<char, 1 << 16> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    hash = fnv1a(hash, std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount())));
  }
  if (in.bad()) throw GoldenIoError("cannot read " + path.string());
  return hex64(hash);
}

std::string golden_text_digest(std::string_view bytes) { return hex64(fnv1a(kFnvOffset, bytes)); }

Golden accepted_golden(Golden pending) {
  std::erase_if(pending.meta.extra, [](const auto& entry) { return entry.first.starts_with("pending."); });
  return pending;
}

PendingStore::PendingStore(fs::path golden_root, fs::path pending_root)
    : golden_root_(std::move(golden_root)),
      root_(pending_root.empty() ? golden_root_ : std::move(pending_root)),
      beside_(root_.lexically_normal() == golden_root_.lexically_normal()) {}

PendingFile PendingStore::locate(std::string_view suite, std::string_view backend, std::string_view platform_key,
                                 std::string_view case_id, std::string_view library_key) const {
  PendingFile file;
  file.golden_path = golden_path(golden_root_, suite, backend, platform_key, case_id, library_key);
  file.location = {with_pending_extension(golden_path(root_, suite, backend, platform_key, case_id, library_key)),
                   std::string(platform_key), std::string(suite), std::string(backend), std::string(case_id),
                   std::string(library_key)};
  return file;
}

fs::path PendingStore::keep(const Golden& result, std::string golden_digest, std::string_view library_key) const {
  const GoldenMetadata& meta = result.meta;
  PendingFile file;
  try {
    file = locate(meta.suite, meta.backend, meta.platform_key, meta.case_id, library_key);
  } catch (const std::invalid_argument& e) {
    throw GoldenIoError(std::string("cannot keep a pending result: ") + e.what());
  }
  Golden pending = result;
  pending.meta.extra[std::string(kPendingDigestKey)] =
      golden_digest.empty() ? golden_file_digest(file.golden_path) : std::move(golden_digest);
  write_golden_file(file.location.path, pending);
  return file.location.path;
}

bool PendingStore::discard(std::string_view suite, std::string_view backend, std::string_view platform_key,
                           std::string_view case_id, std::string_view library_key) const {
  const fs::path path = locate(suite, backend, platform_key, case_id, library_key).location.path;
  std::error_code error;
  if (!fs::exists(path, error)) return false;
  // No tidying of directories here: check runs cases in parallel processes (ctest -j), and another
  // one may be about to write into the directory.
  remove_file(path, false);
  return true;
}

PendingListing PendingStore::list() const {
  GoldenListing layout = detail::list_layout(root_, kPendingExtension);
  PendingListing listing;
  listing.stray = std::move(layout.stray);
  for (GoldenLocation& location : layout.goldens) {
    PendingFile file;
    file.golden_path = golden_path(golden_root_, location.suite, location.backend, location.platform_key,
                                   location.case_id, location.library_key);
    file.location = std::move(location);
    listing.files.push_back(std::move(file));
  }
  return listing;
}

Golden PendingStore::read(const PendingFile& file) const {
  const std::string path = file.location.path.string();
  Golden pending;
  try {
    pending = read_golden(file.location.path);
  } catch (const GoldenParseError& e) {
    throw PendingError(std::string("not a pending result: ") + e.what());
  } catch (const GoldenIoError& e) {
    throw PendingError(e.what());
  }
  const GoldenMetadata& meta = pending.meta;
  const std::pair<const char*, std::pair<const std::string&, const std::string&>> fields[] = {
      {"suite", {meta.suite, file.location.suite}},
      {"backend", {meta.backend, file.location.backend}},
      {"platform", {meta.platform_key, file.location.platform_key}},
      {"case", {meta.case_id, file.location.case_id}}};
  for (const auto& [name, values] : fields)
    if (values.first != values.second)
      throw PendingError(path + ": its " + name + " is '" + values.first + "' but its path names '" +
                         values.second + "': it is not the pending result of the case its path names (moved or "
                         "copied?); it was not accepted");
  // In an overlay's folder, only a result of that folder's library: accepting it writes the overlay.
  if (!file.location.library_key.empty() && library_golden_key(meta) != file.location.library_key)
    throw PendingError(path + ": it records the library " + golden_identity(meta) + ", not the one of its folder '" +
                       file.location.library_key + "' (moved or copied?); it was not accepted");
  if (meta.extra.find(std::string(kPendingDigestKey)) == meta.extra.end())
    throw PendingError(path + ": not a pending result written by check (no " + std::string(kPendingDigestKey) +
                       " line)");
  return pending;
}

bool PendingStore::golden_changed_since(const PendingFile& file, const Golden& pending) const {
  const auto recorded = pending.meta.extra.find(std::string(kPendingDigestKey));
  return recorded == pending.meta.extra.end() || recorded->second != golden_file_digest(file.golden_path);
}

StoreOutcome PendingStore::accept(const PendingFile& file, bool force) const {
  const Golden pending = read(file);
  if (!force && golden_changed_since(file, pending)) {
    const std::string digest = golden_file_digest(file.golden_path);
    throw PendingError(
        file.location.path.string() + ": " +
        (digest == kNoGoldenDigest ? "its golden " + file.golden_path.string() + " was deleted"
                                   : "its golden " + file.golden_path.string() + " changed") +
        " since check wrote this pending result (a pull, an update?): run check again to compare with the "
        "golden as it is now, or accept with --force to overwrite it");
  }
  const StoreOutcome outcome = store_golden(file.golden_path, accepted_golden(pending));
  remove_file(file.location.path, true);
  return outcome;
}

void PendingStore::reject(const PendingFile& file) const { remove_file(file.location.path, true); }

void PendingStore::remove_file(const fs::path& path, bool tidy) const {
  std::error_code error;
  fs::remove(path, error);
  if (error) throw GoldenIoError("cannot remove " + path.string() + ": " + error.message());
  if (tidy) detail::remove_empty_directories(path.parent_path(), root_);
}

}  // namespace fprev
