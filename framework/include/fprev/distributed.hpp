// Distributed mode: one reveal or suite spread over the ranks of an MPI job
// (`mpirun -np N fprev-golden check|update|reveal ...`, or srun).
//
// Rank 0 runs the engine and writes every report, as a serial run would. Every rank, rank 0
// included, hosts supervised worker processes (fprev/worker.hpp): the worker protocol's messages
// travel to the other ranks as MPI messages, with the request's arrays beside them. The probes of
// a wave go to every rank's streams; a target that crashes stays inside its worker process, and
// its fault names the rank and host. Trees, goldens, probe and call counts equal a serial run's:
// placement decides where a call runs, never which calls are made.
//
// fprev-golden links no MPI: the transport is a plugin (libfprev-mpi-transport-<mpi>.so, built
// with that MPI's compiler wrapper) loaded only here, so a plain run maps no MPI library.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fprev/reveal.hpp"

namespace fprev {

// Which MPI started this process, from the variables its launcher sets (Open MPI's mpirun:
// OMPI_COMM_WORLD_SIZE; MPICH's hydra: PMI_SIZE; a PMIx launcher such as srun: PMIX_RANK with
// the implementation given), or `forced` ("openmpi", "mpich", from --mpi / FPREV_MPI). nullopt:
// not an MPI job of more than one rank (a serial run).
struct MpiLaunch {
  std::string implementation;  // "openmpi" or "mpich"
  int world_size = 0;          // 0: not known before MPI_Init
};
std::optional<MpiLaunch> detect_mpi_launch(const std::string& forced);

// Work done on one rank's workers since the session began (for stats.ranks and the per-rank
// counts of the JSON report, and the bench).
struct RankWork {
  int rank = 0;
  std::string host;
  std::size_t probes = 0;  // probes of the probe calls its workers ran
  std::size_t calls = 0;   // target calls its workers ran
};

class DistributedSession {
 public:
  // Starts MPI through the plugin of `launch.implementation`. On rank 0 it returns with worker
  // placement installed (every rank in turn); on the other ranks it serves workers until rank 0
  // ends the session, and then `serving_rank()` is true: the program must exit with
  // `exit_status()` without doing anything else. Throws std::runtime_error when MPI cannot start.
  //
  // Ranks watch each other with heartbeats: one silent for `rank_timeout_seconds` is lost. Rank 0
  // then fails the cases in flight on it ("rank lost", naming the rank and its host), places no
  // more work there and goes on with the others; a serving rank that loses rank 0 ends the job.
  DistributedSession(const MpiLaunch& launch, std::size_t streams_per_rank, double rank_timeout_seconds);
  // Rank 0: tells the other ranks to stop; every rank: MPI_Finalize. When a rank was lost, rank 0
  // says which on standard error instead and leaves the job to finish_distributed_job, which ends
  // it with MPI_Abort (a status that is not 0).
  ~DistributedSession();
  DistributedSession(const DistributedSession&) = delete;
  DistributedSession& operator=(const DistributedSession&) = delete;

  bool serving_rank() const;
  int exit_status() const;
  int rank() const;
  int ranks() const;
  std::string library() const;  // "Open MPI v4.1.4"
  // Rank 0: why each rank lost so far was lost ("rank 2 (host node07) was lost: ..."), by rank.
  std::vector<std::string> lost_ranks() const;

  struct State;  // defined where the session is implemented

 private:
  std::unique_ptr<State> state_;
};

// A thread of `check` or `update` that runs whole cases on one rank, as `ctest -j` runs tests side
// by side (cases spread over the ranks): while it lives, the workers the thread's cases start are
// placed on `home_rank`, and rank_work() on this thread counts only their work.
class CaseSlot {
 public:
  explicit CaseSlot(int home_rank);
  ~CaseSlot();
  CaseSlot(const CaseSlot&) = delete;
  CaseSlot& operator=(const CaseSlot&) = delete;

 private:
  std::vector<RankWork> work_;
};
// The home rank of the calling thread's case slot, or -1 (waves spread over every rank).
int case_slot_rank();

// The last thing main does, with the command's exit status: returns it. Rank 0 of a distributed run
// that lost a rank, or whose launcher would end the job with 0 whatever rank 0 returns (Open MPI's
// mpirun with `--mca orte_abort_on_non_zero_status 0`), has kept MPI open until here, and ends the
// job with MPI_Abort(status) when the status is not 0 (at least 1 after a lost rank), MPI_Finalize
// when it is 0.
int finish_distributed_job(int status);

// The session running now (rank 0), or nullptr in a serial run.
const DistributedSession* active_distributed_session();
// Probe streams a case may use in this run: ranks x streams per rank in a distributed run, 0 (one
// per core) otherwise.
std::size_t distributed_streams();
// The work of every rank so far (one entry per rank, in rank order; in a case slot: that slot's
// cases' work only); empty in a serial run.
std::vector<RankWork> rank_work();
// Sets stats.ranks and stats.rank_probes from the work done since `before` (rank_work() taken
// when the reveal began). Leaves a serial run's stats as they are.
void record_rank_work(RevealStats& stats, const std::vector<RankWork>& before);

}  // namespace fprev
