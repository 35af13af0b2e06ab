// The sub-commands of fprev-golden. Each returns the process exit status (exit_status.hpp) and
// throws UsageError, fprev::ConfigError or fprev::SuiteError for usage and configuration errors,
// which main's handler reports.
#pragma once

#include "exit_status.hpp"
#include "options.hpp"

namespace fprev::cli {

int run_list(const ListOptions& options);
int run_check(const GateOptions& options);
int run_update(const GateOptions& options);
int run_diff(const DiffCommandOptions& options);
int run_show(const ShowOptions& options);
int run_reveal(const RevealCommandOptions& options);
int run_env(const EnvOptions& options);
// Runs a program under the BLAS interposer and writes a suite of the calls it made.
int run_trace(const TraceOptions& options);
// The pending results check keeps: review them one by one, accept or reject them by filters.
int run_review(const ReviewOptions& options);
int run_accept(const ResolveOptions& options);
int run_reject(const ResolveOptions& options);

}  // namespace fprev::cli
