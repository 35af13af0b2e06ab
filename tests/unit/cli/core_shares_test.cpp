// CoreShares: a case that needs the cores alone waits only for the cases in flight, never for
// cases that start after it asked (a reader-preferring lock let the other slots start case after
// case while its slot stood idle), and no case ever runs beside it.
#include "commands/core_shares.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
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

}  // namespace
}  // namespace fprev::cli
