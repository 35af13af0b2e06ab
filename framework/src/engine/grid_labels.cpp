#include "grid_labels.hpp"

#include <unordered_map>

namespace fprev::detail {
namespace {

struct KeyHash {
  std::size_t operator()(const std::pair<std::uint32_t, std::uint64_t>& k) const {
    return std::hash<std::uint64_t>()(k.second * 0x9e3779b97f4a7c15ull ^ k.first);
  }
};

}  // namespace

std::vector<std::uint32_t> AxisLabels::refine(
    const std::vector<std::uint64_t>& hash,
    const std::function<bool(std::size_t, std::size_t)>& same) {
  // (old label, hash) -> the groups seen so far: (representative line, new label).
  std::unordered_map<std::pair<std::uint32_t, std::uint64_t>,
                     std::vector<std::pair<std::size_t, std::uint32_t>>, KeyHash>
      groups;
  std::vector<bool> label_taken(count_, false);  // the old number is kept by the first group
  std::vector<std::uint32_t> parent(count_);
  for (std::uint32_t l = 0; l < count_; ++l) parent[l] = l;
  for (std::size_t line = 0; line < of_.size(); ++line) {
    const std::uint32_t old = of_[line];
    auto& candidates = groups[{old, hash[line]}];
    std::uint32_t label = 0;
    bool found = false;
    for (const auto& [representative, assigned] : candidates) {
      if (same(representative, line)) {
        label = assigned;
        found = true;
        break;
      }
    }
    if (!found) {
      if (!label_taken[old]) {
        label_taken[old] = true;
        label = old;
      } else {
        label = count_++;
        parent.push_back(old);
      }
      candidates.emplace_back(line, label);
    }
    of_[line] = label;
  }
  return parent;
}

IndexRanges AxisLabels::ranges_of(std::uint32_t label) const {
  IndexRanges ranges;
  for (std::size_t line = 0; line < of_.size(); ++line) {
    if (of_[line] != label) continue;
    if (!ranges.empty() && ranges.back().last + 1 == line) {
      ranges.back().last = line;
    } else {
      ranges.push_back({line, line});
    }
  }
  return ranges;
}

}  // namespace fprev::detail
