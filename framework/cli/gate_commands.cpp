// fprev-golden check (the gate) and update (re-baseline): run selected suite cases through the
// Runner and report.
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "case_report.hpp"
#include "commands.hpp"
#include "fprev/json.hpp"
#include "fprev/runner.hpp"
#include "selection.hpp"
#include "version.hpp"

namespace fprev::cli {
namespace {

constexpr int kExitSkip = 77;  // CTest's SKIP_RETURN_CODE for the --ctest mode

bool environment_flag(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return false;
  const std::string v = value;
  return !v.empty() && v != "0" && v != "false" && v != "no";
}

// Progress goes to a terminal only: CI logs and pipes stay quiet.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}
  void show(std::size_t done, std::size_t total, const std::string& name) {
    if (!enabled_) return;
    std::cerr << "\r\033[K[" << done + 1 << "/" << total << "] " << name << std::flush;
  }
  void clear() {
    if (enabled_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  bool enabled_;
};

struct GateOptions {
  bool json = false;
  bool strict = false;
  bool ctest = false;
};

int run_gate(int argc, char** argv, bool update) {
  Args args(argc, argv, 2, {"json", "strict", "ctest", "force", "quiet"});
  args.reject_unknown({"suites", "golden", "suite", "backend", "case", "json", "strict", "ctest",
                       "force", "quiet", "algorithm", "seed"});
  GateOptions gate;
  gate.json = args.flag("json");
  gate.strict = args.flag("strict") || environment_flag("FPREV_STRICT");
  gate.ctest = args.flag("ctest");
  if (update && environment_flag("CI") && !args.flag("force")) {
    std::cerr << "fprev-golden update: refusing to re-baseline goldens in CI (the environment "
                 "variable CI is set). Review the change and run update on a developer machine, "
                 "or pass --force.\n";
    return kExitUsage;
  }
  const Selection selection = select_cases(args);
  if (gate.ctest && selection.cases.size() != 1)
    throw UsageError("--ctest runs exactly one case (use --suite, --backend and --case)");

  RunnerOptions options;
  options.golden_root = selection.golden_root;
  options.strict = gate.strict;
  options.tool_version = kToolVersion;
  if (auto algorithm = args.get("algorithm")) {
    const auto parsed = parse_algorithm(*algorithm);
    if (!parsed) throw UsageError("--algorithm must be one of: fprev, basic, naive");
    options.reveal.algorithm = *parsed;
  }
  Runner runner(builtin_backends(), options);
  Progress progress(!gate.json && !gate.ctest && !args.flag("quiet") && isatty(2) != 0 &&
                    !environment_flag("CI"));

  std::vector<CaseResult> results;
  for (std::size_t k = 0; k < selection.cases.size(); ++k) {
    const SelectedCase& sc = selection.cases[k];
    progress.show(k, selection.cases.size(), test_name(*sc.suite, *sc.c));
    results.push_back(update ? runner.update(*sc.suite, *sc.c) : runner.check(*sc.suite, *sc.c));
    progress.clear();
    if (!gate.json) print_case_details(std::cout, results.back(), gate.strict);
  }
  const auto obsolete = obsolete_goldens(selection.golden_root, selection.suites);

  bool failed = false, skipped = false;
  for (const auto& r : results) {
    failed = failed || is_failure(r.status, gate.strict);
    skipped = skipped || is_skip(r.status, gate.strict);
  }
  if (gate.json) {
    Json cases = Json::array();
    for (const auto& r : results) cases.push_back(case_to_json(r, gate.strict));
    Json stale = Json::array();
    for (const auto& g : obsolete) stale.push_back(g.path.string());
    std::cout << Json::object()
                     .set("command", update ? "update" : "check")
                     .set("strict", gate.strict)
                     .set("summary", closing_line(results, gate.strict))
                     .set("cases", std::move(cases))
                     .set("obsolete_goldens", std::move(stale))
                     .dump(2)
              << "\n";
  } else if (gate.ctest) {
    const CaseResult& r = results.front();
    if (r.status == CaseStatus::passed)
      std::cout << "passed: " << r.target_description << " matches " << r.golden_path.string()
                << "\n";
  } else {
    std::cout << "\n";
    print_summary_table(std::cout, results);
    std::cout << "\n";
    print_obsolete(std::cout, obsolete);
    std::cout << closing_line(results, gate.strict) << "\n";
  }
  if (failed) return kExitFailure;
  if (gate.ctest && skipped) return kExitSkip;
  return kExitOk;
}

}  // namespace

int run_check(int argc, char** argv) { return run_gate(argc, argv, false); }
int run_update(int argc, char** argv) { return run_gate(argc, argv, true); }

}  // namespace fprev::cli
