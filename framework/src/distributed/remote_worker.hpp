// Rank 0's end of a worker that another rank supervises (distributed mode): the worker protocol's
// request and the shared memory it filled travel to that rank as one MPI message, and the reply
// and the outputs come back. The serving rank runs a WorkerProcess with the same limits and the
// time the case has left, so crashes, hangs and runaway memory are caught there and arrive here as
// the same named TargetFault, with the rank and host added.
#pragma once

#include <memory>
#include <string>

#include "distributed/liveness.hpp"
#include "distributed/mpi_link.hpp"
#include "worker/worker_process.hpp"

namespace fprev::distributed {

class RemoteWorker final : public worker::WorkerChannel {
 public:
  // Asks rank `rank` to start `command`; waits for it to be up. Throws what WorkerProcess throws,
  // and a "rank lost" fault when `liveness` declares the rank lost while a message is under way.
  RemoteWorker(MpiLink& link, const RankLiveness& liveness, int rank, std::string host, int tag,
               const WorkerCommand& command, const std::string& subject);
  ~RemoteWorker() override;  // asks the rank to stop the worker

  worker::Json call(worker::Json request, const worker::InFlight& in_flight) override;
  worker::SharedMemory& shared_memory() override { return shm_; }
  bool usable() const override { return !faulted_; }
  int tag() const { return tag_; }

 private:
  worker::Json exchange(const worker::Json& header, const std::string& payload, std::string& payload_back,
                        const std::string& what, double allowed_seconds);

  [[noreturn]] void fail_as_lost(const std::string& why, const std::string& what);

  MpiLink& link_;
  const RankLiveness& liveness_;
  int rank_;
  std::string host_;
  int tag_;
  std::string subject_;
  worker::SharedMemory shm_;
  bool faulted_ = false;
  double slowest_call_seconds_ = 0.0;
};

// Serves the workers rank 0 places on this rank until rank 0 says shutdown. Returns the exit
// status of this rank. A rank 0 silent for `rank_timeout_seconds` is lost: this rank then says so,
// stops its workers and ends the MPI job (MPI_Abort), so that the job's exit status is not 0.
int serve_rank(MpiLink& link, double rank_timeout_seconds);

}  // namespace fprev::distributed
