// fprev-golden check (the gate) and update (re-baseline): run the selected suite cases through the
// Runner and tell the reporters.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "../accept_command.hpp"
#include "../commands.hpp"
#include "../control_escape.hpp"
#include "../environment.hpp"
#include "../environment_overrides.hpp"
#include "../output_guard.hpp"
#include "../pending_selection.hpp"
#include "../report/reporter.hpp"
#include "../selection.hpp"
#include "../version.hpp"
#include "case_spreader.hpp"
#include "distributed_mode.hpp"
#include "engine_options.hpp"
#include "fprev/backend_module.hpp"
#include "fprev/runner.hpp"

namespace fprev::cli {
namespace {

// Whether the run left out an opt-in label by default (not by --exclude-label): then it says how to opt in.
bool opt_in_left_out(const std::vector<std::string>& excluded, const SelectionOptions& options) {
  for (const std::string& label : opt_in_labels())
    if (std::find(excluded.begin(), excluded.end(), label) != excluded.end() &&
        std::find(options.excluded_labels.begin(), options.excluded_labels.end(), label) == options.excluded_labels.end())
      return true;
  return false;
}

// How often a log gets a progress line: FPREV_PROGRESS_INTERVAL seconds (tests make it short),
// default 30 s, so that a CI log is never silent for a minute.
std::chrono::milliseconds log_progress_interval() {
  const auto value = environment_value("FPREV_PROGRESS_INTERVAL");
  if (!value) return std::chrono::seconds(30);
  char* end = nullptr;
  const double seconds = std::strtod(value->c_str(), &end);
  if (end == value->c_str() || *end != '\0' || !(seconds >= 0.01 && seconds <= 86400.0))
    throw UsageError("FPREV_PROGRESS_INTERVAL='" + *value + "' is not a number of seconds from 0.01 to 86400");
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0));
}

// Text on stdout by default; --json replaces it with one document; --ctest reports one case for
// a CTest test; --html writes a page besides. Progress: on a terminal one line that rewrites
// itself; in a log (stderr not a terminal, CI, a distributed run) a line whenever 30 s passed
// without one, on stderr (never in the --json document); none with --quiet or --ctest.
std::unique_ptr<Reporter> make_reporters(const GateOptions& options, bool update) {
  auto reporters = std::make_unique<ReporterList>();
  const bool distributed = active_distributed_session() != nullptr;
  const bool terminal = isatty(2) != 0 && !environment_flag("CI") && !distributed;
  if (!options.quiet && !options.ctest && !terminal)
    reporters->add(make_log_progress_reporter(STDERR_FILENO, log_progress_interval(), update ? "update" : "check"));
  if (options.json) {
    reporters->add(make_json_reporter(std::cout));
  } else if (options.ctest) {
    reporters->add(make_ctest_reporter(std::cout));
  } else {
    // An MPI launcher gives its ranks a pseudo-terminal whatever its own output is (Open MPI's
    // mpirun does): a distributed run writes as into a log.
    const bool progress = !options.quiet && terminal;
    // On a terminal a green run lists only what did not pass; a log keeps every row.
    const TableRows rows = options.only_failures ? TableRows::not_passed
                           : options.all_rows || isatty(1) == 0 || distributed ? TableRows::all
                                                                : TableRows::not_passed_when_green;
    reporters->add(make_text_reporter(std::cout, raw_standard_error(), progress, rows));
  }
  if (options.html) reporters->add(make_html_file_reporter(*options.html, options.picture.max_nodes));
  return reporters;
}

// The accept command of the CTest mode must work from wherever the test's output is read: the
// executable's real path and absolute suite and golden paths.
AcceptCommand accept_command_for(const GateOptions& options, const Selection& selection) {
  if (options.ctest)
    return AcceptCommand(running_executable(options.program), selection_arguments(selection, true));
  return AcceptCommand(program_as_invoked(options.program), selection_arguments(selection, false));
}

// The command that reviews the pending results of this run: the program and the --golden and
// --pending-dir arguments of the run (absolute ones for CTest, as its accept command).
std::string review_command_for(const GateOptions& options, const Selection& selection, const PendingStore& store) {
  const std::string program =
      options.ctest ? running_executable(options.program) : program_as_invoked(options.program);
  std::string command = shell_quote(program) + " review";
  for (const auto& argument :
       pending_arguments(store, selection.golden_given, options.pending.directory.has_value(), options.ctest))
    command += " " + shell_quote(argument);
  return command;
}

// The obsolete goldens of the selection, deleted with --unreferenced=delete when they are safely
// goldens of their paths (and their pending results with them).
std::vector<ObsoleteGolden> handle_obsolete(const GateOptions& options, const Selection& selection,
                                            const std::optional<PendingStore>& pending) {
  std::vector<ObsoleteGolden> obsolete;
  for (GoldenLocation& location : obsolete_in_selection(selection)) {
    ObsoleteGolden g{std::move(location), false, ""};
    if (options.unreferenced == UnreferencedPolicy::remove) {
      g.kept_because = delete_obsolete_golden(selection.golden_root, g.location);
      g.deleted = g.kept_because.empty();
      if (g.deleted && pending) {
        const GoldenLocation& l = g.location;
        try {
          pending->reject(pending->locate(l.suite, l.backend, l.platform_key, l.case_id));
        } catch (const std::exception& e) {
          std::cerr << "warning: " << e.what() << "\n";
        }
      }
    }
    obsolete.push_back(std::move(g));
  }
  return obsolete;
}

// What the run reads or writes besides its reports: --html must name none of it (output_guard.hpp).
// The suites, every absolute path a selected instance's settings name (a library, an interpreter),
// the backend modules that could be loaded, and the directories of goldens and pending results.
RunInputs run_inputs(const Selection& selection, const std::optional<PendingStore>& pending) {
  RunInputs inputs;
  for (const Suite& suite : selection.suites) {
    inputs.files.emplace_back(suite.file);
    for (const BackendInstanceSpec& instance : suite.backends)
      for (const auto& [setting, value] : instance.settings)
        if (!value.empty() && value.front() == '/') inputs.files.emplace_back(value);
  }
  inputs.directories.push_back(selection.golden_root);
  if (pending) inputs.directories.push_back(pending->root());
  for (const auto& directory : backend_module_search_path())
    for (const std::string& module : available_backend_modules())
      inputs.files.push_back(directory / backend_module_file_name(module));
  return inputs;
}

// Which cases that reached no verdict fail: every one in strict mode; a missing golden under CI
// (as Jest's --ci: a CI run must compare, not quietly record nothing). update creates goldens, so
// a missing one is never its failure.
SkipPolicy skip_policy(const GateOptions& options, bool update) {
  SkipPolicy policy;
  policy.strict = options.strict || environment_flag("FPREV_STRICT");
  policy.ci = !update && environment_flag("CI");
  return policy;
}

// A check that compared nothing (0 passed, 0 failed) tested nothing: every case was skipped (no
// goldens for this platform, e.g. after FPREV_BLAS_THREADS moved every key; backends that cannot
// run here). It fails unless --allow-nothing; --ctest reports its one case's skip to CTest (77).
// An update that recorded nothing (every case skipped: a library missing for the interpreter, a
// kernel this CPU cannot run) fails the same way: its user expects goldens and would otherwise
// find none at the next check.
bool compared_nothing(const GateOptions& options, const CaseCounts& counts) {
  return !options.ctest && !options.allow_nothing && counts.passed == 0 && counts.failed == 0;
}

// Why the skips happened: the distinct reasons, most frequent first (at most three).
std::string skip_reasons(const std::vector<CaseResult>& results) {
  std::vector<std::pair<std::string, std::size_t>> reasons;
  for (const CaseResult& r : results) {
    if (r.status == CaseStatus::passed || r.message.empty()) continue;
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& reason) { return reason.first == r.message; });
    if (it == reasons.end()) reasons.emplace_back(r.message, 1);
    else ++it->second;
  }
  std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (std::size_t k = 0; k < reasons.size() && k < 3; ++k)
    text += "\n  " + std::to_string(reasons[k].second) + (reasons[k].second == 1 ? " case: " : " cases: ") + reasons[k].first;
  if (reasons.size() > 3) text += "\n  and " + std::to_string(reasons.size() - 3) + " other reasons";
  return text;
}

int run_gate(const GateOptions& options, bool update) {
  // Every rank of an MPI job gets here; all but rank 0 serve workers until rank 0 is done.
  const auto distributed = start_distributed_mode(options.engine);
  if (distributed && distributed->serving_rank()) return distributed->exit_status();
  const SkipPolicy policy = skip_policy(options, update);
  if (update) refuse_in_ci(options.force, "re-baseline goldens", "Review the change and run update on a developer machine");
  if (options.unreferenced == UnreferencedPolicy::remove)
    refuse_in_ci(options.force, "delete obsolete goldens",
                 "Delete them on a developer machine (check --unreferenced=delete) and commit that");
  const Selection selection = select_cases(options.selection);
  // A golden directory named explicitly must exist for check: otherwise every case would be a
  // "missing golden" skip and the gate green although nothing was compared. update creates it.
  const bool golden_named = selection.golden_given || std::getenv("FPREV_GOLDEN_DIR") != nullptr;
  if (!update && golden_named && !std::filesystem::is_directory(selection.golden_root))
    throw UsageError("the golden directory " + selection.golden_root.string() +
                     " does not exist (named with " +
                     (selection.golden_given ? "--golden" : "FPREV_GOLDEN_DIR") +
                     "); check compares with the goldens there. Record them with update, or fix the path");
  if (options.ctest && selection.cases.size() != 1)
    throw UsageError("--ctest runs exactly one case (use --suite, --backend and --case)");
  // Variables that move cases to skips are named in the summary, and refused in CI unless the
  // suites accept them (environment_overrides.hpp).
  const std::vector<EnvironmentOverride> overrides = environment_overrides(selection);
  refuse_unaccepted_overrides_in_ci(selection, overrides);
  check_overridden_settings(selection, overrides);

  RunnerOptions runner_options;
  runner_options.golden_root = selection.golden_root;
  runner_options.strict = policy.strict;
  runner_options.tool_version = kToolVersion;
  apply_engine_options(options.engine, runner_options.reveal);
  runner_options.streams = requested_streams(options.engine);
  apply_distributed_options(runner_options.reveal);
  runner_options.check_alignment = !options.engine.no_alignment_check;
  runner_options.use_overlays = !options.no_overlays;
  runner_options.write_overlay = options.overlay;
  runner_options.max_seconds = options.engine.max_seconds;
  runner_options.max_estimated_seconds = options.max_estimate;
  runner_options.pending = pending_store_for(options.pending, selection.golden_root);
  if (options.html) refuse_output_over_inputs("--html", *options.html, run_inputs(selection, runner_options.pending));
  const auto reporter = make_reporters(options, update);
  runner_options.reveal.on_progress = [&reporter](const Progress& p) { reporter->case_progress(p); };
  const std::size_t slots = case_slots(options, selection.cases.size());
  if (slots != 0) {
    runner_options.reveal.on_progress = nullptr;  // cases side by side: no one progress line
    runner_options.streams = streams_per_case_slot(options, slots);
  }
  Runner runner(builtin_backends(), runner_options);
  const AcceptCommand accept = accept_command_for(options, selection);

  // Cases left out by label are not in the counts: say so, so a summary never looks complete when
  // it is not (on stderr here; the JSON and HTML reports carry the count too).
  if (selection.excluded_by_label != 0)
    std::cerr << "fprev-golden " << (update ? "update" : "check") << ": " << selection.excluded_by_label
              << (selection.excluded_by_label == 1 ? " case" : " cases")
              << " left out by label (" << label_list(selection.excluded_labels) << "), not counted below"
              << (opt_in_left_out(selection.excluded_labels, options.selection) ? "; --label long runs the long ones" : "")
              << "\n";
  reporter->run_started({update ? "update" : "check", policy, selection.cases.size(), selection.excluded_by_label,
                         selection.excluded_labels});
  // Whole cases may run side by side (--jobs; one per rank in a distributed run: case_slots):
  // their results are reported here in the selection's order, as a serial run reports them.
  std::unique_ptr<CaseSpreader> spreader;
  if (slots != 0)
    spreader = std::make_unique<CaseSpreader>(selection.cases, runner_options, update, slots);
  std::vector<CaseResult> results;
  for (std::size_t k = 0; k < selection.cases.size(); ++k) {
    const SelectedCase& sc = selection.cases[k];
    reporter->case_started(k, test_name(*sc.suite, *sc.c));
    results.push_back(spreader ? spreader->result(k)
                               : update ? runner.update(*sc.suite, *sc.c) : runner.check(*sc.suite, *sc.c));
    const CaseResult& r = results.back();
    // A misbehaving target can be accepted too: update records its finding as the baseline.
    const bool recordable_finding = r.status == CaseStatus::misbehaves && r.diagnostic &&
                                    is_recordable(r.diagnostic->finding);
    const bool needs_accept = r.status == CaseStatus::differs ||
                              r.status == CaseStatus::missing_golden ||
                              r.status == CaseStatus::broken_golden || recordable_finding ||
                              passed_without_fingerprint(r);  // its NOTE says how to add one
    reporter->case_finished(r, needs_accept ? accept.for_case(*sc.suite, *sc.c) : "");
  }
  const std::vector<ObsoleteGolden> obsolete = handle_obsolete(options, selection, runner_options.pending);
  const CaseCounts counts = count_cases(results, policy);
  const bool kept = std::any_of(results.begin(), results.end(), [](const CaseResult& r) { return !r.pending_path.empty(); });
  const std::vector<std::string> lost_ranks = distributed ? distributed->lost_ranks() : std::vector<std::string>{};
  reporter->run_finished({results, obsolete, counts, options.unreferenced,
                          kept ? review_command_for(options, selection, *runner_options.pending) : "", overrides,
                          lost_ranks});

  // A case the suite's configuration broke is the suite's error, not the library's: the status
  // that tells a CI log "fix the suite" (the reports above name each case and why).
  const auto misconfigured = std::count_if(results.begin(), results.end(),
                                           [](const CaseResult& r) { return r.configuration_error; });
  if (misconfigured != 0) {
    std::cerr << "fprev-golden " << (update ? "update" : "check") << ": error: " << misconfigured
              << (misconfigured == 1 ? " case has" : " cases have")
              << " a configuration error (a backend setting or case parameter refused, named above)\n";
    return kExitUsage;
  }
  if (counts.failed != 0 || obsolete_fails(obsolete, options.unreferenced) || !lost_ranks.empty()) return kExitFailure;
  if (options.ctest && counts.skipped != 0) return kExitSkip;
  if (update && compared_nothing(options, counts)) {
    std::cerr << "fprev-golden update: error: nothing was recorded (0 passed, 0 failed, " << counts.skipped
              << " skipped): every selected case was skipped, why:" << skip_reasons(results)
              << "\nFix that (or select what this host can run) and run update again, or pass --allow-nothing\n";
    return kExitFailure;
  }
  if (compared_nothing(options, counts)) {
    std::cerr << "fprev-golden check: error: nothing was compared (0 passed, 0 failed, " << counts.skipped
              << " skipped): no selected case has a golden it could check here. Record goldens for this "
                 "platform with update, select what this host can run, or pass --allow-nothing\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

int run_check(const GateOptions& options) { return run_gate(options, false); }
int run_update(const GateOptions& options) { return run_gate(options, true); }

}  // namespace fprev::cli
