// CLI11 validators shared by the options of several sub-commands.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>

namespace fprev::cli {

// Digits only, at most 20 of them: CLI11 alone would read "-1" as 2^64 - 1.
inline const CLI::Validator& unsigned_integer() {
  static const CLI::Validator validator(
      [](const std::string& value) {
        const bool digits = !value.empty() && value.size() <= 20 &&
                            std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
        return digits ? std::string() : "'" + value + "' is not a non-negative integer";
      },
      "");  // no description: the options' type name already says UINT (else help shows UINT:UINT)
  return validator;
}

}  // namespace fprev::cli
