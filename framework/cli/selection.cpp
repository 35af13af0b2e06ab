#include "selection.hpp"

#include <cstdlib>

#include "fprev/runner.hpp"

namespace fprev::cli {
namespace {

std::filesystem::path from_environment(const char* variable, const char* fallback) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? value : fallback;
}

bool matches_any(const std::vector<std::string>& patterns, const std::string& text) {
  if (patterns.empty()) return true;
  for (const auto& p : patterns)
    if (glob_match(p, text)) return true;
  return false;
}

}  // namespace

Selection select_cases(Args& args) {
  Selection s;
  for (const auto& path : args.get_all("suites")) s.suite_paths.emplace_back(path);
  if (s.suite_paths.empty()) s.suite_paths.push_back(from_environment("FPREV_SUITES", "suites"));
  const auto golden = args.get("golden");
  s.golden_root = golden ? std::filesystem::path(*golden) : from_environment("FPREV_GOLDEN_DIR", "golden");
  const auto suite_filter = args.get_all("suite");
  const auto backend_filter = args.get_all("backend");
  const auto case_filter = args.get_all("case");
  for (const auto& path : s.suite_paths)
    if (!std::filesystem::exists(path))
      throw UsageError("no suite file or directory '" + path.string() +
                       "' (use --suites PATH, or run from the project root)");
  s.suites = load_suites(s.suite_paths, builtin_backends());
  for (const Suite& suite : s.suites) {
    if (!matches_any(suite_filter, suite.name)) continue;
    for (const SuiteCase& c : suite.cases) {
      if (!matches_any(backend_filter, c.backend_instance)) continue;
      if (!matches_any(case_filter, c.id)) continue;
      s.cases.push_back({&suite, &c});
    }
  }
  if (s.cases.empty() && (!suite_filter.empty() || !backend_filter.empty() || !case_filter.empty()))
    throw UsageError("no case matches the filters (--suite, --backend, --case); see fprev-golden list");
  return s;
}

std::string test_name(const Suite& suite, const SuiteCase& c) {
  return "reproducibility/" + suite.name + "/" + c.backend_instance + "/" + c.id;
}

}  // namespace fprev::cli
