// The gate: runs suite cases against their goldens (check) or re-baselines them (update).
// The runner returns data; the CLI's reporters turn it into reports (and add the command that
// accepts or creates a golden: it depends on how the tool was run).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/golden.hpp"
#include "fprev/reveal.hpp"
#include "fprev/suite.hpp"

namespace fprev {

enum class CaseStatus : std::uint8_t {
  passed,          // the revealed tree equals the golden
  differs,         // the revealed tree differs from the golden
  misbehaves,      // the target misbehaves: a diagnostic, no tree
  missing_golden,  // no baseline for this platform (skip; a failure in strict mode)
  unavailable,     // the backend cannot run here (skip)
  broken_golden,   // the golden file does not parse (never overwritten by check)
  created,         // update: a new golden was written
  changed,         // update: the golden was replaced by a different tree
  unchanged,       // update: the golden already holds this tree (file untouched)
  repaired,        // update: an unparsable golden was replaced
};
std::string_view to_string(CaseStatus status);
bool is_skip(CaseStatus status, bool strict);
bool is_failure(CaseStatus status, bool strict);

struct CaseResult {
  std::string suite;
  std::string backend;  // instance name
  std::string case_id;
  CaseStatus status = CaseStatus::passed;
  std::string platform_key;
  std::filesystem::path golden_path;
  Identity identity;                  // of the backend instance, when it could be opened
  std::string target_description;
  Format revealed_output = Format::float64;  // the target's output format (for distances in ulps)
  std::optional<Golden> golden;       // the golden that was read (check)
  std::optional<Tree> revealed;       // the tree revealed now
  std::optional<Fingerprint> fingerprint;  // measured now on the revealed tree (fprev/fingerprint.hpp)
  FingerprintStats fingerprint_stats;
  // check: the golden's fingerprint against the one measured now (absent when the golden has none
  // or the tree differs); differs when it is not same().
  std::optional<FingerprintComparison> fingerprint_change;
  std::optional<Diagnostic> diagnostic;
  std::string message;                // why unavailable, the parse error, "no golden for ..."
  RevealStats stats;
  double seconds = 0.0;
};

struct RunnerOptions {
  std::filesystem::path golden_root = "golden";
  bool strict = false;  // missing goldens fail instead of skipping
  RevealOptions reveal;
  std::string tool_version;
};

class Runner {
 public:
  Runner(const BackendRegistry& registry, RunnerOptions options);
  ~Runner();
  CaseResult check(const Suite& suite, const SuiteCase& c);
  CaseResult update(const Suite& suite, const SuiteCase& c);
  const RunnerOptions& options() const { return options_; }

 private:
  struct OpenInstance;
  OpenInstance& open(const Suite& suite, const std::string& instance_name);
  // Opens the instance, makes the target and reveals; fills the result's common fields. Returns
  // false when the case cannot proceed (status already set).
  bool reveal_case(const Suite& suite, const SuiteCase& c, CaseResult& result);

  const BackendRegistry& registry_;
  RunnerOptions options_;
  std::map<std::string, std::unique_ptr<OpenInstance>> instances_;
};

// Goldens under `root` that no case of `suites` refers to any more (any platform).
std::vector<GoldenLocation> obsolete_goldens(const std::filesystem::path& root,
                                             const std::vector<Suite>& suites);

// Shell-style pattern match ('*', '?', '[...]') for case filters.
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace fprev
