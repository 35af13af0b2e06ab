#include "distributed_mode.hpp"

#include <stdexcept>

#include "../exit_status.hpp"

namespace fprev::cli {

std::unique_ptr<DistributedSession> start_distributed_mode(const EngineOptions& engine) {
  const std::optional<MpiLaunch> launch = detect_mpi_launch(engine.mpi);
  if (!launch) return nullptr;
  try {
    return std::make_unique<DistributedSession>(*launch, engine.streams_per_rank);
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
