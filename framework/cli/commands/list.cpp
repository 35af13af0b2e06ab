// fprev-golden list: the expanded cases of the suites; --cmake-tests EXE prints CTest add_test()
// calls (used by fprev_add_reproducibility_suites at ctest time).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>

#include "../accept_command.hpp"
#include "fprev/runner.hpp"
#include "../commands.hpp"
#include "../report/case_text.hpp"
#include "../report/json.hpp"
#include "../selection.hpp"

namespace fprev::cli {
namespace {

std::string bracket(const std::string& text) { return "[==[" + text + "]==]"; }

// The processors a case keeps busy: its processes (an MPI case's ranks) or its library's threads.
std::size_t case_processes(const Suite& suite, const SuiteCase& c) {
  std::size_t processes = 1;
  for (const BackendInstanceSpec& spec : suite.backends)
    if (spec.name == c.backend_instance)
      if (const Backend* backend = builtin_backends().find(spec.use)) processes = backend->processes(c.params);
  return std::max(processes, case_threads(builtin_backends(), suite, c));
}

// Literal text as a CMake regular expression (cmsys::RegularExpression syntax).
std::string regex_literal(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("^$.[]|()*+?\\").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// A case's labels: reproducibility (unless the case is opt-in), the suite, the backend instance
// and the case's own. An opt-in case (labelled long) does not carry the label reproducibility (ctest's -L is
// a regular expression, so no label of it may contain the word): `ctest -L reproducibility` leaves
// it out and `ctest -L long` runs it. A test that fails for an invalid suite always carries it.
std::string case_labels(const Suite& suite, const SuiteCase& c, bool invalid_suite) {
  const bool opt_in = !opt_in_labels_of(c).empty();
  std::string labels = (opt_in && !invalid_suite ? "" : "reproducibility;") + suite.name + ";" + c.backend_instance;
  for (const std::string& label : c.labels) labels += ";" + label;
  return labels;
}

// A suite file that does not load must not empty the filtered runs that would have selected its
// cases (`ctest -L <suite>`, `ctest -L <backend>`, `ctest -R <case>` would find no test and pass).
// It stands in as failing tests: one for the file, labelled with everything that could be read of
// it (reproducibility, the suite's name, its backend instances, its cases' labels), one for each
// case that could still be read, under its own name and labels, and one for each backend instance
// none of whose cases could be read. Each runs `list` on the suites, which
// fails showing every problem (file:line:col and the allowed values).
void print_invalid_suite_tests(const Selection& selection, const std::string& executable,
                               const std::string& environment, std::set<std::string>& names) {
  std::string command = bracket(executable) + " list";
  for (const auto& argument : selection_arguments(selection, true)) command += " " + bracket(argument);
  const auto print_test = [&](const std::string& name, const std::string& labels) {
    std::cout << "add_test(" << bracket(name) << " " << command << ")\n"
              << "set_tests_properties(" << bracket(name) << " PROPERTIES LABELS " << bracket(labels)
              << environment << ")\n";
  };
  for (const InvalidSuiteFile& invalid : selection.invalid) {
    const Suite& suite = invalid.readable;
    if (!matches_any(selection.suite_patterns, suite.name)) continue;
    std::set<std::string> labels{suite.name};
    for (const BackendInstanceSpec& instance : suite.backends) labels.insert(instance.name);
    for (const SuiteCase& c : suite.cases) labels.insert(c.labels.begin(), c.labels.end());
    std::string joined = "reproducibility";
    for (const std::string& label : labels) joined += ";" + label;
    std::string name = "reproducibility/" + suite.name + "/(invalid suite file)";
    for (int n = 2; !names.insert(name).second; ++n)
      name = "reproducibility/" + suite.name + "/(invalid suite file " + std::to_string(n) + ")";
    print_test(name, joined);
    for (const SuiteCase& c : suite.cases)
      if (names.insert(test_name(suite, c)).second) print_test(test_name(suite, c), case_labels(suite, c, true));
    // An instance none of whose cases could be read (its backend is unknown: a module not found)
    // stands in under its own name, for `ctest -R <instance>`.
    for (const BackendInstanceSpec& instance : suite.backends) {
      const bool has_case = std::any_of(suite.cases.begin(), suite.cases.end(),
                                        [&](const SuiteCase& c) { return c.backend_instance == instance.name; });
      const std::string instance_test = "reproducibility/" + suite.name + "/" + instance.name + "/(invalid suite file)";
      if (!has_case && names.insert(instance_test).second)
        print_test(instance_test, "reproducibility;" + suite.name + ";" + instance.name);
    }
  }
}

// The --suites/--golden arguments of a case's test: the selection's (absolute); where some suite
// file does not load, the case's own suite file instead, so that the cases of the valid suites
// still run (the invalid file fails tests of its own).
std::vector<std::string> case_arguments(const Selection& selection, const Suite& suite) {
  if (selection.invalid.empty()) return selection_arguments(selection, true);
  return {"--suites", std::filesystem::absolute(suite.file).lexically_normal().string(), "--golden",
          std::filesystem::absolute(selection.golden_root).lexically_normal().string()};
}

// One test per case. FAIL_REGULAR_EXPRESSION lists the phrases of failure_reason(): the exit
// status already fails the test, but CTest 3.25 fills JUnit's <failure message> only from the
// expression that matched, so the report names the kind of failure ("the summation tree changed").
// The tests run with the FPREV_BACKEND_PATH the discovery ran with: the backend modules the suites
// need (fprev_add_reproducibility_suites(... BACKEND_MODULES) puts their directories on it).
void print_cmake_tests(const Selection& selection, const std::string& executable, bool strict) {
  std::string reasons;
  for (const auto& reason : all_failure_reasons())
    reasons += (reasons.empty() ? "" : ";") + regex_literal(reason);
  std::string environment;
  if (const char* path = std::getenv("FPREV_BACKEND_PATH"); path != nullptr && *path != '\0')
    environment = " ENVIRONMENT " + bracket(std::string("FPREV_BACKEND_PATH=") + path);
  std::set<std::string> names;
  for (const SelectedCase& sc : selection.cases) {
    const std::string name = test_name(*sc.suite, *sc.c);
    names.insert(name);
    std::cout << "add_test(" << bracket(name) << " " << bracket(executable) << " check";
    for (const auto& argument : case_arguments(selection, *sc.suite)) std::cout << " " << bracket(argument);
    // An opt-in case (long) runs only when named: its test names its labels.
    std::string opt_in;
    for (const std::string& label : opt_in_labels_of(*sc.c)) opt_in += " --label " + bracket(label);
    std::cout << " --suite " << bracket(sc.suite->name) << " --backend "
              << bracket(sc.c->backend_instance) << " --case " << bracket(sc.c->id) << opt_in << " --ctest"
              << (strict ? " --strict" : "") << ")\n";
    // A case with a time budget stops itself and says so; CTest's own timeout only backs it up.
    std::string timeout;
    if (sc.c->max_seconds)
      timeout = " TIMEOUT " + std::to_string(static_cast<long>(*sc.c->max_seconds * 1.25) + 120);
    // A case that keeps several processes busy (MPI ranks) says so, and CTest's -j counts them.
    std::string processors;
    if (const std::size_t count = case_processes(*sc.suite, *sc.c); count > 1)
      processors = " PROCESSORS " + std::to_string(count);
    std::cout << "set_tests_properties(" << bracket(name) << " PROPERTIES LABELS "
              << bracket(case_labels(*sc.suite, *sc.c, false)) << timeout << processors
              << " SKIP_RETURN_CODE 77 FAIL_REGULAR_EXPRESSION " << bracket(reasons) << environment << ")\n";
  }
  print_invalid_suite_tests(selection, executable, environment, names);
}

// A suite without a single golden (a new project's first ctest) would pass as "100% tests passed"
// with every case skipped, the command that records them visible only under ctest -V. Instead the
// discovery says so on ctest's own output, and one test per such suite,
// reproducibility/<suite>/goldens-missing, fails and prints the command. It runs `cmake -E echo`:
// the discovery script (FprevReproducibility.cmake) sets fprev_cmake_command to it.
void print_missing_goldens(const Selection& selection, const std::string& executable) {
  std::set<std::string> recorded;
  for (const GoldenLocation& g : list_goldens(selection.golden_root).goldens) recorded.insert(g.suite);
  std::set<std::string> said;
  const AcceptCommand accept(executable, selection_arguments(selection, true));
  for (const SelectedCase& sc : selection.cases) {
    const std::string& suite = sc.suite->name;
    if (recorded.contains(suite) || !said.insert(suite).second) continue;
    const std::string record = AcceptCommand::for_whole_suite(accept.for_case(*sc.suite, *sc.c));
    const std::string text = "fprev-golden: suite '" + suite + "' has no goldens in " +
                             std::filesystem::absolute(selection.golden_root).lexically_normal().string() +
                             ": its cases are skipped until you record them, with\n  " + record +
                             "\n  (or cmake --build <build folder> --target fprev-update: every suite), then review "
                             "them (git diff) and commit them";
    const std::string name = "reproducibility/" + suite + "/goldens-missing";
    std::cout << "message(" << bracket(text) << ")\n"
              << "if(DEFINED fprev_cmake_command)\n"
              << "  add_test(" << bracket(name) << " ${fprev_cmake_command} -E echo " << bracket(text) << ")\n"
              << "  set_tests_properties(" << bracket(name) << " PROPERTIES LABELS "
              << bracket("reproducibility;" + suite) << " FAIL_REGULAR_EXPRESSION " << bracket("has no goldens")
              << ")\nendif()\n";
  }
}

void print_json(const Selection& selection) {
  Json cases = Json::array();
  for (const SelectedCase& sc : selection.cases) {
    Json entry = Json::object();
    entry["test"] = test_name(*sc.suite, *sc.c);
    entry["suite"] = sc.suite->name;
    entry["backend"] = sc.c->backend_instance;
    entry["case"] = sc.c->id;
    entry["params"] = params_to_json(sc.c->params);
    entry["file"] = sc.c->file;
    entry["line"] = sc.c->line;
    entry["labels"] = sc.c->labels;
    entry["max_seconds"] = sc.c->max_seconds ? Json(*sc.c->max_seconds) : Json();
    Json invariant = Json::object();
    for (const InvarianceRequest& request : sc.c->invariant) invariant[request.parameter] = request.values;
    entry["invariant"] = std::move(invariant);
    entry["call_sites"] = sc.c->call_sites;
    cases.push_back(std::move(entry));
  }
  Json document = json_document("list");
  document["cases"] = std::move(cases);
  write_json(std::cout, document);
}

void print_text(const Selection& selection) {
  for (const SelectedCase& sc : selection.cases) {
    std::cout << sc.suite->name << "  " << sc.c->backend_instance << "  " << sc.c->id;
    bool first = true;
    for (const auto& [key, value] : sc.c->params) {
      std::cout << (first ? "  (" : ", ") << key << "=" << value;
      first = false;
    }
    std::cout << (first ? "" : ")");
    // What else the entry asks for: a reader of the list sees every contract a case gates.
    for (const InvarianceRequest& request : sc.c->invariant) {
      std::cout << "  invariant " << request.parameter << "=";
      for (std::size_t k = 0; k < request.values.size(); ++k) std::cout << (k ? "," : "") << request.values[k];
    }
    if (!sc.c->labels.empty()) {
      std::cout << "  labels ";
      for (std::size_t k = 0; k < sc.c->labels.size(); ++k) std::cout << (k ? "," : "") << sc.c->labels[k];
    }
    if (sc.c->max_seconds) std::cout << "  max_seconds " << *sc.c->max_seconds;
    if (!sc.c->call_sites.empty())
      std::cout << "  " << sc.c->call_sites.size() << (sc.c->call_sites.size() == 1 ? " call site" : " call sites");
    std::cout << "\n";
  }
  // The suites the selected cases come from, not every suite read: "--suite blas-cpu" lists one.
  std::set<const Suite*> suites;
  for (const SelectedCase& sc : selection.cases) suites.insert(sc.suite);
  std::cerr << selection.cases.size() << (selection.cases.size() == 1 ? " case in " : " cases in ") << suites.size()
            << (suites.size() == 1 ? " suite\n" : " suites\n");
}

}  // namespace

int run_list(const ListOptions& options) {
  // The CTest discovery goes on past invalid suite files: they become failing tests.
  const Selection selection = select_cases(options.selection, options.cmake_tests.has_value());
  if (options.cmake_tests) {
    print_cmake_tests(selection, *options.cmake_tests, options.strict);
    print_missing_goldens(selection, *options.cmake_tests);
  }
  else if (options.json) print_json(selection);
  else print_text(selection);
  return kExitOk;
}

}  // namespace fprev::cli
