// Pending results: what `check` revealed for a case that needs accepting (its tree or order map
// changed, its golden is missing, its target misbehaves now), kept as a file to review and accept
// case by case, as snapshot tools keep theirs (insta's .snap.new, ApprovalTests' received files).
//
// A pending file is the golden `update` would write for the case (runner.hpp's golden_of), in the
// golden format, named <case>.golden.new: beside the golden by default, or under another directory
// with the same layout (`check --pending-dir DIR`, so CI can publish them as artifacts). It is
// never taken for a golden: list_goldens() reads only names ending in ".golden". Its metadata holds
// one extra key, kPendingDigestKey, the digest of the golden file as check saw it ("none" when
// there was none), so accepting can refuse to overwrite a golden that changed in between (a pull,
// another update). Accepting writes the golden atomically without that key, so accepting a
// pending file writes what `update` would have written, without revealing again.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/golden.hpp"

namespace fprev {

inline constexpr std::string_view kPendingExtension = ".golden.new";
inline constexpr std::string_view kPendingDigestKey = "pending.golden-digest";
inline constexpr std::string_view kNoGoldenDigest = "none";

// A file that is not a pending result of the case its path names, or one that cannot be accepted
// (its golden changed since check wrote it). what() names the file and says why.
class PendingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One pending result: where it is, the case its path names, and the golden it would create or
// replace.
struct PendingFile {
  GoldenLocation location;            // path: the pending file
  std::filesystem::path golden_path;  // under the golden root
};

struct PendingListing {
  std::vector<PendingFile> files;            // sorted by path
  std::vector<std::filesystem::path> stray;  // *.golden.new outside the layout, sorted
};

// The digest of a golden file's bytes (FNV-1a, 64 bits, 16 hex digits: it detects a change, it is
// no protection against forgery), or kNoGoldenDigest when there is no such file. Throws
// GoldenIoError when the file exists but cannot be read.
std::string golden_file_digest(const std::filesystem::path& path);
// The same digest of bytes in memory (those read_golden parsed, GoldenText::digest).
std::string golden_text_digest(std::string_view bytes);

// The golden accepting a pending result writes: the result without its pending.* metadata.
Golden accepted_golden(Golden pending);

class PendingStore {
 public:
  // Pending files beside the goldens under `golden_root` (`pending_root` empty), or under
  // `pending_root` in the same <platform>/<suite>/<backend>/ layout.
  explicit PendingStore(std::filesystem::path golden_root, std::filesystem::path pending_root = {});

  const std::filesystem::path& golden_root() const { return golden_root_; }
  // The directory holding the pending files (the golden root when they are beside the goldens).
  const std::filesystem::path& root() const { return root_; }
  bool beside_goldens() const { return beside_; }

  // Throws std::invalid_argument for a component that cannot name a file (golden_path()).
  // `library_key`: the pending result of a case compared with an overlay (fprev/golden.hpp) sits
  // in the overlay's folder, and accepting it writes the overlay.
  PendingFile locate(std::string_view suite, std::string_view backend, std::string_view platform_key,
                     std::string_view case_id, std::string_view library_key = {}) const;

  // Keeps `result` (a golden as update would write it; its metadata names the case) as the case's
  // pending result, written atomically, with `golden_digest`: the digest of the golden the result
  // was compared with, as check read it (kNoGoldenDigest when it had none). accept refuses when the
  // golden is no longer those bytes: one updated while a long check ran is never overwritten by an
  // unreviewed result. Without a digest, the golden's as it is now. Returns the pending file's
  // path. Throws GoldenIoError.
  std::filesystem::path keep(const Golden& result, std::string golden_digest = {},
                             std::string_view library_key = {}) const;

  // Removes the case's pending result if there is one: the case passes again, or update wrote its
  // golden. True when a file was removed. Throws GoldenIoError when it cannot be removed.
  bool discard(std::string_view suite, std::string_view backend, std::string_view platform_key,
               std::string_view case_id, std::string_view library_key = {}) const;

  // Every pending file under root(). Hidden names (writers' temporaries) are ignored; a missing
  // root lists nothing. Throws GoldenIoError when the directory cannot be read.
  PendingListing list() const;

  // Reads a pending file and checks that it is one: it parses as a golden, its metadata names the
  // suite, backend, case and platform of its path (and, in an overlay's folder, that folder's
  // library), and it records the golden's digest. Throws
  // PendingError saying why not (a parse error included).
  Golden read(const PendingFile& file) const;

  // Whether the golden is no longer the file check compared with when it wrote `pending` (read()).
  bool golden_changed_since(const PendingFile& file, const Golden& pending) const;

  // Accepts a pending result: read() it, refuse (PendingError) when its golden changed since
  // check wrote it unless `force`, write the golden atomically (store_golden: an identical result
  // leaves the file untouched) and remove the pending file and the directories that leaves empty
  // below root(). Throws PendingError or GoldenIoError; then nothing was changed.
  StoreOutcome accept(const PendingFile& file, bool force) const;

  // Rejects a pending result: removes the file and the directories that leaves empty below
  // root(). Throws GoldenIoError.
  void reject(const PendingFile& file) const;

 private:
  void remove_file(const std::filesystem::path& path, bool tidy) const;

  std::filesystem::path golden_root_;
  std::filesystem::path root_;
  bool beside_ = true;
};

}  // namespace fprev
