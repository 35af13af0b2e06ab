// Distributed mode for check, update and reveal (fprev/distributed.hpp): started when this
// process is one of several ranks of an MPI job, or with --mpi. Every rank parses the same command
// line and gets here; the serving ranks then serve workers until rank 0 is done.
#pragma once

#include <memory>

#include "../options.hpp"
#include "fprev/distributed.hpp"
#include "fprev/reveal.hpp"

namespace fprev::cli {

// nullptr in a serial run. Throws UsageError when MPI cannot start.
std::unique_ptr<DistributedSession> start_distributed_mode(const EngineOptions& engine);

// The probe streams a case asks for: --streams, or ranks x --streams-per-rank in a distributed
// run (0, one per core, in a serial run without --streams).
std::size_t requested_streams(const EngineOptions& engine);

// The ranks the streams are spread over, for the cost estimate.
void apply_distributed_options(RevealOptions& reveal);

}  // namespace fprev::cli
