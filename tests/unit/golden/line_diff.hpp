// Line diff size for the golden format tests.
#pragma once

#include <cstddef>
#include <string>
#include <vector>


namespace fprev::testing {

// Number of lines that differ between two texts (deleted + inserted lines of a minimal line diff,
// the count `git diff` shows), from the longest common subsequence of lines.
inline std::size_t changed_line_count(const std::string& a, const std::string& b) {
  const auto split = [](const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = text.find('\n', start);
      lines.push_back(text.substr(start, end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
    return lines;
  };
  const auto x = split(a);
  const auto y = split(b);
  std::vector<std::size_t> previous(y.size() + 1, 0), current(y.size() + 1, 0);
  for (std::size_t i = 1; i <= x.size(); ++i) {
    for (std::size_t j = 1; j <= y.size(); ++j)
      current[j] = x[i - 1] == y[j - 1] ? previous[j - 1] + 1 : std::max(previous[j], current[j - 1]);
    std::swap(previous, current);
  }
  const std::size_t common = previous[y.size()];
  return (x.size() - common) + (y.size() - common);
}

}  // namespace fprev::testing
