#include "selection.hpp"

#include <algorithm>
#include <cstdlib>

#include "exit_status.hpp"
#include "fprev/runner.hpp"

namespace fprev::cli {
namespace {

std::filesystem::path from_environment(const char* variable, const char* fallback) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? value : fallback;
}

}  // namespace

bool matches_any(const std::vector<std::string>& patterns, const std::string& text) {
  if (patterns.empty()) return true;
  for (const auto& p : patterns)
    if (glob_match(p, text)) return true;
  return false;
}

std::filesystem::path resolve_golden_root(const std::optional<std::string>& option) {
  const std::filesystem::path root = option ? std::filesystem::path(*option) : from_environment("FPREV_GOLDEN_DIR", "golden");
  if (option && std::filesystem::exists(root) && !std::filesystem::is_directory(root))
    throw UsageError("--golden " + root.string() + " is not a directory");
  return root;
}

std::vector<GoldenLocation> obsolete_in_selection(const Selection& s) {
  std::vector<GoldenLocation> selected;
  for (GoldenLocation& g : obsolete_goldens(s.golden_root, s.suites))
    if (matches_any(s.suite_patterns, g.suite) && matches_any(s.backend_patterns, g.backend) &&
        matches_any(s.case_patterns, g.case_id))
      selected.push_back(std::move(g));
  return selected;
}

namespace {

bool carries_any(const SuiteCase& c, const std::vector<std::string>& labels) {
  for (const std::string& label : labels)
    if (std::find(c.labels.begin(), c.labels.end(), label) != c.labels.end()) return true;
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
  s.golden_root = resolve_golden_root(options.golden);
  s.suite_patterns = options.suites;
  s.backend_patterns = options.backends;
  s.case_patterns = options.cases;
  for (const auto& path : s.suite_paths)
    if (!std::filesystem::exists(path))
      throw UsageError("no suite file or directory '" + path.string() +
                       "' (use --suites PATH, or run from the project root)");
  s.suites = load_suites(s.suite_paths, builtin_backends(), options.max_cases);
  for (const Suite& suite : s.suites) {
    if (!matches_any(options.suites, suite.name)) continue;
    for (const SuiteCase& c : suite.cases) {
      if (!matches_any(options.backends, c.backend_instance)) continue;
      if (!matches_any(options.cases, c.id)) continue;
      if (carries_any(c, options.excluded_labels)) {
        ++s.excluded_by_label;
        continue;
      }
      s.cases.push_back({&suite, &c});
    }
  }
  const bool filtered = !options.suites.empty() || !options.backends.empty() || !options.cases.empty() ||
                        !options.excluded_labels.empty();
  if (s.cases.empty() && filtered)
    throw UsageError("no case matches the filters (--suite, --backend, --case, --exclude-label); see "
                     "fprev-golden list");
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
