// The environment variables the command line reads (the footer of --help lists them), and the
// refusal of commands that write goldens in CI.
#pragma once

#include <optional>
#include <string>

namespace fprev::cli {

// Set, not empty and not "0", "false" or "no" (CI=true, FPREV_STRICT=1).
bool environment_flag(const char* name);
// The value when set and not empty.
std::optional<std::string> environment_value(const char* name);

// Throws UsageError when the environment variable CI is set and `force` is not: `action` says what
// was refused ("re-baseline goldens"), `advice` what to do instead.
void refuse_in_ci(bool force, const std::string& action, const std::string& advice);

}  // namespace fprev::cli
