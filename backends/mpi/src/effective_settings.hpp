// What the launched library reports about itself (rank 0's greeting), read into the identity, and
// the check that the tuning really reached it: a misspelt or invalid variable is ignored by
// Open MPI and MPICH alike, and the tree of the default algorithm would then be filed under a key
// that names another one.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "mpi_settings.hpp"

namespace fprev::mpi {

// "4.1.4" from "Open MPI v4.1.4, package: ...", "4.0.2" from "MPICH Version: 4.0.2 ..."; "unknown"
// when the text has no version.
std::string library_version_number(Family family, const std::string& library_version);

// One line for reports: Open MPI's first line, and the collective components it was restricted to
// when that is not its default ("...; coll components basic,libnbc,self"); for MPICH its version
// and device ("MPICH 4.0.2, device ch4:ucx").
std::string library_configuration(Family family, const std::string& library_version,
                                  const std::map<std::string, std::string>& cvars);

// Throws ConfigError when
//   * the library is not of `family` (a probe built against another MPI),
//   * a tuning variable names no control variable of the library (misspelt: it would be ignored),
//   * Open MPI read a tuning value back as something else (an invalid enum value: it warns and
//     runs its default), or a numeric MPICH variable reads back different,
//   * an algorithm of our collectives is forced although the tuning does not say so (a
//     configuration file), which the platform key would not show. (Other differences of an
//     installation, such as Open MPI's coll component selection, are the installation's own
//     behaviour, like a release's defaults: they show in the identity and in a diff.)
// `cvars` are the control variables rank 0 reported (name -> value, enums as "4=ring").
void check_effective_settings(Family family, const std::vector<TuningVariable>& tuning,
                              const std::map<std::string, std::string>& cvars,
                              const std::string& library_version);

}  // namespace fprev::mpi
