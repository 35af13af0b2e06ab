// fprev-golden check (the gate) and update (re-baseline): run the selected suite cases through the
// Runner and tell the reporters.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "../accept_command.hpp"
#include "../commands.hpp"
#include "../report/reporter.hpp"
#include "../selection.hpp"
#include "../version.hpp"
#include "engine_options.hpp"
#include "fprev/runner.hpp"

namespace fprev::cli {
namespace {

bool environment_flag(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return false;
  const std::string v = value;
  return !v.empty() && v != "0" && v != "false" && v != "no";
}

// Text on stdout by default; --json replaces it with one document; --ctest reports one case for
// a CTest test; --html writes a page besides. Progress goes to a terminal only: CI logs and pipes stay quiet.
std::unique_ptr<Reporter> make_reporters(const GateOptions& options) {
  auto reporters = std::make_unique<ReporterList>();
  if (options.json) {
    reporters->add(make_json_reporter(std::cout));
  } else if (options.ctest) {
    reporters->add(make_ctest_reporter(std::cout));
  } else {
    const bool progress = !options.quiet && isatty(2) != 0 && !environment_flag("CI");
    reporters->add(make_text_reporter(std::cout, std::cerr, progress));
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

int run_gate(const GateOptions& options, bool update) {
  const bool strict = options.strict || environment_flag("FPREV_STRICT");
  if (update && environment_flag("CI") && !options.force)
    throw UsageError(
        "refusing to re-baseline goldens in CI (the environment variable CI is set). Review the "
        "change and run update on a developer machine, or pass --force.");
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

  RunnerOptions runner_options;
  runner_options.golden_root = selection.golden_root;
  runner_options.strict = strict;
  runner_options.tool_version = kToolVersion;
  apply_engine_options(options.engine, runner_options.reveal);
  Runner runner(builtin_backends(), runner_options);
  const AcceptCommand accept = accept_command_for(options, selection);
  const auto reporter = make_reporters(options);

  reporter->run_started({update ? "update" : "check", strict, selection.cases.size()});
  std::vector<CaseResult> results;
  for (std::size_t k = 0; k < selection.cases.size(); ++k) {
    const SelectedCase& sc = selection.cases[k];
    reporter->case_started(k, test_name(*sc.suite, *sc.c));
    results.push_back(update ? runner.update(*sc.suite, *sc.c) : runner.check(*sc.suite, *sc.c));
    const CaseResult& r = results.back();
    // A misbehaving target can be accepted too: update records its finding as the baseline.
    const bool recordable_finding = r.status == CaseStatus::misbehaves && r.diagnostic &&
                                    is_recordable(r.diagnostic->finding);
    const bool needs_accept = r.status == CaseStatus::differs ||
                              r.status == CaseStatus::missing_golden ||
                              r.status == CaseStatus::broken_golden || recordable_finding;
    reporter->case_finished(r, needs_accept ? accept.for_case(*sc.suite, *sc.c) : "");
  }
  const auto obsolete = obsolete_goldens(selection.golden_root, selection.suites);
  const CaseCounts counts = count_cases(results, strict);
  reporter->run_finished({results, obsolete, counts});

  if (counts.failed != 0) return kExitFailure;
  if (options.ctest && counts.skipped != 0) return kExitSkip;
  return kExitOk;
}

}  // namespace

int run_check(const GateOptions& options) { return run_gate(options, false); }
int run_update(const GateOptions& options) { return run_gate(options, true); }

}  // namespace fprev::cli
