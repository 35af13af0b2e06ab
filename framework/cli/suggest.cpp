#include "suggest.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace fprev::cli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: the swap looks two rows back.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    before.swap(previous);
    previous.swap(current);
  }
  return previous[b.size()];
}

std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& candidates) {
  // Dashes are not letters a user gets wrong: "--suit" has four letters.
  const std::size_t letters = word.size() - std::min(word.find_first_not_of('-'), word.size());
  const std::size_t allowed = std::max<std::size_t>(1, letters / 3);
  // Ranked by the distance (an abbreviation counting as one typo), then by the plain edit
  // distance, so "--suit" is --suite rather than --suites.
  std::optional<std::string> best;
  std::pair<std::size_t, std::size_t> best_rank{std::numeric_limits<std::size_t>::max(), 0};
  bool tie = false;
  for (const std::string& candidate : candidates) {
    const std::size_t plain = edit_distance(word, candidate);
    std::size_t distance = plain;
    if (letters >= 3 && candidate.size() > word.size() && candidate.compare(0, word.size(), word) == 0)
      distance = std::min<std::size_t>(distance, 1);
    if (distance > allowed) continue;
    const std::pair<std::size_t, std::size_t> rank{distance, plain};
    if (rank < best_rank) {
      best = candidate;
      best_rank = rank;
      tie = false;
    } else if (rank == best_rank && candidate != *best) {
      tie = true;
    }
  }
  if (tie) return std::nullopt;
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto name = closest_name(word, candidates);
  return name ? " (did you mean " + *name + "?)" : "";
}

}  // namespace fprev::cli
