// Standard output for the tool's own text only. Under an MPI launcher every rank's standard output
// is the launcher's, the one a user redirects into a --json report; and MPI libraries print there
// (MPICH's UCX logs unmatched messages on stdout at MPI_Finalize, other transports warn at
// MPI_Init). A report with a library's line in it is no longer JSON. So distributed mode, before
// MPI starts, keeps descriptor 1 for the tool: it moves the tool's standard output to a private
// copy of the descriptor and points descriptor 1 at standard error, where whatever else this
// process writes there (a library, C stdio) lands, visible and out of the report.
#pragma once

namespace fprev::cli {

// Idempotent. Throws std::runtime_error when a descriptor cannot be copied.
void reserve_standard_output_for_the_tool();

}  // namespace fprev::cli
