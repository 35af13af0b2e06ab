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

std::string label_list(const std::vector<std::string>& labels) {
  std::string text;
  for (const std::string& label : labels) text += (text.empty() ? "" : ", ") + label;
  return text;
}

const std::vector<std::string>& opt_in_labels() {
  static const std::vector<std::string> labels{"long"};
  return labels;
}

std::vector<std::string> opt_in_labels_of(const SuiteCase& c) {
  std::vector<std::string> carried;
  for (const std::string& label : opt_in_labels())
    if (std::find(c.labels.begin(), c.labels.end(), label) != c.labels.end()) carried.push_back(label);
  return carried;
}

Selection select_cases(const SelectionOptions& options, bool keep_invalid) {
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
  s.excluded_labels = options.excluded_labels;
  if (options.leave_out_opt_in)
    for (const std::string& label : opt_in_labels())
      if (std::find(options.labels.begin(), options.labels.end(), label) == options.labels.end() &&
          std::find(s.excluded_labels.begin(), s.excluded_labels.end(), label) == s.excluded_labels.end())
        s.excluded_labels.push_back(label);
  for (const auto& path : s.suite_paths)
    if (!std::filesystem::exists(path))
      throw UsageError("no suite file or directory '" + path.string() +
                       "' (use --suites PATH, or run from the project root)");
  if (keep_invalid) {
    LoadedSuites loaded = load_suites_keeping_going(s.suite_paths, builtin_backends(), options.max_cases);
    s.suites = std::move(loaded.suites);
    s.invalid = std::move(loaded.invalid);
  } else {
    s.suites = load_suites(s.suite_paths, builtin_backends(), options.max_cases);
  }
  for (const Suite& suite : s.suites) {
    if (!matches_any(options.suites, suite.name)) continue;
    for (const SuiteCase& c : suite.cases) {
      if (!matches_any(options.backends, c.backend_instance)) continue;
      if (!matches_any(options.cases, c.id)) continue;
      if (!options.labels.empty() && !carries_any(c, options.labels)) continue;
      if (carries_any(c, s.excluded_labels)) {
        ++s.excluded_by_label;
        continue;
      }
      s.cases.push_back({&suite, &c});
    }
  }
  const bool filtered = !options.suites.empty() || !options.backends.empty() || !options.cases.empty() ||
                        !options.excluded_labels.empty() || !options.labels.empty();
  // Everything selected carries a left-out label (a long case named by --case): say how to run it.
  if (s.cases.empty() && s.excluded_by_label != 0 && s.invalid.empty())
    throw UsageError("no case to run: " +
                     (s.excluded_by_label == 1 ? std::string("the case selected carries")
                                               : "the " + std::to_string(s.excluded_by_label) + " cases selected carry") +
                     " a label of " + label_list(s.excluded_labels) + ", left out" +
                     (options.leave_out_opt_in ? " unless named (add --label long to run the long ones)" : "") +
                     "; see fprev-golden list");
  if (s.cases.empty() && filtered && s.invalid.empty())
    throw UsageError("no case matches the filters (--suite, --backend, --case, --label, --exclude-label); see "
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
