// Golden files (docs/golden-format.md): the checked-in expected result of one case on one
// platform, with metadata saying where it came from. The result is one of
//   * a tree: every output element follows one summation tree (single-output targets always);
//   * an order map: the classes of output elements of a GEMM, GEMV or MPI vector that follow the
//     same tree, each class with its regions of the output grid and its tree;
//   * a recorded finding: the target misbehaves (nondeterministic, batch_inconsistent, ...) and
//     that is the expected baseline: check passes while the same finding persists.
// Trees and classes carry their arithmetic fingerprint (fprev/fingerprint.hpp).
//
// Format, version 2 (plain text, LF line endings, UTF-8):
//
//   # fprev-golden tree v2
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
//   result: tree                                    (tree | map | finding)
//   grid: 1 x 1                                     (rows x columns of the outputs of one call)
//   alignment: independent (offsets 0-15 checked)   (fprev/alignment.hpp; absent: not recorded)
//   fingerprint.digest: ...                         (fingerprint lines, see below)
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
// shows the nodes that changed. A large tree whose structural description (fprev/structure.hpp) is
// shorter than its node lines is written as that description instead:
//   # structure: T<k> = <expression>; each template uses earlier ones, the last is the root
//   T1 = chain(0..960:32)
//   ...
// so that a 10^6-leaf dot product is a few lines and two kernels differ in a line or two ("lanes
// 64 -> 32"); it is expanded back (and so checked) when read.
//
// An order map (`result: map`) has `grid:`, `classes: <count>`, then per class
//   # class <i>
//   region: rows 0-7,88-95 x columns 0-5,12-17     (one or more: the class is their union)
//   fingerprint.* ... leaves: ... inner-nodes: ... depth: ... arity: ... [sexpr: ...]
//   # nodes: ... (or # structure: ...) and the tree's lines
// with classes in canonical order (by their first element, row-major), regions disjoint and
// covering the grid exactly. A recorded finding (`result: finding`) has
//   finding: batch_inconsistent
//   finding.message: ...        finding.probe: ...        finding.likely-cause: ...
// and no tree. The leaves .. sexpr lines are derived from the tree and checked when read. The
// `# end` line makes a truncated file detectable. Values are escaped (\\, \n, \t, \r, \xHH for
// other control bytes, for bytes that are not valid UTF-8 and for a leading or trailing space) so
// every value fits on its line, the file stays UTF-8 and survives editors that strip trailing
// blanks.
//
// The alignment line (not in findings) says whether the order depends on where the data lies
// (fprev/alignment.hpp): `independent (offsets 0-<k> checked)` (`... and ld+1 checked` where padded
// leading dimensions were checked too), `not applicable`, `not checked`, or `dependent (offsets
// 0-<k> checked, <c> classes)` with `alignment.offsets: 0,4,8,12` (the placements of the order
// written above) and, after the result, c - 1 sections
//   # alignment class <i>
//   offsets: 1-3,5-7,ld+1
//   result: tree                (leaves .. sexpr and the tree's body follow)
//   | result: map, classes: <count> and the '# class <j>' sections of an order map
// Goldens written before the alignment check have no line: the alignment is "not recorded", and
// check does not check it (docs/alignment.md).
//
// Version 1 (still read, no longer written) had no result/grid lines and one tree: it reads as a
// tree result with a 1 x 1 grid (a single-class golden is compared by its tree, whatever the grid).
//
// Limits (a golden is read from a repository, where merges garble files): a golden file holds at
// most kMaxGoldenBytes (a tree of about a million leaves in node lines) and a line at most
// kMaxGoldenLineBytes; the text must be valid UTF-8; `leaves` is at most kMaxTreeLeaves and is
// checked against the node lines before anything is allocated for it; all trees together have at
// most kMaxGoldenTotalLeaves leaves; a map has at most kMaxGoldenClasses classes and
// kMaxGoldenRanges row ranges and column ranges in all. Error messages quote at most a short excerpt of a line.
//
// Canonical: the same result and metadata always write the same bytes. The `created` date is
// metadata, so a caller re-baselining should use store_golden(), which leaves an existing file
// untouched when its result is unchanged: the date (and the file) then do not churn in git.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/alignment.hpp"
#include "fprev/fingerprint.hpp"
#include "fprev/invariance.hpp"
#include "fprev/order_map.hpp"
#include "fprev/reveal.hpp"
#include "fprev/source_position.hpp"
#include "fprev/tree.hpp"

namespace fprev {

inline constexpr int kGoldenFormatVersion = 2;  // written; version 1 is still read
inline constexpr std::size_t kMaxGoldenClasses = 4096;
// All the trees of one golden together: a structural description is a few lines for any number of
// leaves, so the file size alone does not bound the memory a golden takes to read (about 1 GB here).
inline constexpr std::size_t kMaxGoldenTotalLeaves = std::size_t{1} << 24;
// Row (and column) ranges over all the regions of a map: bounds the work of checking that they
// partition the grid.
inline constexpr std::size_t kMaxGoldenRanges = 1024;
inline constexpr std::size_t kMaxGoldenBytes = std::size_t{32} << 20;
inline constexpr std::size_t kMaxGoldenLineBytes = std::size_t{1} << 20;
// The most a metadata value from a library (its identity, version, configuration, details) takes
// in a golden that update writes: a longer one (OpenBLAS's configuration string of 2 MB) is
// shortened around a "[... N bytes left out ...]" marker, far below kMaxGoldenLineBytes.
inline constexpr std::size_t kMaxGoldenMetadataBytes = 4096;

struct GoldenMetadata {
  int format_version = kGoldenFormatVersion;  // as read; writing always writes the current version
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

// A misbehaviour recorded as the expected baseline of a case (fprev/reveal.hpp's Finding). Only
// the engine's findings about the target are recorded; `unsupported` and `target_error` (the case
// cannot run here at all) never are.
struct RecordedFinding {
  Finding finding = Finding::inconsistent_structure;
  std::string message;       // what was observed when it was recorded (for people)
  std::string probe;         // may be empty
  std::string likely_cause;  // may be empty

  friend bool operator==(const RecordedFinding&, const RecordedFinding&) = default;
};
bool is_recordable(Finding finding);
RecordedFinding record_finding(const Diagnostic& diagnostic);

struct Golden {
  GoldenMetadata meta;
  // The order map: one class holding the whole grid for a target whose outputs follow one tree
  // (a single-output target: a 1 x 1 grid). No classes when `finding` is set.
  OrderMap map;
  // The arithmetic fingerprint of each class of `map`, in class order; empty in goldens written
  // before fingerprints existed (check then compares the trees only) and for findings.
  std::vector<Fingerprint> fingerprints;
  // Set when the baseline is a misbehaviour rather than an order.
  std::optional<RecordedFinding> finding;
  // Whether the order depends on where the data lies (fprev/alignment.hpp); absent in goldens
  // written before the alignment check ("not recorded") and for findings. A dependent result's
  // class 0 holds `map` (the order at offset 0).
  std::optional<AlignmentResult> alignment;
  // Invariance verdicts (fprev/invariance.hpp), one per parameter the suite case asks about,
  // ordered by parameter name; empty in goldens written before the check or without `invariant:`.
  // Not in findings.
  std::vector<InvarianceResult> invariance;

  bool is_finding() const { return finding.has_value(); }
  bool is_single_tree() const { return !finding && map.classes.size() == 1; }
  // The tree of a single-class golden. Throws std::logic_error for a map or a finding.
  const Tree& tree() const;
  // The fingerprint of a single-class golden, when it has one.
  const Fingerprint* fingerprint() const { return fingerprints.size() == 1 ? &fingerprints[0] : nullptr; }

  // A single-tree golden (map of one class over `grid`).
  static Golden of_tree(GoldenMetadata meta, Tree tree, std::optional<Fingerprint> fingerprint = std::nullopt,
                        OutputGrid grid = {});
};

// Whether two goldens (or a golden and a revealed result) record the same orders: the same finding
// kind, or the same tree at every element. A single tree on both sides compares its trees whatever
// the grids (version 1 goldens recorded none); a single tree against a map is spread over the map's
// grid.
bool same_orders(const Golden& a, const Golden& b);
// same_orders(), the same grid, the same fingerprints class by class, the same alignment
// (recorded on both sides and same_alignment(), or on neither) and the same invariance verdicts. Metadata and finding messages do
// not count.
bool same_result(const Golden& a, const Golden& b);

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

// The canonical text of a golden (always the current version). Throws GoldenIoError for metadata
// that cannot be written (empty suite/case/backend/platform/library/tool-version/created, a
// malformed date or extra key), for an empty tree or map, a map that is not canonical, fingerprints
// that do not match the classes, and for a finding that cannot be recorded.
std::string write_golden_text(const Golden& golden);

// Strict parser. `path` only labels the errors. Throws GoldenParseError. With `case_leaves` (the
// summands of the case the golden is read for; 0: any), every tree must have exactly that many
// leaves, checked before the tree is built: the work a golden asks for is bounded by its case.
Golden parse_golden_text(std::string_view text, std::string_view path = "<golden>", std::size_t case_leaves = 0);

// ---- files --------------------------------------------------------------------------------------

// Reads and parses a golden file. Throws GoldenIoError (cannot read) or GoldenParseError (also for
// a file larger than kMaxGoldenBytes, which is not read into memory).
Golden read_golden(const std::filesystem::path& path, std::size_t case_leaves = 0);
// The same, and the digest of the bytes it parsed (golden_text_digest, fprev/pending.hpp): what a
// pending result records, so that accept knows whether the golden is still what check compared.
Golden read_golden(const std::filesystem::path& path, std::string& digest, std::size_t case_leaves = 0);

// Writes atomically: the text goes to a uniquely named temporary file in the target's directory
// (created if missing), is fsync'ed and renamed over the target, and the directory is fsync'ed.
// Readers see either the old or the new complete file; with concurrent writers the last rename
// wins and the file is always complete. No temporary file is left behind, even on failure.
// Throws GoldenIoError.
void write_golden_file(const std::filesystem::path& path, const Golden& golden);

enum class StoreOutcome {
  created,    // there was no golden
  unchanged,  // the existing golden has the same result (same_result): left untouched (keeps its date)
  changed,    // the existing golden had another result: replaced
  repaired,   // the existing file did not parse: replaced
};
std::string_view to_string(StoreOutcome outcome);

// What `update` should call: writes `golden` unless the file already holds the same result
// (same_result). Metadata differences alone (a new library version giving the same tree) do not
// rewrite the file.
StoreOutcome store_golden(const std::filesystem::path& path, const Golden& golden);

// ---- layout -------------------------------------------------------------------------------------

// True for a usable path component: 1..128 characters from [A-Za-z0-9._+-], not starting with '.'
// or '-'.
bool is_safe_component(std::string_view component);

// <root>/<platform_key>/<suite>/<backend>/<case_id>.golden, where root is the golden directory
// (the repository's golden/): the case's default golden. With a library key, the case's golden
// for one library identity (an overlay, below): <root>/<platform_key>/<suite>/<backend>/
// <library_key>/<case_id>.golden. Throws std::invalid_argument naming an unsafe component.
std::filesystem::path golden_path(const std::filesystem::path& root, std::string_view suite,
                                  std::string_view backend, std::string_view platform_key,
                                  std::string_view case_id, std::string_view library_key = {});

// ---- overlays: goldens of one library identity ----------------------------------------------------
//
// A golden set can describe two releases of a library at once: the default golden of a case, and,
// for a case whose result a given library identity changes, an overlay golden in a folder named
// for that identity. check compares with the overlay only when the running library's identity
// (library, version and configuration, as a golden records them) equals the one the overlay
// records, byte for byte; otherwise the default golden decides, as if there were no overlay. So an
// overlay never stands for another library, and a library without one is held to the default
// golden (docs/golden-format.md, "Overlays").

// The folder name of the overlays of one identity: "<library>-<version>-<digest>", characters that
// cannot name a file replaced by '_', the readable part shortened, the digest the first 8 hex
// digits of golden_text_digest() over library, version and configuration (so two builds of one
// version have two folders).
std::string library_golden_key(std::string_view library, std::string_view version,
                               std::string_view configuration);
std::string library_golden_key(const GoldenMetadata& meta);
// Whether two goldens' metadata record the same library identity (library, version, configuration).
bool same_library_identity(const GoldenMetadata& a, const GoldenMetadata& b);

struct GoldenLocation {
  std::filesystem::path path;
  std::string platform_key;
  std::string suite;
  std::string backend;
  std::string case_id;
  std::string library_key;  // empty for the default golden; the overlay's folder otherwise

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
std::string utc_timestamp_now();  // or $SOURCE_DATE_EPOCH's time when set (reproducible recordings)

// `text` (a library file, an interpreter, a list of them) with the paths of this machine made
// machine-independent, as a golden records them: under the folder the gate runs in (the project:
// its modules, its own libraries) relative to it, under the home folder "~/...". Paths elsewhere
// (/usr/lib/..., /usr/bin/python3) stay as they are; they are the same on every machine of a
// distribution.
std::string machine_independent_paths(std::string text);

// "OpenBLAS 0.3.21 (DYNAMIC_ARCH Haswell)" from the library fields.
std::string golden_identity(const GoldenMetadata& meta);

}  // namespace fprev
