// Environment variables that change which cases run or where their goldens are looked up, found
// and treated one way: each one set is named in the summary line of check and update (text, JSON,
// HTML, the CTest mode), and under CI (the variable CI set) a run refuses one that a selected suite
// does not accept (its key environment_overrides), before anything runs. They are:
//   FPREV_SUITES, FPREV_GOLDEN_DIR   where suites and goldens are read (when --suites / --golden
//                                    do not name them);
//   FPREV_<BACKEND>_<anything>       every variable of a backend the selected cases use: its
//                                    settings (FPREV_BLAS_LIBRARY, FPREV_BLAS_THREADS, ...) and
//                                    its own (FPREV_BLAS_CPUINFO: a simulated host). A setting
//                                    moves cases to another platform key, where they find no
//                                    golden, or makes them unavailable: green skips.
#pragma once

#include <string>
#include <vector>

#include "selection.hpp"

namespace fprev::cli {

struct EnvironmentOverride {
  std::string variable;  // FPREV_BLAS_KERNEL
  std::string value;     // Haswell
};

// The overrides in effect for the selection, sorted by name.
std::vector<EnvironmentOverride> environment_overrides(const Selection& selection);

// "FPREV_BLAS_KERNEL=Haswell, FPREV_GOLDEN_DIR=/x" ("" when there are none).
std::string describe_overrides(const std::vector<EnvironmentOverride>& overrides);

// The settings of each selected instance with the FPREV_<BACKEND>_<SETTING> overrides applied, checked
// as the suite's own are (types, choices, a relative path): a bad override is a configuration error
// (ConfigError, exit 2) before anything runs, not a failure of every case. Only instances of a
// backend that an override names are checked.
void check_overridden_settings(const Selection& selection, const std::vector<EnvironmentOverride>& overrides);

// Under CI: a UsageError naming each override some selected suite does not accept.
void refuse_unaccepted_overrides_in_ci(const Selection& selection,
                                       const std::vector<EnvironmentOverride>& overrides);

}  // namespace fprev::cli
