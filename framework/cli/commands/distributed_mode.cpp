#include "distributed_mode.hpp"

#include <stdexcept>

#include "../exit_status.hpp"
#include "../termination.hpp"

namespace fprev::cli {

std::unique_ptr<DistributedSession> start_distributed_mode(const EngineOptions& engine) {
  const std::optional<MpiLaunch> launch = detect_mpi_launch(engine.mpi);
  if (!launch) return nullptr;
  try {
    auto session = std::make_unique<DistributedSession>(*launch, engine.streams_per_rank);
    if (!session->serving_rank())
      set_termination_note("fprev-golden (rank 0 of " + std::to_string(session->ranks()) +
                           "): ended from outside before the run finished, without a report; an MPI "
                           "launcher ends every rank this way when one rank of the job is lost (killed "
                           "or crashed). The run failed.");
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
