// The cores of a side-by-side run (CaseSpreader): shared by the slots' cases, or held by one case
// alone (a case whose library runs several threads: beside another case its threads would wait for
// a time slice at every call, docs/cli.md "--jobs").
//
// A case that asks for the cores alone goes first: once it waits, no case starts beside it, so it
// waits only for the cases in flight. std::shared_mutex (a reader-preferring rwlock on glibc) let
// the other slots start case after case meanwhile, and the waiting slot stood idle until they had
// run out of cases.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace fprev::cli {

class CoreShares {
 public:
  // Blocks until the case may run: beside others (alone == false) or with the cores to itself.
  void enter(bool alone);
  void leave(bool alone);

  // RAII: enters on construction, leaves on destruction.
  class Hold {
   public:
    Hold(CoreShares& shares, bool alone) : shares_(shares), alone_(alone) { shares_.enter(alone_); }
    ~Hold() { shares_.leave(alone_); }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    CoreShares& shares_;
    bool alone_;
  };

  // For tests: cases running beside others, and cases waiting to run alone.
  std::size_t sharing() const;
  std::size_t waiting_alone() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t sharing_ = 0;        // cases running beside others
  std::size_t waiting_alone_ = 0;  // cases waiting for the cores to themselves
  bool alone_ = false;             // a case holds the cores
};

}  // namespace fprev::cli
