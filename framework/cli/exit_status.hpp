// The exit statuses of fprev-golden (documented in docs/cli.md's exit-status table) and the error
// that ends a sub-command with a usage error.
#pragma once

#include <stdexcept>

namespace fprev::cli {

inline constexpr int kExitOk = 0;
// A tree differs from its golden, a target misbehaves, a golden cannot be read or written, or
// (strict mode) a golden is missing.
inline constexpr int kExitFailure = 1;
// Usage or configuration error: a bad option, an invalid suite, an unknown backend parameter.
inline constexpr int kExitUsage = 2;
// Internal error (an unexpected exception: a bug in fprev-golden) or out of memory. Never 0 or 1,
// so a CI log tells a broken tool from a failing gate.
inline constexpr int kExitInternal = 3;
// `check --ctest`: the case was skipped (CTest's SKIP_RETURN_CODE).
inline constexpr int kExitSkip = 77;

// A usage error found by a sub-command after the command line parsed (e.g. filters that match no
// case). The top-level handler prints it and exits with kExitUsage.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace fprev::cli
