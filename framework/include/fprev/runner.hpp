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

#include "fprev/alignment.hpp"
#include "fprev/backend.hpp"
#include "fprev/cost_estimate.hpp"
#include "fprev/golden.hpp"
#include "fprev/impact.hpp"
#include "fprev/invariance.hpp"
#include "fprev/pending.hpp"
#include "fprev/reveal.hpp"
#include "fprev/suite.hpp"

namespace fprev {

enum class CaseStatus : std::uint8_t {
  passed,          // the revealed order map (and fingerprint) equals the golden, or the golden's
                   // recorded finding persists
  differs,         // the order map or fingerprint differs from the golden, or the recorded finding
                   // changed or gave way to a tree
  misbehaves,      // the target misbehaves (a diagnostic, no tree) where the golden holds an order or
                   // there is no golden; or the case cannot run as configured
  missing_golden,  // no baseline for this platform, the reveal succeeded (skip; a failure in strict mode)
  unavailable,     // the backend cannot run here (skip)
  broken_golden,   // the golden file does not parse (never overwritten by check)
  over_budget,     // the reveal ran past the case's time budget, or its cost estimate was refused
                   // before it ran (skip; a failure in strict mode); nothing was compared
  created,         // update: a new golden was written
  changed,         // update: the golden was replaced by a different result
  unchanged,       // update: the golden already holds this result (file untouched)
  repaired,        // update: an unparsable golden was replaced
  unwritable,      // update: the golden could not be written (a full or read-only disk, or the
                   // written file would not read back); the old one is left as it was. A failure
};
std::string_view to_string(CaseStatus status);

// Which cases that reached no verdict fail rather than skip. Only "this host cannot run that"
// stays a quiet skip by default; a case whose golden for this platform exists but that reached no
// verdict (past its budget, refused by its estimate) always fails, so that a suite edit such as
// `max_seconds: 0.000001` cannot switch a check off.
struct SkipPolicy {
  bool strict = false;  // --strict, FPREV_STRICT: every skip fails
  bool ci = false;      // CI set: a missing golden fails, as Jest's --ci does
};
struct CaseResult;
bool is_skip(const CaseResult& result, SkipPolicy policy);
bool is_failure(const CaseResult& result, SkipPolicy policy);
// A check that passed on its order alone: the golden (an older file) has no arithmetic
// fingerprint, so a change of the arithmetic under the same tree went unseen. A failure in strict
// mode; a note otherwise.
bool passed_without_fingerprint(const CaseResult& result);

struct CaseResult {
  std::string suite;
  std::string backend;  // instance name
  std::string case_id;
  // Where an application makes this call (the case's call_sites, fprev-golden trace): a failing
  // case names them.
  std::vector<std::string> call_sites;
  CaseStatus status = CaseStatus::passed;
  std::string platform_key;
  std::filesystem::path golden_path;
  // The folder of the overlay (fprev/golden.hpp) golden_path is in: the running library's own
  // golden of this case. Empty when golden_path is the case's default golden.
  std::string library_key;
  Identity identity;                  // of the backend instance, when it could be opened
  std::string target_description;
  Format revealed_output = Format::float64;  // the target's output format (for distances in ulps)
  std::optional<NumericTraits> traits;       // the target's formats, once it was made
  std::optional<Golden> golden;       // the golden that was read (check; update: the one replaced)
  // The order map revealed now: one class when every output follows one tree (always for a
  // single-output target). Absent when the target misbehaved (see `diagnostic`).
  std::optional<OrderMap> revealed;
  // Measured now, one per class of `revealed` (fprev/fingerprint.hpp).
  std::vector<Fingerprint> fingerprints;
  FingerprintStats fingerprint_stats;
  // The golden's fingerprint against the one measured now, for the first class whose fingerprint
  // changed (or the only class); absent when the golden has none or the order differs. Differs
  // when it is not same().
  std::optional<FingerprintComparison> fingerprint_change;
  std::size_t fingerprint_class = 0;  // the class of `revealed` fingerprint_change is about
  // What the change costs numerically (fprev/impact.hpp): set for a case that differs from its
  // golden (check), whose golden changed (update), or that misbehaves where the golden's tree with
  // the arithmetic measured now explains it (fingerprint_change), in the target's formats.
  std::optional<ResultImpact> impact;
  // The engine's finding when the target misbehaves (also when it persists as the golden's
  // recorded finding, or when update records it).
  std::optional<Diagnostic> diagnostic;
  // The case failed on the suite's configuration, not on the library: a backend setting the
  // backend refused when the instance was opened (or its FPREV_<BACKEND>_<SETTING> override), a
  // case parameter the target refused, an invariance contract the backend cannot vary. Fixing the
  // suite fixes it; check and update end with the configuration error's exit status (2).
  bool configuration_error = false;
  std::string message;                // why unavailable, the parse error, "no golden for ..."
  // Platform keys under which this case has goldens, when it has none for this platform (check).
  std::vector<std::string> other_platforms;
  RevealStats stats;
  // Target calls outside `stats`: the cost estimate's timing calls, and those of a confirmation of
  // the golden that failed before the reveal (fprev/target_calls.hpp, TargetCalls::other).
  std::size_t other_target_calls = 0;
  // Jobs the backend launched for the targets the gate made for this case (TargetInfo::
  // jobs_started: an MPI job; 0 when the case ran on a job an earlier case left running).
  std::size_t jobs_started = 0;
  // Whether the order depends on where the data lies (fprev/alignment.hpp), checked with the order
  // revealed (or confirmed) now. Absent when not checked: the case did not give an order, or check
  // ran against a golden that records no alignment (written before the check existed).
  std::optional<AlignmentResult> alignment;
  AlignmentStats alignment_stats;
  // Set when check found the golden's alignment result changed: what the golden says, what now.
  bool alignment_differs = false;
  // Invariance verdicts (fprev/invariance.hpp) of the case's `invariant:` contracts, ordered by
  // parameter, checked with the order revealed (or confirmed) now; empty when the case asks for
  // none or gave no order. One InvarianceStats each.
  std::vector<InvarianceResult> invariance;
  std::vector<InvarianceStats> invariance_stats;
  // check: how the verdicts differ from the golden's, one sentence each ("no longer batch-invariant:
  // at m=1 element (0,0) adds its summands in another order than at m=64"); any makes the case
  // differ. `invariance_lost`: a level the golden records as held no longer holds.
  std::vector<std::string> invariance_changes;
  bool invariance_lost = false;
  // What the reveal was estimated to cost before it ran (absent when it did not get that far).
  std::optional<CostEstimate> estimate;
  double budget_seconds = 0.0;  // the case's time budget (0: none)
  double seconds = 0.0;
  // With pending results on (RunnerOptions::pending): where check kept what it revealed for review
  // (a case that needs accepting; fprev/pending.hpp), or why it could not be kept or removed.
  std::filesystem::path pending_path;
  // check: the digest of the golden bytes it compared with (kNoGoldenDigest when there was none);
  // the pending result records it for accept.
  std::string golden_digest;
  std::string pending_error;

  // The revealed tree when every output follows one, else nullptr.
  const Tree* revealed_tree() const {
    return revealed && revealed->single_class() ? &revealed->classes[0].tree : nullptr;
  }
  const Fingerprint* fingerprint() const { return fingerprints.size() == 1 ? &fingerprints[0] : nullptr; }
};

struct RunnerOptions {
  std::filesystem::path golden_root = "golden";
  bool strict = false;  // missing goldens fail instead of skipping
  RevealOptions reveal;
  // Probe streams per case (0: one per core), at most what the backend allows for the case
  // (BackendInstance::concurrent_targets); RevealOptions::streams and make_worker are set per case.
  std::size_t streams = 0;
  // Time budget of every case in seconds (0: none); a case's own max_seconds (suite key) applies
  // when smaller. Past it the case stops with the status over_budget.
  double max_seconds = 0.0;
  // A case whose cost estimate, even at the model's fewest probes, exceeds this many seconds is
  // refused before it runs (over_budget, the estimate in the message). 0: no estimate is made.
  double max_estimated_seconds = 3600.0;
  std::string tool_version;
  // The alignment check (fprev/alignment.hpp): update records it, check checks it where the golden
  // records it. Off: offset 0 only (update then records no alignment, as before the check existed).
  bool check_alignment = true;
  // Overlays (fprev/golden.hpp): a golden recorded for exactly the running library's identity
  // stands in for the case's default golden (check compares with it, update rewrites it). Off
  // (check --no-overlays): the default goldens only, e.g. to see what a new library release changed.
  bool use_overlays = true;
  // update --overlay: a result that differs from the case's default golden (same_result) is written
  // as the running library's overlay, and the default golden stays; a result equal to it removes
  // that overlay. A case without a readable default golden gets one, as with a plain update.
  bool write_overlay = false;
  // Where check keeps the revealed result of a case that needs accepting (and removes it once the
  // case passes, or update wrote its golden); none kept when absent.
  std::optional<PendingStore> pending;
  // check --jobs: takes the cores for the case alone while an invariance variant of several threads
  // makes its calls (make_invariance_variants); the case's own calls share them. None: no claim.
  CoreClaim claim_cores;
};

// What a runner opens one backend instance for: the backend and its resolved settings (environment
// overrides applied), so that two instances of the same library with the same settings (in one
// suite or in two) are opened once and share their workers and MPI jobs; "unresolved
// <suite>/<name>" when the settings do not resolve (the case then reports why).
std::string instance_key(const BackendRegistry& registry, const Suite& suite, const std::string& instance_name);
// The threads the library of a suite's backend instance runs each call on: its resolved `threads`
// setting (the blas and python backends' library thread count), 1 where it has none or the
// instance does not resolve. `check --jobs` runs a case of more than one thread alone, and `list`
// gives CTest that many processors: a multi-threaded library beside another case on too few cores
// waits for its own threads a scheduler slice at a time (OpenBLAS 0.3.29's 2-thread ddot: 150 s
// where it takes 0.3 s alone).
std::size_t instance_threads(const BackendRegistry& registry, const Suite& suite, const std::string& instance_name);
// The threads the case's own calls run its library on: its instance's (instance_threads), or a case
// parameter `threads` where it has one. `check --jobs` runs a case of more than one alone.
std::size_t case_own_threads(const BackendRegistry& registry, const Suite& suite, const SuiteCase& c);
// The most threads any call of a case runs its library on: case_own_threads, and every value of an
// invariance contract over `threads` (its variants run inside the case; `check --jobs` gives them
// the cores alone for their calls, RunnerOptions::claim_cores). `list` gives CTest as many processors.
std::size_t case_threads(const BackendRegistry& registry, const Suite& suite, const SuiteCase& c);

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
  enum class Outcome : std::uint8_t { revealed, finding, failed };
  // Opens the instance, makes the target, reveals and fingerprints; fills the result's common
  // fields. `revealed`: result.revealed and fingerprints are set; `finding`: the target misbehaves
  // in a way a golden can record (result.diagnostic); `failed`: the case cannot proceed (status
  // already set: unavailable, or misbehaves for a configuration or target error). When `golden`
  // holds one tree and the target misbehaves, the fingerprint measured with that tree explains
  // what changed. With `confirm_golden` (check), a golden that records an order is first
  // confirmed (fprev/confirm.hpp): when it holds, the result is the golden's map, measured with
  // the proof probes only; otherwise the reveal runs as without it. Not with --algorithm basic or
  // naive (the algorithm asked for runs), nor beyond the exact counting range where confirm()
  // would reveal anyway (confirmable(), confirm_probe_count()).
  // With `confirm_golden`, the golden at result.golden_path (when there is one) is read here, once
  // the target says how many summands the case has, and within the case's time budget: a golden
  // that cannot be read (or whose trees have another size) fails with the status broken_golden.
  Outcome reveal_case(const Suite& suite, const SuiteCase& c, CaseResult& result,
                      bool confirm_golden = false);
  // Reads the golden of a case with `leaves` summands into result.golden; false, with the status
  // broken_golden, when it cannot be read or belongs to another case.
  bool read_case_golden(CaseResult& result, std::size_t leaves);
  // Fills the result's identity and golden path from the opened instance; false when it is not open.
  bool locate_golden(const Suite& suite, const SuiteCase& c, CaseResult& result);
  // The alignment check of a case that revealed (or confirmed) its order: result.alignment, or a
  // failure status when the target misbehaves at some placement (src/gate/alignment_case.cpp).
  // False when it failed (the status says how).
  bool check_case_alignment(const Suite& suite, const SuiteCase& c, CaseResult& result);
  // The invariance contracts of a case that revealed (or confirmed) its order: result.invariance,
  // or a failure status when a variant misbehaves or cannot run (src/gate/invariance_case.cpp).
  bool check_case_invariance(const Suite& suite, const SuiteCase& c, CaseResult& result);
  // The case's time budget: the smaller of RunnerOptions::max_seconds and its own (0: none).
  double budget_of(const SuiteCase& c) const;
  // Estimates the reveal's cost (result.estimate); false, with the status over_budget, when even
  // its fewest probes exceed max_estimated_seconds or the case's budget.
  // `confirm_probes`: set when the case will confirm a golden tree with that many proof probes.
  bool within_estimate(Target& target, const RevealOptions& options, std::optional<std::size_t> confirm_probes,
                       CaseResult& result);
  // Keeps the pending result of a case that ran (Outcome revealed or finding) in step with its
  // status: written when it needs accepting, removed when it passes or update wrote its golden.
  void sync_pending(CaseResult& result, bool keep);

  const BackendRegistry& registry_;
  RunnerOptions options_;
  std::map<std::string, std::unique_ptr<OpenInstance>> instances_;  // by instance_key()
  std::map<std::string, OpenInstance*> by_name_;                     // "<suite>/<instance name>"
};

// The golden `update` writes for a result: its metadata (suite, case, backend, platform, library
// identity, the target, the tool's version, now as the date), and the revealed order map with its
// fingerprints or the recorded finding. nullopt when there is nothing to record (the case could
// not run, or its finding is not recordable).
std::optional<Golden> golden_of(const CaseResult& result, const std::string& tool_version);

// Goldens under `root` that no case of `suites` refers to any more (any platform).
std::vector<GoldenLocation> obsolete_goldens(const std::filesystem::path& root,
                                             const std::vector<Suite>& suites);

// Deletes an obsolete golden (one that obsolete_goldens() listed) after making sure it is one: the
// file parses as a golden and its metadata names the suite, backend, case and platform of its
// path. Removes the directories that leaves empty below `root`. Returns "" when it was deleted,
// else why it was kept.
std::string delete_obsolete_golden(const std::filesystem::path& root, const GoldenLocation& golden);

// Shell-style pattern match ('*', '?', '[...]') for case filters.
bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace fprev
