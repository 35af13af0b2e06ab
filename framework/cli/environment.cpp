#include "environment.hpp"

#include <cstdlib>

#include "exit_status.hpp"

namespace fprev::cli {

bool environment_flag(const char* name) {
  const std::optional<std::string> value = environment_value(name);
  return value && *value != "0" && *value != "false" && *value != "no";
}

std::optional<std::string> environment_value(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

void refuse_in_ci(bool force, const std::string& action, const std::string& advice) {
  if (force || !environment_flag("CI")) return;
  throw UsageError("refusing to " + action + " in CI (the environment variable CI is set). " + advice +
                   ", or pass --force.");
}

}  // namespace fprev::cli
