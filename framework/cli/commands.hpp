// Sub-commands of fprev-golden. Each returns the process exit status:
// 0 all good, 1 a tree differs or a target misbehaves, 2 usage or configuration error.
#pragma once

#include "args.hpp"

namespace fprev::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

int run_reveal(int argc, char** argv);
int run_list(int argc, char** argv);
int run_check(int argc, char** argv);
int run_update(int argc, char** argv);
int run_diff(int argc, char** argv);
int run_show(int argc, char** argv);
int run_env(int argc, char** argv);

}  // namespace fprev::cli
