// CoreShares: a case that needs the cores alone waits only for the cases in flight, never for
// cases that start after it asked (a reader-preferring lock let the other slots start case after
// case while its slot stood idle), and no case ever runs beside it. CaseCores: a sharing case's
// claim (an invariance variant of several threads) holds the cores alone while its token lives,
// and the case shares them again after it.
#include "commands/core_shares.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fprev::cli {
namespace {

class Entries {
 public:
  void add(const std::string& who) {
    const std::lock_guard lock(mutex_);
    order_.push_back(who);
  }
  std::vector<std::string> order() {
    const std::lock_guard lock(mutex_);
    return order_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> order_;
};

void wait_until(const std::function<bool()>& condition) {
  while (!condition()) std::this_thread::yield();
}

TEST(CoreShares, ACaseWaitingToRunAloneGoesBeforeCasesThatCameAfterIt) {
  CoreShares shares;
  Entries entries;
  shares.enter(false);  // a case in flight on another slot
  std::thread alone([&] {
    const CoreShares::Hold hold(shares, true);
    entries.add("alone");
    EXPECT_EQ(shares.sharing(), 0u) << "a case ran beside the one that holds the cores";
  });
  wait_until([&] { return shares.waiting_alone() == 1; });
  std::thread later([&] {
    const CoreShares::Hold hold(shares, false);
    entries.add("later");
  });
  // Time for `later` to slip in beside the case in flight, as it did with std::shared_mutex.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(shares.sharing(), 1u);
  entries.add("in flight done");
  shares.leave(false);
  alone.join();
  later.join();
  EXPECT_EQ(entries.order(), (std::vector<std::string>{"in flight done", "alone", "later"}));
}

TEST(CoreShares, CasesShareTheCoresWhileNoneAsksForThemAlone) {
  CoreShares shares;
  const CoreShares::Hold a(shares, false);
  std::atomic<bool> entered{false};
  std::thread b([&] {
    const CoreShares::Hold hold(shares, false);
    entered = true;
  });
  b.join();  // returns only if b could enter beside a
  EXPECT_TRUE(entered);
  EXPECT_EQ(shares.sharing(), 1u);
}

TEST(CaseCores, AClaimOfASharingCaseWaitsForTheCasesInFlightAndSharesAgainAfterIt) {
  CoreShares shares;
  shares.enter(false);  // a case in flight on another slot
  std::atomic<bool> claimed{false};
  std::atomic<bool> released{false};
  std::thread slot([&] {
    CaseCores cores(shares, false);
    std::shared_ptr<void> token = cores.claim();
    claimed = true;
    EXPECT_TRUE(shares.held_alone());
    EXPECT_EQ(shares.sharing(), 0u) << "a case ran beside the claim";
    token.reset();
    EXPECT_FALSE(shares.held_alone());
    EXPECT_EQ(shares.sharing(), 1u) << "the case does not share the cores again after its claim";
    released = true;
    wait_until([&] { return !released; });  // the main thread looks while the case still runs
  });
  wait_until([&] { return shares.waiting_alone() == 1; });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(claimed) << "the claim did not wait for the case in flight";
  shares.leave(false);
  wait_until([&] { return released.load(); });
  // The claiming case shares again: a case may start beside it.
  {
    const CoreShares::Hold beside(shares, false);
    EXPECT_EQ(shares.sharing(), 2u);
  }
  released = false;
  slot.join();
  EXPECT_EQ(shares.sharing(), 0u);
  EXPECT_FALSE(shares.held_alone());
}

TEST(CaseCores, ClaimsTakenWhileOneLivesShareItsCores) {
  CoreShares shares;
  {
    CaseCores cores(shares, false);
    std::shared_ptr<void> first = cores.claim();
    std::shared_ptr<void> second = cores.claim();  // another probe stream of the same variant
    EXPECT_TRUE(shares.held_alone());
    first.reset();
    EXPECT_TRUE(shares.held_alone()) << "the cores went back while a claim still lived";
    second.reset();
    EXPECT_FALSE(shares.held_alone());
    EXPECT_EQ(shares.sharing(), 1u);
  }
  EXPECT_EQ(shares.sharing(), 0u);
}

TEST(CaseCores, AClaimInACaseThatRunsAloneChangesNothing) {
  CoreShares shares;
  {
    CaseCores cores(shares, true);
    std::shared_ptr<void> token = cores.claim();  // returns at once: the case has the cores
    EXPECT_TRUE(shares.held_alone());
    token.reset();
    EXPECT_TRUE(shares.held_alone()) << "the case lost the cores it runs alone with";
  }
  EXPECT_FALSE(shares.held_alone());
}

}  // namespace
}  // namespace fprev::cli
