// Which case a side-by-side slot runs next (CaseSpreader), so that each backend instance is opened
// in as few slots as the balance allows.
//
// A slot's runner opens every backend instance it meets: the library loaded in a worker (a Python
// worker imports torch, about a second of CPU), an MPI job started per rank count. Handing out the
// cases in the selection's order spreads the cases of one instance over every slot, and every slot
// then opens it: on 2 cores the shipped gate imported torch 16 times instead of 6 and started 31
// MPI jobs instead of 22. Here a slot keeps to one instance's cases (a group: the cases of one
// suite's backend instance, in the selection's order) and takes the first group no slot has
// started when its own runs out. Only when every group has been started does a slot join another,
// the one with the most cases left, taking them from its end: the run's last cases still spread
// over every core, at the price of opening that instance once more.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace fprev::cli {

class CaseQueue {
 public:
  // `instance_keys[k]`: case k's instance, e.g. "<suite>/<backend instance>"; `slots` at least 1.
  CaseQueue(const std::vector<std::string>& instance_keys, std::size_t slots);

  // The next case for `slot`, or nullopt when none is left. Not thread-safe: the caller locks.
  std::optional<std::size_t> next(std::size_t slot);

 private:
  struct Group {
    std::vector<std::size_t> cases;  // in the selection's order
    std::size_t front = 0;           // cases[front, back) are left
    std::size_t back = 0;
    bool started = false;
    std::size_t left() const { return back - front; }
  };
  std::vector<Group> groups_;               // in the order of their first case
  std::vector<std::optional<std::size_t>> slot_group_;  // the group each slot works on
  std::vector<bool> slot_joined_;                       // the slot joined a group another started
  std::size_t next_unstarted_ = 0;
};

}  // namespace fprev::cli
