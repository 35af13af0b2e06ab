// CaseQueue: side-by-side slots keep to one backend instance's cases, so each instance is opened in
// as few slots' runners as the balance allows, and every case runs exactly once.
#include "commands/case_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace fprev::cli {
namespace {

// Runs the queue to the end with the slots taking turns (slot 0, 1, ..., 0, 1, ...), as if every
// case took the same time; returns the cases each slot ran, in its order.
std::vector<std::vector<std::size_t>> drain_in_turns(CaseQueue& queue, std::size_t slots) {
  std::vector<std::vector<std::size_t>> ran(slots);
  std::vector<bool> done(slots, false);
  while (std::count(done.begin(), done.end(), false) > 0) {
    for (std::size_t s = 0; s < slots; ++s) {
      if (done[s]) continue;
      const std::optional<std::size_t> k = queue.next(s);
      if (k) ran[s].push_back(*k);
      else done[s] = true;
    }
  }
  return ran;
}

// The instances a slot opened: the distinct keys of the cases it ran.
std::set<std::string> opened(const std::vector<std::size_t>& ran, const std::vector<std::string>& keys) {
  std::set<std::string> out;
  for (std::size_t k : ran) out.insert(keys[k]);
  return out;
}

TEST(CaseQueue, EveryCaseRunsExactlyOnce) {
  const std::vector<std::string> keys = {"s/a", "s/b", "s/a", "t/a", "s/b", "s/c", "s/a", "t/a", "s/c", "s/c"};
  for (std::size_t slots : {1u, 2u, 3u, 8u}) {
    CaseQueue queue(keys, slots);
    std::multiset<std::size_t> all;
    for (const auto& ran : drain_in_turns(queue, slots)) all.insert(ran.begin(), ran.end());
    ASSERT_EQ(all.size(), keys.size()) << slots << " slots";
    for (std::size_t k = 0; k < keys.size(); ++k) EXPECT_EQ(all.count(k), 1u) << "case " << k << ", " << slots << " slots";
  }
}

TEST(CaseQueue, OneSlotRunsTheSelectionGroupByGroup) {
  const std::vector<std::string> keys = {"s/a", "s/b", "s/a", "s/b", "s/c"};
  CaseQueue queue(keys, 1);
  const auto ran = drain_in_turns(queue, 1);
  EXPECT_EQ(ran[0], (std::vector<std::size_t>{0, 2, 1, 3, 4}));
}

// Interleaved instances (what a suite's case matrix gives: every case for every instance) used to
// be spread over both slots, each opening every instance.
TEST(CaseQueue, SlotsKeepToTheirInstance) {
  std::vector<std::string> keys;
  for (int c = 0; c < 20; ++c)
    for (const char* instance : {"py/numpy", "py/torch", "mpi/openmpi", "mpi/mpich"}) keys.push_back(instance);
  CaseQueue queue(keys, 2);
  const auto ran = drain_in_turns(queue, 2);
  const auto first = opened(ran[0], keys), second = opened(ran[1], keys);
  // Four groups of 20 over two slots: two each, and the last cases of the run shared at most once.
  EXPECT_LE(first.size() + second.size(), 5u) << "instances opened twice: too many";
  EXPECT_GE(ran[0].size(), 30u);
  EXPECT_GE(ran[1].size(), 30u);
}

TEST(CaseQueue, AnIdleSlotJoinsTheGroupWithMostLeftFromItsEnd) {
  // One big group and one small: the slot done with the small one helps with the big one.
  std::vector<std::string> keys(10, "s/big");
  keys.push_back("s/small");
  CaseQueue queue(keys, 2);
  EXPECT_EQ(queue.next(0), 0u);   // slot 0 starts big
  EXPECT_EQ(queue.next(1), 10u);  // slot 1 starts small
  EXPECT_EQ(queue.next(1), 9u);   // small is done: slot 1 joins big from its end
  EXPECT_EQ(queue.next(0), 1u);
  EXPECT_EQ(queue.next(1), 8u);
}

TEST(CaseQueue, NoSlotJoinsForAGroupsLastCase) {
  const std::vector<std::string> keys = {"s/a", "s/a", "s/b"};
  CaseQueue queue(keys, 2);
  EXPECT_EQ(queue.next(0), 0u);
  EXPECT_EQ(queue.next(1), 2u);
  EXPECT_EQ(queue.next(1), std::nullopt);  // case 1 is slot 0's next, its instance open there
  EXPECT_EQ(queue.next(0), 1u);
  EXPECT_EQ(queue.next(0), std::nullopt);
}

TEST(CaseQueue, NoCases) {
  CaseQueue queue({}, 2);
  EXPECT_EQ(queue.next(0), std::nullopt);
  EXPECT_EQ(queue.next(1), std::nullopt);
}

}  // namespace
}  // namespace fprev::cli
