#include "environment_overrides.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "environment.hpp"
#include "exit_status.hpp"

extern char** environ;

namespace fprev::cli {
namespace {

std::string variable_prefix(const std::string& backend) {
  std::string prefix = "FPREV_" + backend + "_";
  for (char& c : prefix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return prefix;
}

// FPREV_<BACKEND>_ of each backend the selected cases use.
std::set<std::string> backend_prefixes(const Selection& selection) {
  std::set<std::string> prefixes;
  for (const SelectedCase& sc : selection.cases)
    if (const BackendInstanceSpec* instance = sc.suite->find_backend(sc.c->backend_instance))
      prefixes.insert(variable_prefix(instance->use));
  return prefixes;
}

// The suites the selected cases come from.
std::set<const Suite*> selected_suites(const Selection& selection) {
  std::set<const Suite*> suites;
  for (const SelectedCase& sc : selection.cases) suites.insert(sc.suite);
  return suites;
}

}  // namespace

std::vector<EnvironmentOverride> environment_overrides(const Selection& selection) {
  std::vector<EnvironmentOverride> overrides;
  if (!selection.suite_paths_given)
    if (auto value = environment_value("FPREV_SUITES")) overrides.push_back({"FPREV_SUITES", *value});
  if (!selection.golden_given)
    if (auto value = environment_value("FPREV_GOLDEN_DIR")) overrides.push_back({"FPREV_GOLDEN_DIR", *value});
  const std::set<std::string> prefixes = backend_prefixes(selection);
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    if (equals == nullptr || equals[1] == '\0') continue;  // an empty value overrides nothing
    const std::string name(*entry, static_cast<std::size_t>(equals - *entry));
    for (const std::string& prefix : prefixes)
      if (name.size() > prefix.size() && name.rfind(prefix, 0) == 0) {
        overrides.push_back({name, equals + 1});
        break;
      }
  }
  std::sort(overrides.begin(), overrides.end(),
            [](const EnvironmentOverride& a, const EnvironmentOverride& b) { return a.variable < b.variable; });
  return overrides;
}

std::string describe_overrides(const std::vector<EnvironmentOverride>& overrides) {
  std::string text;
  for (const EnvironmentOverride& o : overrides) text += (text.empty() ? "" : ", ") + o.variable + "=" + o.value;
  return text;
}

void check_overridden_settings(const Selection& selection, const std::vector<EnvironmentOverride>& overrides) {
  std::set<const BackendInstanceSpec*> checked;
  for (const SelectedCase& sc : selection.cases) {
    const BackendInstanceSpec* instance = sc.suite->find_backend(sc.c->backend_instance);
    if (instance == nullptr || !checked.insert(instance).second) continue;
    const std::string prefix = variable_prefix(instance->use);
    const bool overridden = std::any_of(overrides.begin(), overrides.end(),
                                        [&](const EnvironmentOverride& o) { return o.variable.rfind(prefix, 0) == 0; });
    if (!overridden) continue;
    if (const Backend* backend = builtin_backends().find(instance->use))
      resolve_params(backend->instance_params(), apply_environment_overrides(*backend, instance->settings),
                     "backend instance " + instance->name + " with the environment's " + prefix + "... overrides");
  }
}

void refuse_unaccepted_overrides_in_ci(const Selection& selection,
                                       const std::vector<EnvironmentOverride>& overrides) {
  if (overrides.empty() || !environment_flag("CI")) return;
  std::string refused;
  for (const EnvironmentOverride& o : overrides)
    for (const Suite* suite : selected_suites(selection)) {
      const auto& accepted = suite->environment_overrides;
      if (std::find(accepted.begin(), accepted.end(), o.variable) == accepted.end()) {
        refused += (refused.empty() ? "" : ", ") + o.variable + " (suite " + suite->name + ")";
        break;
      }
    }
  if (refused.empty()) return;
  throw UsageError("refusing environment overrides in CI (the environment variable CI is set): " + refused +
                   ". They change which cases run or where their goldens are looked up, so a CI job could "
                   "turn checks into skips. Unset them, pass the paths as --suites/--golden, or list the "
                   "variable under the suite's environment_overrides");
}

}  // namespace fprev::cli
