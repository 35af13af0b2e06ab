#include "stream_pool.hpp"

#include <stdexcept>

namespace fprev::detail {

StreamPool::StreamPool(std::size_t workers) {
  threads_.reserve(workers);
  for (std::size_t w = 0; w < workers; ++w) threads_.emplace_back([this, w] { work(w); });
}

StreamPool::~StreamPool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void StreamPool::run(std::size_t count, const std::function<void(std::size_t)>& job) {
  if (count == 0) return;
  if (count > threads_.size() + 1) throw std::logic_error("StreamPool::run: more jobs than streams");
  {
    const std::lock_guard lock(mutex_);
    job_ = &job;
    jobs_ = count;
    running_ = count - 1;
    errors_.assign(count, nullptr);
    ++generation_;
  }
  start_.notify_all();
  std::exception_ptr own;
  try {
    job(0);
  } catch (...) {
    own = std::current_exception();
  }
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [this] { return running_ == 0; });
  errors_[0] = own;
  job_ = nullptr;
  for (const std::exception_ptr& error : errors_)
    if (error) std::rethrow_exception(error);
}

void StreamPool::work(std::size_t worker) {
  std::size_t seen = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    const std::size_t index = worker + 1;
    if (index >= jobs_) continue;  // this run needs fewer streams
    const std::function<void(std::size_t)>& job = *job_;
    lock.unlock();
    std::exception_ptr error;
    try {
      job(index);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    errors_[index] = error;
    if (--running_ == 0) finished_.notify_one();
  }
}

}  // namespace fprev::detail
