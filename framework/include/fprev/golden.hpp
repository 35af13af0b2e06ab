// Golden files (docs/golden-format.md): the checked-in expected summation tree of one case on one
// platform, with metadata saying where it came from.
//
// Format, version 1 (plain text, LF line endings, UTF-8):
//
//   # fprev-golden tree v1
//   suite: blas-cpu
//   case: dot-float32-n4
//   backend: openblas
//   platform: haswell-t1
//   library: OpenBLAS
//   library-version: 0.3.21
//   library-configuration: DYNAMIC_ARCH Haswell
//   tool-version: 0.1.0
//   created: 2024-05-01T12:00:00Z
//   extra.path: /usr/lib/libopenblas.so.0          (zero or more, sorted by key)
//   leaves: 4
//   inner-nodes: 3
//   depth: 2
//   arity: 2:3                                      (children:count pairs, ascending)
//   sexpr: ((0 1) (2 3))                            (only while it is at most 200 characters)
//   # nodes: n<a>.<k> is the inner node whose smallest leaf is a and which has k leaves
//   n0.2 = (0 1)
//   n2.2 = (2 3)
//   n0.4 = (n0.2 n2.2)
//   # end
//
// One inner node per line, children before parents (canonical post-order), children ordered by
// their smallest leaf. A node's name depends only on its own leaf set, so changing one subtree
// changes only the lines of that subtree (and of the ancestors whose leaf set changed): `git diff`
// shows the nodes that changed. The leaves .. sexpr lines are derived from the nodes and checked
// when read. The `# end` line makes a truncated file detectable. Values are escaped (\\, \n, \t,
// \r, \xHH for other control bytes, for bytes that are not valid UTF-8 and for a leading or
// trailing space) so every value fits on its line, the file stays UTF-8 and survives editors that
// strip trailing blanks.
//
// Limits (a golden is read from a repository, where merges garble files): a golden file holds at
// most kMaxGoldenBytes (a tree of about a million leaves) and a line at most kMaxGoldenLineBytes;
// the text must be valid UTF-8; `leaves` is at most kMaxTreeLeaves and is checked against the node
// lines before anything is allocated for it. Error messages quote at most a short excerpt of a line.
//
// Canonical: the same tree and metadata always write the same bytes. The `created` date is
// metadata, so a caller re-baselining should use store_golden(), which leaves an existing file
// untouched when its tree is unchanged: the date (and the file) then do not churn in git.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/fingerprint.hpp"
#include "fprev/source_position.hpp"
#include "fprev/tree.hpp"

namespace fprev {

inline constexpr int kGoldenFormatVersion = 1;
inline constexpr std::size_t kMaxGoldenBytes = std::size_t{32} << 20;
inline constexpr std::size_t kMaxGoldenLineBytes = std::size_t{1} << 20;

struct GoldenMetadata {
  int format_version = kGoldenFormatVersion;
  std::string suite;                  // suite name
  std::string case_id;                // e.g. "gemm-float32-m64n64k256"
  std::string backend;                // backend *instance* name the golden is filed under
  std::string platform_key;           // e.g. "haswell-t1"
  std::string library;                // e.g. "OpenBLAS"
  std::string library_version;        // e.g. "0.3.21"; may be empty
  std::string library_configuration;  // may be empty
  std::string tool_version;           // fprev-golden version that wrote it
  std::string created;                // ISO-8601 UTC: "2024-05-01" or "2024-05-01T12:00:00Z"
  std::map<std::string, std::string> extra;  // keys: [A-Za-z0-9._-]+

  friend bool operator==(const GoldenMetadata&, const GoldenMetadata&) = default;
};

struct Golden {
  GoldenMetadata meta;
  Tree tree;
  // The arithmetic fingerprint (fprev/fingerprint.hpp), written as header lines
  //   fingerprint.digest: <16 hex digits>       (checked against the outputs when read)
  //   fingerprint.fact.<name>: <value>          (sorted by name)
  //   fingerprint.model: <value>
  //   fingerprint.outputs.<set>: <hex float> ...  (one line per input set, in row order)
  // Absent in goldens written before fingerprints existed: check then compares the tree only.
  std::optional<Fingerprint> fingerprint = std::nullopt;
};

// A golden file that does not parse. what() is "<path>:<line>: <message>" (format_position), or
// "<path>: <message>" for a problem with the whole file (line 0: a file too large to read).
class GoldenParseError : public std::runtime_error {
 public:
  GoldenParseError(std::string path, std::size_t line, std::string message);
  const std::string& path() const { return where_.source; }
  std::size_t line() const { return where_.line; }  // 1-based; the line after the last for truncation
  const SourcePosition& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourcePosition where_;
  std::string message_;
};

// Reading or writing a golden file failed at the file-system level (names the path and the
// system error), or the metadata cannot be written (a bad key, an empty required value).
class GoldenIoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- text form ----------------------------------------------------------------------------------

// The canonical text of a golden. Throws GoldenIoError for metadata that cannot be written (empty
// suite/case/backend/platform/library/tool-version/created, a malformed date or extra key) and for
// an empty tree.
std::string write_golden_text(const Golden& golden);

// Strict parser. `path` only labels the errors. Throws GoldenParseError.
Golden parse_golden_text(std::string_view text, std::string_view path = "<golden>");

// ---- files --------------------------------------------------------------------------------------

// Reads and parses a golden file. Throws GoldenIoError (cannot read) or GoldenParseError (also for
// a file larger than kMaxGoldenBytes, which is not read into memory).
Golden read_golden(const std::filesystem::path& path);

// Writes atomically: the text goes to a uniquely named temporary file in the target's directory
// (created if missing), is fsync'ed and renamed over the target, and the directory is fsync'ed.
// Readers see either the old or the new complete file; with concurrent writers the last rename
// wins and the file is always complete. No temporary file is left behind, even on failure.
// Throws GoldenIoError.
void write_golden_file(const std::filesystem::path& path, const Golden& golden);

enum class StoreOutcome {
  created,    // there was no golden
  unchanged,  // the existing golden has the same tree: left untouched (keeps its date)
  changed,    // the existing golden had another tree: replaced
  repaired,   // the existing file did not parse: replaced
};
std::string_view to_string(StoreOutcome outcome);

// What `update` should call: writes `golden` unless the file already holds the same tree and
// fingerprint.
// Metadata differences alone (a new library version giving the same tree) do not rewrite the file.
StoreOutcome store_golden(const std::filesystem::path& path, const Golden& golden);

// ---- layout -------------------------------------------------------------------------------------

// True for a usable path component: 1..128 characters from [A-Za-z0-9._+-], not starting with '.'
// or '-'.
bool is_safe_component(std::string_view component);

// <root>/<platform_key>/<suite>/<backend>/<case_id>.golden, where root is the golden directory
// (the repository's golden/). Throws std::invalid_argument naming an unsafe component.
std::filesystem::path golden_path(const std::filesystem::path& root, std::string_view suite,
                                  std::string_view backend, std::string_view platform_key,
                                  std::string_view case_id);

struct GoldenLocation {
  std::filesystem::path path;
  std::string platform_key;
  std::string suite;
  std::string backend;
  std::string case_id;

  friend bool operator==(const GoldenLocation&, const GoldenLocation&) = default;
};

struct GoldenListing {
  std::vector<GoldenLocation> goldens;       // sorted by path
  std::vector<std::filesystem::path> stray;  // *.golden files outside the layout, sorted
};

// Every golden file under `root` (for obsolete detection: the caller compares against the cases
// it knows). Temporary files of writers (hidden names) are ignored. A missing root lists nothing.
GoldenListing list_goldens(const std::filesystem::path& root);

// ---- helpers for callers ------------------------------------------------------------------------

// The current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_timestamp_now();

// "OpenBLAS 0.3.21 (DYNAMIC_ARCH Haswell)" from the library fields.
std::string golden_identity(const GoldenMetadata& meta);

}  // namespace fprev
