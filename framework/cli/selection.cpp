#include "selection.hpp"

#include <cstdlib>

#include "exit_status.hpp"
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

Selection select_cases(const SelectionOptions& options) {
  Selection s;
  for (const auto& path : options.suite_paths) s.suite_paths.emplace_back(path);
  for (const auto& path : options.positional) s.suite_paths.emplace_back(path);
  s.suite_paths_given = !s.suite_paths.empty();
  if (!s.suite_paths_given) s.suite_paths.push_back(from_environment("FPREV_SUITES", "suites"));
  s.golden_given = options.golden.has_value();
  s.golden_root = s.golden_given ? std::filesystem::path(*options.golden)
                                 : from_environment("FPREV_GOLDEN_DIR", "golden");
  if (s.golden_given && std::filesystem::exists(s.golden_root) &&
      !std::filesystem::is_directory(s.golden_root))
    throw UsageError("--golden " + s.golden_root.string() + " is not a directory");
  for (const auto& path : s.suite_paths)
    if (!std::filesystem::exists(path))
      throw UsageError("no suite file or directory '" + path.string() +
                       "' (use --suites PATH, or run from the project root)");
  s.suites = load_suites(s.suite_paths, builtin_backends());
  for (const Suite& suite : s.suites) {
    if (!matches_any(options.suites, suite.name)) continue;
    for (const SuiteCase& c : suite.cases) {
      if (!matches_any(options.backends, c.backend_instance)) continue;
      if (!matches_any(options.cases, c.id)) continue;
      s.cases.push_back({&suite, &c});
    }
  }
  const bool filtered = !options.suites.empty() || !options.backends.empty() || !options.cases.empty();
  if (s.cases.empty() && filtered)
    throw UsageError("no case matches the filters (--suite, --backend, --case); see fprev-golden list");
  return s;
}

std::vector<std::string> selection_arguments(const Selection& s, bool absolute) {
  std::vector<std::string> arguments;
  if (absolute || s.suite_paths_given) {
    for (const auto& path : s.suite_paths) {
      arguments.emplace_back("--suites");
      arguments.push_back(absolute ? std::filesystem::absolute(path).lexically_normal().string()
                                   : path.string());
    }
  }
  if (absolute || s.golden_given) {
    arguments.emplace_back("--golden");
    arguments.push_back(absolute ? std::filesystem::absolute(s.golden_root).lexically_normal().string()
                                 : s.golden_root.string());
  }
  return arguments;
}

std::string test_name(const Suite& suite, const SuiteCase& c) {
  return "reproducibility/" + suite.name + "/" + c.backend_instance + "/" + c.id;
}

}  // namespace fprev::cli
