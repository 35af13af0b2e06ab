#include "case_queue.hpp"

#include <map>
#include <stdexcept>

namespace fprev::cli {

CaseQueue::CaseQueue(const std::vector<std::string>& instance_keys, std::size_t slots)
    : slot_group_(slots), slot_joined_(slots, false) {
  if (slots == 0) throw std::invalid_argument("CaseQueue: no slot");
  std::map<std::string, std::size_t> group_of;
  for (std::size_t k = 0; k < instance_keys.size(); ++k) {
    const auto [it, added] = group_of.try_emplace(instance_keys[k], groups_.size());
    if (added) groups_.emplace_back();
    groups_[it->second].cases.push_back(k);
  }
  for (Group& group : groups_) group.back = group.cases.size();
}

std::optional<std::size_t> CaseQueue::next(std::size_t slot) {
  std::optional<std::size_t>& mine = slot_group_.at(slot);
  if (mine && groups_[*mine].left() > 0) {
    Group& group = groups_[*mine];
    // The group's starter goes on from the front; a slot that joined it takes from the end, so
    // the two meet in the middle and neither waits for the other.
    return slot_joined_[slot] ? group.cases[--group.back] : group.cases[group.front++];
  }
  while (next_unstarted_ < groups_.size() && groups_[next_unstarted_].started) ++next_unstarted_;
  if (next_unstarted_ < groups_.size()) {
    Group& group = groups_[next_unstarted_];
    group.started = true;
    mine = next_unstarted_;
    slot_joined_[slot] = false;
    return group.cases[group.front++];
  }
  // Every group started: join the one with the most cases left. One case left is its owner's next
  // one (a slot leaves its group only once the group is empty, so every group with cases left has a
  // slot on it): joining for it would open the instance again to save nothing.
  std::optional<std::size_t> best;
  for (std::size_t g = 0; g < groups_.size(); ++g)
    if (groups_[g].left() >= 2 && (!best || groups_[g].left() > groups_[*best].left())) best = g;
  if (!best) return std::nullopt;  // what is left is each owner's last case
  mine = *best;
  slot_joined_[slot] = true;
  Group& group = groups_[*best];
  return group.cases[--group.back];
}

}  // namespace fprev::cli
