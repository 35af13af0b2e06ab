// Yielding while idle, for MPICH jobs with more ranks than cores (the probe's --idle-yield on).
//
// MPICH's ch4 device busy-polls while a rank waits inside a collective, and its shared-memory
// collectives never give the core up: with 16 ranks on 2 cores a rank whose turn it is waits for the
// scheduler's tick to preempt the spinning ones, and one MPI_Allreduce of a double took about 73 ms
// (Debian 12, MPICH 4.0.2, ch4:ucx; 8 ranks: 25 ms). MPICH's own POLLS_BEFORE_YIELD belongs to the
// older ch3 device; Open MPI yields by itself when oversubscribed (mpi_yield_when_idle). So the
// probe defines ucp_worker_progress, the UCX call MPICH's progress loop makes on every poll: a
// symbol of the executable comes first in the dynamic linker's lookup, so libmpich's calls reach
// this one, which calls UCX's own (dlsym(RTLD_NEXT)) and, when that made no progress and yielding
// is on, gives the core up with sched_yield(). The same loop then took 0.1 ms a call.
//
// Nothing of the collective changes: the same algorithm, the same messages, the same order of
// additions (the shipped goldens pass with it on and off); only how a waiting rank waits. An MPICH
// built without UCX (ch4:ofi, ch3) never calls it, and runs as without it.
#pragma once

#include <dlfcn.h>
#include <sched.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace fprev_probe {

// Set from the command line before MPI_Init; counted for the backend (wire::Response::idle_yields).
inline std::atomic<bool> idle_yield{false};
inline std::atomic<std::uint64_t> idle_yields{0};

}  // namespace fprev_probe

#if defined(MPICH_VERSION)
extern "C" unsigned ucp_worker_progress(void* worker) {
  using Progress = unsigned (*)(void*);
  static const Progress real = [] {
    void* found = dlsym(RTLD_NEXT, "ucp_worker_progress");
    if (found == nullptr) {
      // Only UCX's own callers call it, so UCX is loaded: this cannot happen, and spinning on a
      // progress call that does nothing would hang the job.
      std::fprintf(stderr, "fprev-mpi-probe: ucp_worker_progress was called but UCX's own is not found\n");
      std::abort();
    }
    Progress p;
    static_assert(sizeof p == sizeof found);
    __builtin_memcpy(&p, &found, sizeof p);
    return p;
  }();
  const unsigned progressed = real(worker);
  if (progressed == 0 && fprev_probe::idle_yield.load(std::memory_order_relaxed)) {
    fprev_probe::idle_yields.fetch_add(1, std::memory_order_relaxed);
    sched_yield();
  }
  return progressed;
}
#endif
