// Finding the MPI launcher and the probe program, and the command line and environment a job runs
// with.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "mpi_settings.hpp"

namespace fprev::mpi {

struct Launcher {
  Family family = Family::openmpi;
  std::string path;          // absolute
  std::string version_line;  // the first line of its --version, e.g. "mpirun (Open MPI) 4.1.4"
};

// The family a launcher's --version output names, if any: "Open MPI"/"OpenRTE" or "HYDRA"/"MPICH".
std::optional<Family> family_from_version(const std::string& version_output);

// Resolves the `library` setting:
//   openmpi  mpirun.openmpi, mpiexec.openmpi in PATH, then mpirun, mpiexec if --version says
//            Open MPI;
//   mpich    mpiexec.mpich, mpirun.mpich, mpiexec.hydra, then mpiexec, mpirun if --version says
//            MPICH (hydra);
//   a path   that launcher; its --version decides the family.
// Throws BackendUnavailable when a named MPI is not installed (a skip that says why) and
// ConfigError when an explicitly given launcher cannot be used (an error: never green when
// nothing was tested).
Launcher find_launcher(const std::string& library, std::chrono::seconds timeout);

// The probe program this build made for `family`: <directory of the running program>/../libexec/
// fprev-golden/ when installed, else the build tree. Throws BackendUnavailable naming what to
// install when it was not built.
std::string default_probe(Family family);

struct LaunchEnvironment {
  std::vector<std::string> variables;  // "NAME=value", complete
  std::vector<std::string> ignored;    // names of inherited variables left out
};

// `inherited` without the variables that would change the algorithm behind the platform key's
// back (OMPI_MCA_coll_*, MPIR_CVAR_*), and with the tuning variables added.
LaunchEnvironment launch_environment(const std::vector<std::string>& inherited,
                                     const std::vector<TuningVariable>& tuning);
std::vector<std::string> current_environment();

// The launcher's arguments up to the program: the rank count, the options this machine needs,
// and where the ranks run when the settings say so:
//   Open MPI  --hostfile F | --host a:K,b:K, --map-by ppr:K:node, -x FPREV_MPI_TOKEN
//   MPICH     -f F | -hosts a,b, -ppn K
// (a relative hostfile made absolute), then the user's launcher_args.
std::vector<std::string> launcher_arguments(Family family, const Settings& settings, int ranks,
                                            bool running_as_root);

}  // namespace fprev::mpi
