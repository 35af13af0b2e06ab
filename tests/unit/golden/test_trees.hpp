// Trees for the golden/diff/render tests, built directly with TreeBuilder (independently of the
// pattern builders in summary.cpp).
#pragma once

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "fprev/tree.hpp"

namespace fprev::testing {

// Random tree: repeatedly joins 2..max_arity randomly chosen parentless nodes, so clusters are
// arbitrary (not contiguous) leaf sets.
inline Tree random_tree(std::size_t n, std::size_t max_arity, std::mt19937_64& rng) {
  TreeBuilder builder(n);
  std::vector<NodeId> pool;
  for (std::size_t i = 0; i < n; ++i) pool.push_back(static_cast<NodeId>(i));
  while (pool.size() > 1) {
    std::uniform_int_distribution<std::size_t> arity(2, std::min(max_arity, pool.size()));
    const std::size_t k = arity(rng);
    std::vector<NodeId> children;
    for (std::size_t c = 0; c < k; ++c) {
      std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
      const std::size_t at = pick(rng);
      children.push_back(pool[at]);
      pool[at] = pool.back();
      pool.pop_back();
    }
    pool.push_back(builder.add_node(children));
  }
  return builder.build();
}

// ((0 1) 2) ... : x[0] + x[1] + ... left to right.
inline Tree left_deep_tree(std::size_t n) {
  TreeBuilder builder(n);
  NodeId acc = 0;
  for (std::size_t i = 1; i < n; ++i) acc = builder.add_node({acc, static_cast<NodeId>(i)});
  return builder.build();
}

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
