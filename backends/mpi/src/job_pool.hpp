// The running MPI jobs of one backend instance, kept between cases: starting a job (the launcher,
// the ranks, MPI_Init) costs 0.5 to 2 s, a case's calls often a few milliseconds, so a job serves
// every case of its launch one after another, each configuring its collective first
// (MpiJob::configure).
//
// A job is keyed by its whole launch: launcher, arguments (rank count, placement, options),
// environment (the tuning: MCA parameters, MPIR_CVAR_* variables, which the library reads at
// MPI_Init), probe program and transport. Within one key the cases differ only in what every call
// passes to the library anyway (the collective, its datatype and count), so the library decides
// its algorithm for a case's calls from the same inputs as in a job of its own. Jobs of
// different keys are never shared.
//
// A case returns its job only when the job served it without fault: a job whose case failed in
// any way (a rank crashed, hung, answered wrongly, ranks disagreed) is stopped, and the next case
// of its key starts a fresh one. Idle jobs end (asked to quit, side by side) when the pool is
// destroyed, i.e. with the instance; a job found dead while idle is replaced. At most
// kMaxIdleJobs stay idle: the least recently used ends first.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "mpi_job.hpp"

namespace fprev::mpi {

// The launch a job is started with, as one string: equal keys, interchangeable jobs.
std::string launch_key(const JobConfig& config);

class JobPool {
 public:
  static constexpr std::size_t kMaxIdleJobs = 8;

  // `reuse` false: every acquire() starts a job, give_back() ends it (the reuse_jobs setting).
  explicit JobPool(bool reuse = true) : reuse_(reuse) {}
  ~JobPool();  // ends every idle job
  JobPool(const JobPool&) = delete;
  JobPool& operator=(const JobPool&) = delete;

  // A running job of `config`'s launch: an idle one, or a new one (`started` says which).
  // Throws JobFailure when a new one cannot start.
  std::unique_ptr<MpiJob> acquire(const JobConfig& config, bool& started);
  // Keeps a job that served its case without fault for the next case of its launch.
  void give_back(std::unique_ptr<MpiJob> job);

  // Jobs started so far, and idle now (tests).
  std::size_t jobs_started() const;
  std::size_t idle_jobs() const;

 private:
  struct Idle {
    std::string key;
    std::unique_ptr<MpiJob> job;
  };
  mutable std::mutex mutex_;
  std::list<Idle> idle_;  // least recently returned first
  std::size_t started_ = 0;
  bool reuse_ = true;
};

}  // namespace fprev::mpi
