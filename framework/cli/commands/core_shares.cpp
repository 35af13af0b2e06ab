#include "core_shares.hpp"

namespace fprev::cli {

void CoreShares::enter(bool alone) {
  std::unique_lock lock(mutex_);
  if (alone) {
    ++waiting_alone_;
    changed_.wait(lock, [&] { return !alone_ && sharing_ == 0; });
    --waiting_alone_;
    alone_ = true;
    return;
  }
  changed_.wait(lock, [&] { return !alone_ && waiting_alone_ == 0; });
  ++sharing_;
}

void CoreShares::leave(bool alone) {
  {
    const std::lock_guard lock(mutex_);
    if (alone)
      alone_ = false;
    else
      --sharing_;
  }
  changed_.notify_all();
}

std::size_t CoreShares::sharing() const {
  const std::lock_guard lock(mutex_);
  return sharing_;
}

std::size_t CoreShares::waiting_alone() const {
  const std::lock_guard lock(mutex_);
  return waiting_alone_;
}

bool CoreShares::held_alone() const {
  const std::lock_guard lock(mutex_);
  return alone_;
}

std::shared_ptr<void> CaseCores::claim() {
  const std::lock_guard lock(mutex_);
  if (claims_++ == 0 && !alone_) {
    shares_.leave(false);
    shares_.enter(true);
  }
  return {static_cast<void*>(this), [this](void*) { release(); }};
}

void CaseCores::release() {
  const std::lock_guard lock(mutex_);
  if (--claims_ == 0 && !alone_) {
    shares_.leave(true);
    shares_.enter(false);
  }
}

}  // namespace fprev::cli
