// The supervisor's side of one worker process: starts it in its own process group with the message
// socket, the shared memory and a pipe that captures its stdout and stderr; sends requests and
// waits for replies under a deadline while it drains the output and watches the memory; names
// every fault (crashed, exited, hung, out of memory) and kills the whole group.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <string>

#include "fprev/worker.hpp"
#include "worker/protocol.hpp"

namespace fprev::worker {

// What a request is doing, for the diagnostic of a fault while it runs.
struct InFlight {
  std::string what;     // "a run of 12 probe calls, the first A^{0,5} (...)", "open"
  std::string subject;  // "OpenBLAS 0.3.21 sdot float32 n=100 (blas backend)"
  std::size_t calls = 0;  // target calls in the request (0: not a target call): the watchdog
  std::size_t probes = 0;  // probes those calls carry (counted per rank in distributed runs)
};

// Where a worker's requests go: a process on this machine (WorkerProcess), or one that another MPI
// rank supervises (distributed mode, src/distributed/remote_worker.hpp). Both have the same
// contract: call() returns the reply or throws TargetFault, after which the channel is unusable.
class WorkerChannel {
 public:
  virtual ~WorkerChannel() = default;
  // Sends `request` (its arrays already in shared_memory()) and returns the reply.
  virtual Json call(Json request, const InFlight& in_flight) = 0;
  virtual SharedMemory& shared_memory() = 0;
  virtual bool usable() const = 0;
};

// A new worker for `command`: on this machine, or, in a distributed run, on the next rank in turn
// (set_worker_placement). Throws TargetFault and BackendUnavailable as WorkerProcess's constructor.
std::unique_ptr<WorkerChannel> start_worker(const WorkerCommand& command, const std::string& subject);
using WorkerPlacement = std::unique_ptr<WorkerChannel> (*)(const WorkerCommand& command, const std::string& subject);
// Installed by distributed mode; nullptr (the default): every worker on this machine.
void set_worker_placement(WorkerPlacement placement);

class WorkerProcess final : public WorkerChannel {
 public:
  // Starts the worker and waits for its hello (within the watchdog floor). Throws TargetFault.
  WorkerProcess(const WorkerCommand& command, std::string subject);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Sends `request` (its arrays already in shared_memory(); its "shm" member is set here) and
  // returns the reply. A fault kills the worker and throws TargetFault; the process is then
  // unusable. An error reply is returned as it is (checked_reply() throws it).
  Json call(Json request, const InFlight& in_flight) override;
  SharedMemory& shared_memory() override { return shm_; }
  bool usable() const override { return pid_ > 0 && !faulted_; }
  pid_t pid() const { return pid_; }
  // The last lines the worker wrote to stdout or stderr (control characters escaped).
  std::string output_tail() const;

 private:
  enum class Wait : std::uint8_t { reply, died, hung_watchdog, hung_case_deadline, out_of_memory };
  Wait wait_for_reply(std::chrono::steady_clock::time_point watchdog, Json& reply);
  bool send_all(const std::string& bytes, std::chrono::steady_clock::time_point deadline);
  void drain_output();
  std::size_t resident_bytes() const;
  [[noreturn]] void fault(Wait why, const InFlight& in_flight, double waited_seconds, double allowed_seconds);
  std::string reap_status();  // "crashed (SIGSEGV)", "exited (status 0)"
  void kill_group();

  pid_t pid_ = -1;
  int socket_ = -1;
  int output_ = -1;
  bool faulted_ = false;
  std::string subject_;
  SharedMemory shm_;
  std::string received_;       // bytes of the socket not yet a whole frame
  std::string output_buffer_;  // the last bytes the worker wrote (bounded)
  double slowest_call_seconds_ = 0.0;
};

}  // namespace fprev::worker
