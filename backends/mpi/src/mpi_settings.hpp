// The instance settings of the mpi backend and what they decide: the library's algorithm variables
// ("tuning") and the platform key.
//
//   library            openmpi | mpich | a path to an MPI launcher (mpirun, mpiexec)
//   tuning             the library's own algorithm variables, "NAME=VALUE NAME=VALUE":
//                      OMPI_MCA_* for Open MPI (e.g. OMPI_MCA_coll_tuned_allreduce_algorithm=4),
//                      MPIR_CVAR_* for MPICH (e.g. MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=smp)
//   oversubscribe      more ranks than cores (Open MPI's --oversubscribe; MPICH always allows it)
//   allow_run_as_root  Open MPI's --allow-run-as-root when fprev-golden runs as root
//   launcher_args      further launcher arguments, space separated
//   timeout            seconds for the job to start and for each call before it is killed
//   reuse_jobs         a running job serves every case of its launch (job_pool.hpp); false: a
//                      job per case
//   probe              the probe program to run (default: the one built for the family)
//   hostfile           the nodes to run on, a hostfile for the launcher (Open MPI --hostfile,
//                      MPICH -f)
//   hosts              or the nodes as a list, "a,b,c" (Open MPI --host, MPICH -hosts)
//   ranks_per_node     ranks on each node, consecutive ranks together (required with the above)
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "fprev/backend.hpp"

namespace fprev::mpi {

enum class Family : std::uint8_t { openmpi, mpich };
std::string family_key(Family family);   // "openmpi", "mpich"
std::string family_name(Family family);  // "Open MPI", "MPICH"

struct TuningVariable {
  std::string name;   // environment variable, e.g. OMPI_MCA_coll_tuned_allreduce_algorithm
  std::string value;
  bool implied = false;  // added by the backend (Open MPI's coll_tuned_use_dynamic_rules=1)
  bool operator==(const TuningVariable&) const = default;
};

struct Settings {
  std::string library;
  std::vector<TuningVariable> tuning;  // as given, sorted by name
  bool oversubscribe = true;
  bool allow_run_as_root = true;
  std::vector<std::string> launcher_args;
  std::chrono::seconds timeout{60};
  bool reuse_jobs = true;
  // MPICH ranks give their cores up while they wait in a collective (probe/idle_yield.hpp):
  // "auto" where a job has more ranks than this machine has cores and runs on it alone, "true",
  // "false".
  std::string idle_yield = "auto";
  std::string probe;  // empty: the default for the family
  // Where the ranks run (node_layout.hpp). All unset: on this machine, as the launcher places
  // them. At most one of hostfile and hosts is set; ranks_per_node is set whenever one of them is.
  std::string hostfile;            // as given (relative to the current directory)
  std::vector<std::string> hosts;  // as given, in order, no duplicates
  int ranks_per_node = 0;          // 0: not set

  bool names_nodes() const { return !hostfile.empty() || !hosts.empty(); }
  bool places_ranks() const { return names_nodes() || ranks_per_node > 0; }
};

std::vector<ParamSpec> instance_param_specs();

// Whether a job of `ranks` ranks runs its probes with --idle-yield on: MPICH only (Open MPI yields
// by itself when oversubscribed), as `settings.idle_yield` says; "auto" when the ranks run on this
// machine only and outnumber its `cores`.
bool idle_yield_wanted(Family family, const Settings& settings, int ranks, std::size_t cores);

// Interprets resolved settings (syntax only: the family is not known yet, and the hostfile is read
// when the instance opens). Throws ConfigError.
Settings parse_settings(const Params& resolved);

// Checks the tuning variables against the family (Open MPI takes OMPI_MCA_*, MPICH MPIR_CVAR_*)
// and adds what they imply: Open MPI ignores a forced coll/tuned algorithm unless
// coll_tuned_use_dynamic_rules is set, so that is added (marked implied). Throws ConfigError.
std::vector<TuningVariable> normalize_tuning(Family family, std::vector<TuningVariable> tuning);

// The MPI_T control variable behind an environment variable: Open MPI's are the MCA names
// (coll_tuned_allreduce_algorithm), MPICH's keep the prefix (MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM).
std::string cvar_name(Family family, const std::string& variable);

// The control variables that decide the reduction order of our three collectives (reported in
// the identity as the effective settings, whether or not they are tuned).
std::vector<std::string> order_cvars(Family family);

// What decides the order: the family, where the ranks run (`layout`, "2x4": nodes x ranks per
// node, only for an instance that places its ranks) and the tuning, e.g. "openmpi", "mpich",
// "openmpi+coll_tuned_allreduce_algorithm.4", "openmpi+2x4". Never the version (metadata: an
// upgrade is compared with the old golden) nor the rank count (a case parameter).
std::string platform_key(Family family, const std::vector<TuningVariable>& tuning,
                         const std::string& layout = "");

// "NAME=VALUE NAME=VALUE" (sorted), as recorded in the identity.
std::string tuning_text(const std::vector<TuningVariable>& tuning);

}  // namespace fprev::mpi
