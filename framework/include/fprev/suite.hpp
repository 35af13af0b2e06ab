// Suites: YAML files that name backend instances and the cases to test on them. Loading validates
// everything that can be checked without running anything against the parameters each backend
// declares (Backend::instance_params, Backend::case_params, Backend::validate_case; a backend that
// overrides case_params is never opened here, since that may be impossible on this machine) and
// reports every problem with file, line and column; nothing runs from an invalid suite. The full
// reference is docs/suite-format.md.
//
// Schema:
//
//   suite: <name>                 # required; file-name safe: [a-z0-9][a-z0-9._-]*
//   description: <text>           # optional
//   environment_overrides: [FPREV_BLAS_LIBRARY]  # optional: overrides accepted under CI
//   backends:                     # required, non-empty list of backend instances
//     - name: <instance>          # required, file-name safe, unique in the suite; goldens are
//                                 # filed under it
//       use: <backend>            # required, a registered backend (reference, blas, tcsim, ...)
//       <setting>: <scalar>       # checked against Backend::instance_params(); a list of
//                                 # values expands the declaration into one instance per
//                                 # combination, named <name>-<value>[-<value>...]
//   cases:                        # required, non-empty list of case entries
//     - op: <scalar or list>      # any case parameter of the backend (Backend::case_params()):
//       dtype: [float32, float64] # a scalar, or a non-empty list of scalars
//       n: [8, 1024]
//       backends: [a, b]          # optional: only these instances (default: every instance); a
//                                 # declaration's name stands for all its expanded instances
//       id: <template>            # optional: the case id, with {param} placeholders
//       max_seconds: 600          # optional: the time budget of each case (a number in (0, 86400]);
//                                 # past it the case stops, reported as over budget
//       labels: [long]            # optional: extra CTest labels of the cases' tests (plain names)
//       call_sites: [<text>, ...] # optional: where an application makes this call (fprev-golden
//                                 # trace writes them); printed when a case of the entry fails
//       invariant:                # optional: invariance contracts (docs/invariance.md), a map of
//         m: [1, 8, 64]           # a case parameter or a backend setting to its values (two or
//         threads: [1, 2, 4]      # more), and runs: N (2 .. 1000 fresh instances)
//         runs: 3
//
// Expansion: each entry expands to the cross product of its list-valued fields, the first key
// varying slowest, for each applicable instance. Suite::cases is ordered by instance (in the order
// of `backends`), then entry, then combination. A file expands to at most kMaxSuiteCases cases in
// all (entries, aliases and instances together), counted before anything is expanded.
//
// Case ids (unique per instance, file-name safe): without `id`, the id joins with '-':
//   1. the value of `op`, then of `dtype` (resolved, so a default counts),
//   2. the other parameters the entry sets, except m, n, k, in alphabetical order of their names:
//      a choice parameter as its value (`sequential`), a boolean as its name (true) or no<name>
//      (false), any other as name followed by value (`splitk4`),
//   3. the shape parameters m, n, k that are set, packed into one part in that order
//   (`m64n64k256`). e.g. `gemm-float32-m64n64k256`, `dot-float64-n1000`,
//   `sum-float32-sequential-n1024`.
// Values are lower-cased and characters outside [a-z0-9._-] become '_'. Integers are written in
// canonical decimal form (`n: 008` is n8). With `id`, each {param} is replaced by the resolved
// value of that case parameter (sanitised the same way); e.g. `id: tiny-{dtype}-{n}`.
//
// Errors are reported as `<file>:<line>:<col>: error: <message>` (1-based; a problem with the whole
// file, such as a missing file, has no line and column: `<file>: error: <message>`), with
// `allowed values: ...` where there is a fixed set. A caller reports SuiteError::what() and exits
// with SuiteError::exit_status (2, a configuration error).
//
// Bounds: suites come from people and merges, so loading one takes bounded time and memory
// whatever the text, and refuses, with an error at the place, a file that crosses one of the
// limits below; the YAML is streamed through a guard before yaml-cpp builds any node (see
// docs/suite-format.md, "Limits"). Messages quote at most a short excerpt of the text, and at most
// kMaxReportedSuiteErrors errors are reported per file, followed by one saying how many more there
// were.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/source_position.hpp"

namespace fprev {

inline constexpr std::size_t kMaxSuiteBytes = std::size_t{1} << 20;  // UTF-8 without control bytes
inline constexpr std::size_t kMaxSuiteYamlNesting = 10;  // lists and maps inside each other
inline constexpr std::uint64_t kMaxSuiteYamlNodes = 200000;  // values; an alias counts as a copy
inline constexpr std::uint64_t kMaxSuiteCases = 10000;       // expanded cases of one file
// Expanded cases of all the suite files of one run together (load_suites; --max-cases raises it):
// the per-file limit alone lets many files take minutes and gigabytes to list.
inline constexpr std::uint64_t kMaxRunCases = 50000;
inline constexpr double kMaxCaseSeconds = 86400;  // the largest max_seconds a case may ask for
inline constexpr std::size_t kMaxReportedSuiteErrors = 50;   // per file, then "N more errors"
inline constexpr std::size_t kMaxCallSites = 16;        // call_sites of one case entry
inline constexpr std::size_t kMaxCallSiteBytes = 1000;  // each

// One problem found in a suite file. The position's line and column are 1-based; line 0 means the
// whole file.
struct SuiteDiagnostic {
  SourcePosition where;
  std::string message;      // without the "error: " prefix
  std::string str() const;  // "<file>:<line>:<col>: error: <message>"
};

// A configured backend instance as written in the suite (settings resolved with their defaults).
// The runner opens it later; environment overrides (FPREV_BLAS_LIBRARY) are applied there.
struct BackendInstanceSpec {
  std::string name;  // instance name, e.g. "openblas"
  std::string use;   // backend name, e.g. "blas"
  Params settings;   // resolved against Backend::instance_params()
  int line = 0;      // where the instance is declared
  int column = 0;
};

// One invariance contract of a case (key invariant; fprev/invariance.hpp).
struct InvarianceRequest {
  std::string parameter;            // a case parameter, a setting of the instance, or runs
  std::vector<std::string> values;  // canonical (integers in decimal); runs: "1" .. "N"
  int line = 0;                     // where the parameter is named
  int column = 0;
  friend bool operator==(const InvarianceRequest&, const InvarianceRequest&) = default;
};

// One expanded case of one backend instance.
struct SuiteCase {
  std::string id;                // unique within backend_instance, file-name safe
  std::string backend_instance;  // BackendInstanceSpec::name
  Params params;                 // resolved against Backend::case_params() (defaults filled in)
  std::string file;              // where the case entry is written
  int line = 0;
  int column = 0;
  // The entry's time budget (key max_seconds): the case stops past it, reported as over budget.
  std::optional<double> max_seconds;
  // Extra CTest labels of the case's test (key labels), e.g. long: left out of the default gate.
  std::vector<std::string> labels;
  // Where an application makes this call (key call_sites: fprev-golden trace writes them),
  // innermost frame first; reports print them when the case fails.
  std::vector<std::string> call_sites;
  // Invariance contracts (key invariant), ordered by parameter name: what the golden records.
  std::vector<InvarianceRequest> invariant;
};

struct Suite {
  std::string name;
  std::string description;
  std::string file;  // the path it was loaded from, as given
  int line = 0;      // where the suite name is written
  int column = 0;
  // Environment overrides (FPREV_BLAS_LIBRARY, ...) this suite accepts under CI: key
  // environment_overrides. Elsewhere every override is allowed; it is always named in the summary.
  std::vector<std::string> environment_overrides;
  std::vector<BackendInstanceSpec> backends;
  std::vector<SuiteCase> cases;

  const BackendInstanceSpec* find_backend(std::string_view instance_name) const;
};

// Every problem found while loading one or more suite files, in file/line/column order.
class SuiteError : public std::runtime_error {
 public:
  static constexpr int exit_status = 2;

  explicit SuiteError(std::vector<SuiteDiagnostic> diagnostics);
  // Position of the first problem.
  const std::string& file() const { return diagnostics_.front().where.source; }
  int line() const { return static_cast<int>(diagnostics_.front().where.line); }
  int column() const { return static_cast<int>(diagnostics_.front().where.column); }
  const std::vector<SuiteDiagnostic>& diagnostics() const { return diagnostics_; }
  std::vector<std::string> errors() const;  // each diagnostic formatted by str()

  // What could still be read of the one file that failed (load_suite, parse_suite): the suite's
  // name when it is valid (else ""), every backend instance declared with a valid name (settings
  // left out), and the cases that expanded without a problem. Empty for an unreadable file.
  const Suite& readable() const;
  void set_readable(Suite readable);

 private:
  std::vector<SuiteDiagnostic> diagnostics_;
  std::shared_ptr<const Suite> readable_;  // shared: an exception is copied
};

// Loads and validates one suite file. Collects all problems, then throws SuiteError.
Suite load_suite(const std::filesystem::path& file, const BackendRegistry& registry);

// The same from text; `file_name` is what messages call the source.
Suite parse_suite(std::string_view yaml_text, const std::string& file_name,
                  const BackendRegistry& registry);

// Loads suite files and directories (a directory contributes its *.yaml and *.yml files, not
// recursively, in name order). Suite names must be unique across all of them. Collects the
// problems of every file, then throws SuiteError. The files together may expand to at most
// `max_cases` cases: loading stops at the file that passes it, with an error naming the limit.
std::vector<Suite> load_suites(const std::vector<std::filesystem::path>& files_or_directories,
                               const BackendRegistry& registry, std::uint64_t max_cases = kMaxRunCases);

// A suite file (or a directory of them) that did not load, with what could be read of it:
// SuiteError::readable(), whose name is, when the file does not give a valid one, the value of a
// line `suite: <name>` if there is one, else the file's name without its extension (sanitised as
// case ids are), so that whatever stands in for the suite (a failing CTest test) carries the labels
// and names its cases would have carried.
struct InvalidSuiteFile {
  std::string file;
  std::vector<SuiteDiagnostic> diagnostics;
  Suite readable;
};

struct LoadedSuites {
  std::vector<Suite> suites;               // the files that loaded, with unique names
  std::vector<InvalidSuiteFile> invalid;   // in the order their problems are reported
};

// load_suites() that goes on past invalid files: every file that loads is kept, every one that
// does not (a second suite of a name already used too) is listed with its problems. Past
// `max_cases` (a total, as for load_suites) it still throws SuiteError: that refuses the whole run.
LoadedSuites load_suites_keeping_going(const std::vector<std::filesystem::path>& files_or_directories,
                                       const BackendRegistry& registry, std::uint64_t max_cases = kMaxRunCases);

// The suite files of a directory (*.yaml, *.yml), sorted by name.
std::vector<std::filesystem::path> find_suite_files(const std::filesystem::path& directory);

// The default case id (rule above) from the backend's case parameters, the parameters the entry
// sets and the resolved parameters. Returns "" when there is nothing to build an id from.
std::string default_case_id(const std::vector<ParamSpec>& specs, const Params& set_params,
                            const Params& resolved_params);

// The longest suite name, instance name, case id or label: a golden path component's limit.
inline constexpr std::size_t kMaxNameLength = 128;

// [a-z0-9][a-z0-9._-]*, at most kMaxNameLength characters: usable as a file or directory name
// everywhere, never "." or "..".
bool is_file_name_safe(std::string_view name);

}  // namespace fprev
