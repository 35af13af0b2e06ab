// A small fixed pool of worker threads for probe streams: run(count, job) calls job(0) on the
// caller and job(1) ... job(count - 1) on the workers, waits for all of them, and rethrows the
// exception of the lowest job that threw (the one a serial loop over the jobs would have met
// first), so a parallel reveal fails with the same diagnostic as a serial one.
//
// The workers live as long as the pool (one reveal): a wave of probes is dispatched in a few
// microseconds instead of starting threads per wave.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fprev::detail {

class StreamPool {
 public:
  explicit StreamPool(std::size_t workers);
  ~StreamPool();
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;

  std::size_t workers() const { return threads_.size(); }
  // count <= workers() + 1.
  void run(std::size_t count, const std::function<void(std::size_t)>& job);

 private:
  void work(std::size_t worker);

  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable finished_;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::size_t jobs_ = 0;          // jobs of the current run, the caller's included
  std::size_t generation_ = 0;    // incremented by every run
  std::size_t running_ = 0;       // worker jobs of the current run not yet finished
  bool stopping_ = false;
  std::vector<std::exception_ptr> errors_;  // per job of the current run
  std::vector<std::thread> threads_;
};

}  // namespace fprev::detail
