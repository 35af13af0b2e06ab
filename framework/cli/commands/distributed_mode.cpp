#include "distributed_mode.hpp"

#include <cstdlib>
#include <stdexcept>

#include "../exit_status.hpp"
#include "../standard_output.hpp"
#include "../termination.hpp"

namespace fprev::cli {

namespace {

// Open MPI 4.1's `mpirun --enable-recovery` (OMPI_MCA_orte_enable_recovery) ends the job with exit
// status 0 whatever its ranks return, rank 0 killed included (measured with Open MPI 4.1.4): a
// gate that failed would read as green.
void refuse_launchers_that_end_green(const MpiLaunch& launch) {
  const char* recovery = std::getenv("OMPI_MCA_orte_enable_recovery");
  if (launch.implementation != "openmpi" || recovery == nullptr) return;
  const std::string value = recovery;
  if (value == "0" || value == "false" || value == "no") return;
  throw UsageError("mpirun --enable-recovery (OMPI_MCA_orte_enable_recovery=" + value +
                   ") makes Open MPI's mpirun end with exit status 0 even when a rank, rank 0 included, "
                   "was killed: a failed run would read as passed. Start the job without it; "
                   "`mpirun --mca orte_abort_on_non_zero_status 0` lets rank 0 go on after a lost rank "
                   "and report it (docs/distributed.md)");
}

}  // namespace

std::unique_ptr<DistributedSession> start_distributed_mode(const EngineOptions& engine) {
  const std::optional<MpiLaunch> launch = detect_mpi_launch(engine.mpi);
  if (!launch) return nullptr;
  refuse_launchers_that_end_green(*launch);
  try {
    // Before MPI starts: what the MPI library prints on standard output goes to standard error,
    // never into the report (standard_output.hpp).
    reserve_standard_output_for_the_tool();
    auto session = std::make_unique<DistributedSession>(*launch, engine.streams_per_rank, engine.rank_timeout);
    if (!session->serving_rank())
      set_termination_note("fprev-golden (rank 0 of " + std::to_string(session->ranks()) +
                           "): ended from outside before the run finished, without a report; an MPI "
                           "launcher ends every rank this way when one rank of the job is lost (killed "
                           "or crashed). The run failed. To get rank 0's report naming the lost rank, let "
                           "the job go on: mpirun --mca orte_abort_on_non_zero_status 0 (Open MPI; "
                           "docs/distributed.md, A lost rank)");
    return session;
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("distributed mode (started by ") +
                     (launch->implementation == "openmpi" ? "Open MPI" : "MPICH") + "'s launcher): " + e.what());
  }
}

std::size_t requested_streams(const EngineOptions& engine) {
  if (engine.streams != 0) return engine.streams;
  return distributed_streams();
}

void apply_distributed_options(RevealOptions& reveal) {
  if (const DistributedSession* session = active_distributed_session())
    reveal.ranks = static_cast<std::size_t>(session->ranks());
}

}  // namespace fprev::cli
