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
#include <memory>
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

  // For tests: cases running beside others, cases waiting to run alone, and whether one does.
  std::size_t sharing() const;
  std::size_t waiting_alone() const;
  bool held_alone() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t sharing_ = 0;        // cases running beside others
  std::size_t waiting_alone_ = 0;  // cases waiting for the cores to themselves
  bool alone_ = false;             // a case holds the cores
};

// One case's hold on the cores (CaseSpreader): a share, or the cores alone for the whole case (its
// own library runs several threads); and the claims of a sharing case's calls that need the cores
// alone (an invariance variant of several threads, RunnerOptions::claim_cores), which leave the
// share and wait to run alone while a claim's token lives, then share again.
class CaseCores {
 public:
  // Every token of claim() must be gone before the CaseCores is.
  CaseCores(CoreShares& shares, bool alone) : hold_(shares, alone), shares_(shares), alone_(alone) {}
  CaseCores(const CaseCores&) = delete;
  CaseCores& operator=(const CaseCores&) = delete;

  // The cores alone for as long as the token lives; tokens taken meanwhile (several probe streams
  // of one variant) share them. In a case that runs alone, a token that changes nothing.
  std::shared_ptr<void> claim();

 private:
  void release();

  CoreShares::Hold hold_;  // the case's share, or the cores alone
  CoreShares& shares_;
  const bool alone_;
  std::mutex mutex_;        // serializes claims and releases, so a share is left and taken back once
  std::size_t claims_ = 0;  // tokens alive
};

}  // namespace fprev::cli
