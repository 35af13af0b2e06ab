// A gate stopped from outside (SIGTERM from `timeout` or a cancelled CI job, SIGINT, SIGHUP) takes
// every process it started with it, also those a target started and that left the worker's process
// group (SECURITY.md, "Containment"): the workers die by their parent-death signal, but what they
// started would not.
#pragma once

#include <string>

namespace fprev::cli {

// Call first in main, before any thread starts: blocks SIGTERM, SIGINT and SIGHUP in every thread
// and starts one that waits for them. On one, it kills every descendant of this process (the
// workers are child subreapers, so what their code started is below them), then ends the process
// by the same signal, as it would have ended without this.
void end_descendants_on_termination();

// A line the thread writes to standard error before it ends the process (empty: none). Distributed
// mode's rank 0 sets one: an MPI launcher ends every rank with SIGTERM when one rank of the job is
// lost, and the run must not end without a word.
void set_termination_note(std::string note);

}  // namespace fprev::cli
