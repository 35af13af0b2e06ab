// Supervised worker processes: where the code of a backend we did not write runs.
//
// A BLAS, cuBLAS, a backend module or a Python library can crash, hang, call exit() or print into
// our reports. The gate must survive all of it, so such a backend's instances and targets live in
// a worker process that the gate starts, feeds and watches; the engine, the goldens and the
// reports stay in the gate. The gate sees proxies: a Backend whose open() starts a worker, a
// BackendInstance whose make_target() gives a Target whose calls travel to the worker in runs
// (Target::evaluate_probe_calls), never one probe at a time.
//
// The protocol (docs/worker-protocol.md, versioned) is small enough for a worker in any language:
// length-prefixed JSON messages over a socket, large arrays in a shared memory file. A fault is
// named (TargetFault: "crashed (SIGSEGV)", "exited (status 0)", "hung", "crashed (out of
// memory)"), carries the call in flight and the last lines the worker wrote, and is a failure.
//
// Learned from Bazel's persistent workers (length-prefixed requests on a long-lived process), CTest's
// per-test processes and timeouts, and GoogleTest's death tests.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fprev/backend.hpp"

namespace fprev {

// What the supervisor allows every worker (set once by the program, e.g. from --watchdog and
// --worker-memory).
struct WorkerLimits {
  // The least time a message may take before the worker is declared hung. A message of C calls
  // may take max(watchdog_floor_seconds, watchdog_factor x C x the slowest call measured so far on
  // that worker). Opening an instance (loading a library, starting Python) gets the floor.
  double watchdog_floor_seconds = 60.0;
  double watchdog_factor = 50.0;
  // Resident memory all workers of this process may use together: a worker whose call takes the
  // total past it is killed as "crashed (out of memory)"; 0: half of this machine's physical
  // memory. The ranks of a distributed run on one node each get their share.
  std::size_t memory_bytes = 0;
};
void set_worker_limits(const WorkerLimits& limits);
WorkerLimits worker_limits();
// The memory limit in effect, a total across workers (WorkerLimits::memory_bytes, or half the
// physical memory; divided among the MPI ranks of this node).
std::size_t worker_memory_limit();

// The hard time limit of the case running now (the runner sets it from max_seconds, `reveal` from
// --max-seconds): a worker still inside a call when it passes is killed and reported hung. It holds
// for the calling thread (a distributed check runs cases on several threads) and for the targets
// made while it lives, whichever thread calls them (a case's probe streams).
class CaseDeadline {
 public:
  explicit CaseDeadline(double seconds);  // 0 or less: no deadline
  ~CaseDeadline();
  CaseDeadline(const CaseDeadline&) = delete;
  CaseDeadline& operator=(const CaseDeadline&) = delete;

 private:
  double previous_ = 0.0;
  double previous_budget_ = 0.0;
};

// How to start a worker: the program and its arguments, and variables added to the environment.
struct WorkerCommand {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> environment;
};

// fprev-golden-worker (installed beside the backend modules, lib/fprev-golden/) serving the
// backend `name`, compiled in or a module. $FPREV_WORKER_PROGRAM names another program.
WorkerCommand native_worker_command(std::string_view backend_name);

// The folder of the worker programs (lib/fprev-golden/ beside the framework library, in the build
// tree as installed): fprev-golden-worker, the python backend's fprev_python_worker.py.
std::string worker_directory();

// An instance opened in a new worker started with `command`: for a backend whose worker is not
// fprev-golden-worker (the python backend's is a Python script speaking the same protocol). Its
// targets each get a worker of their own, as supervised_backend's do; `label` names it in
// diagnostics ("python backend"). Throws what the worker's open replies (ConfigError,
// BackendUnavailable) and TargetFault.
std::unique_ptr<BackendInstance> open_instance_in_worker(const WorkerCommand& command, const Params& settings,
                                                         std::string label);

// The backend `backend` with its instances and targets in workers started with `command`. Its
// settings, case parameters and static checks stay in this process (they load nothing); open()
// starts a worker, and every target gets a worker of its own (a probe stream: one worker each).
// `backend` must outlive the result.
std::unique_ptr<Backend> supervised_backend(const Backend& backend, WorkerCommand command);

// A backend module (fprev/backend_module.hpp) the gate never loads: a worker loads it, describes it
// (name, settings, case parameters) and runs it. A module that cannot be loaded, or that crashes
// or exits while loading, is a backend whose open() says why (BackendUnavailable, unusable).
std::unique_ptr<Backend> module_backend_in_worker(std::string name, WorkerCommand command);

// The worker's side: serves the protocol on the descriptors the supervisor passed (3: the socket,
// 4: the shared memory) for the backend `backend_name` of `registry`. Returns the exit status.
int serve_worker(const BackendRegistry& registry, std::string_view backend_name);

}  // namespace fprev
