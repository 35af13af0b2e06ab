// fprev-golden list: the expanded cases of the suites; --cmake-tests EXE prints CTest add_test()
// calls (used by fprev_add_reproducibility_suites at ctest time).
#include <iostream>

#include "commands.hpp"
#include "fprev/json.hpp"
#include "fprev/runner.hpp"
#include "selection.hpp"

namespace fprev::cli {
namespace {

std::string bracket(const std::string& text) { return "[==[" + text + "]==]"; }

void print_cmake_tests(const Selection& selection, const std::string& executable, bool strict) {
  for (const SelectedCase& sc : selection.cases) {
    const std::string name = test_name(*sc.suite, *sc.c);
    std::cout << "add_test(" << bracket(name) << " " << bracket(executable) << " check";
    for (const auto& path : selection.suite_paths)
      std::cout << " --suites " << bracket(std::filesystem::absolute(path).string());
    std::cout << " --golden " << bracket(std::filesystem::absolute(selection.golden_root).string())
              << " --suite " << bracket(sc.suite->name) << " --backend "
              << bracket(sc.c->backend_instance) << " --case " << bracket(sc.c->id) << " --ctest"
              << (strict ? " --strict" : "") << ")\n";
    std::cout << "set_tests_properties(" << bracket(name) << " PROPERTIES LABELS "
              << bracket("reproducibility;" + sc.suite->name + ";" + sc.c->backend_instance)
              << " SKIP_RETURN_CODE 77)\n";
  }
}

}  // namespace

int run_list(int argc, char** argv) {
  Args args(argc, argv, 2, {"json", "strict"});
  args.reject_unknown({"suites", "golden", "suite", "backend", "case", "json", "cmake-tests", "strict"});
  const Selection selection = select_cases(args);
  if (const auto executable = args.get("cmake-tests")) {
    print_cmake_tests(selection, *executable, args.flag("strict"));
    return kExitOk;
  }
  if (args.flag("json")) {
    Json cases = Json::array();
    for (const SelectedCase& sc : selection.cases) {
      Json params = Json::object();
      for (const auto& [key, value] : sc.c->params) params.set(key, value);
      cases.push_back(Json::object()
                          .set("suite", sc.suite->name)
                          .set("backend", sc.c->backend_instance)
                          .set("case", sc.c->id)
                          .set("test", test_name(*sc.suite, *sc.c))
                          .set("params", std::move(params))
                          .set("file", sc.c->file)
                          .set("line", sc.c->line));
    }
    std::cout << Json::object().set("cases", std::move(cases)).dump(2) << "\n";
    return kExitOk;
  }
  for (const SelectedCase& sc : selection.cases) {
    std::cout << sc.suite->name << "  " << sc.c->backend_instance << "  " << sc.c->id;
    bool first = true;
    for (const auto& [key, value] : sc.c->params) {
      std::cout << (first ? "  (" : ", ") << key << "=" << value;
      first = false;
    }
    std::cout << (first ? "" : ")") << "\n";
  }
  std::cerr << selection.cases.size() << " cases in " << selection.suites.size() << " suites\n";
  return kExitOk;
}

}  // namespace fprev::cli
