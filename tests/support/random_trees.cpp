#include "random_trees.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace fprev {
namespace {

// Repeatedly replaces `arity` random parts by their sum until one part is left. With probability
// `chain` the newest part is one of them, which grows long chains (deep trees).
Tree random_tree(std::size_t n, std::size_t max_arity, std::mt19937_64& rng) {
  if (n == 0) throw std::invalid_argument("random tree: n must be at least 1");
  if (max_arity < 2) throw std::invalid_argument("random tree: max_arity must be at least 2");
  static constexpr double kChainBias[] = {0.0, 0.0, 0.5, 0.9, 1.0};
  const double chain =
      kChainBias[std::uniform_int_distribution<std::size_t>(0, std::size(kChainBias) - 1)(rng)];

  TreeBuilder builder(n);
  std::vector<NodeId> parts(n);
  std::iota(parts.begin(), parts.end(), NodeId{0});
  std::shuffle(parts.begin(), parts.end(), rng);
  std::bernoulli_distribution take_newest(chain);
  bool have_newest = false;  // parts.back() is the node made last
  std::vector<NodeId> picked;
  while (parts.size() > 1) {
    const std::size_t arity =
        std::uniform_int_distribution<std::size_t>(2, std::min(max_arity, parts.size()))(rng);
    picked.clear();
    if (have_newest && take_newest(rng)) {
      picked.push_back(parts.back());
      parts.pop_back();
    }
    while (picked.size() < arity) {
      const std::size_t at = std::uniform_int_distribution<std::size_t>(0, parts.size() - 1)(rng);
      picked.push_back(parts[at]);
      parts[at] = parts.back();
      parts.pop_back();
    }
    std::shuffle(picked.begin(), picked.end(), rng);  // builder child order must not matter
    parts.push_back(builder.add_node(picked));
    have_newest = true;
  }
  return builder.build();
}

}  // namespace

Tree random_binary_tree(std::size_t n, std::mt19937_64& rng) { return random_tree(n, 2, rng); }

Tree random_binary_tree(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return random_tree(n, 2, rng);
}

Tree random_multiway_tree(std::size_t n, std::size_t max_arity, std::mt19937_64& rng) {
  return random_tree(n, max_arity, rng);
}

Tree random_multiway_tree(std::size_t n, std::size_t max_arity, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return random_tree(n, max_arity, rng);
}

Tree left_deep_tree(std::size_t n) {
  TreeBuilder builder(n);
  if (n >= 2) {
    NodeId sum = builder.add_node({0, 1});
    for (std::size_t k = 2; k < n; ++k) sum = builder.add_node({sum, static_cast<NodeId>(k)});
  }
  return builder.build();
}

Tree right_deep_tree(std::size_t n) {
  TreeBuilder builder(n);
  if (n >= 2) {
    NodeId sum = builder.add_node({static_cast<NodeId>(n - 2), static_cast<NodeId>(n - 1)});
    for (std::size_t k = n - 2; k-- > 0;) sum = builder.add_node({static_cast<NodeId>(k), sum});
  }
  return builder.build();
}

Tree balanced_tree(std::size_t n) {
  TreeBuilder builder(n);
  std::vector<NodeId> level(n);
  std::iota(level.begin(), level.end(), NodeId{0});
  while (level.size() > 1) {
    std::vector<NodeId> up;
    up.reserve((level.size() + 1) / 2);
    for (std::size_t k = 0; k + 1 < level.size(); k += 2) {
      up.push_back(builder.add_node({level[k], level[k + 1]}));
    }
    if (level.size() % 2 == 1) up.push_back(level.back());
    level = std::move(up);
  }
  return builder.build();
}

Tree lanes_tree(std::size_t n, std::size_t k) {
  TreeBuilder builder(n);
  std::vector<NodeId> parts;
  for (std::size_t lane = 0; lane < k && lane < n; ++lane) {
    auto acc = static_cast<NodeId>(lane);
    for (std::size_t i = lane + k; i < n; i += k) acc = builder.add_node({acc, static_cast<NodeId>(i)});
    parts.push_back(acc);
  }
  while (parts.size() > 1) {
    std::vector<NodeId> next;
    for (std::size_t i = 0; i + 1 < parts.size(); i += 2) next.push_back(builder.add_node({parts[i], parts[i + 1]}));
    if (parts.size() % 2 == 1) next.push_back(parts.back());
    parts = std::move(next);
  }
  return builder.build();
}

Tree with_leaves_swapped(const Tree& tree, std::size_t x, std::size_t y) {
  const std::size_t n = tree.leaf_count();
  TreeBuilder builder(n);
  std::vector<NodeId> built(tree.node_count(), kNoNode);
  for (std::size_t leaf = 0; leaf < n; ++leaf)
    built[leaf] = static_cast<NodeId>(leaf == x ? y : leaf == y ? x : leaf);
  // Children before parents: an explicit post-order from the root (any depth).
  std::vector<std::pair<NodeId, bool>> stack{{tree.root(), false}};
  while (!stack.empty()) {
    const auto [node, expanded] = stack.back();
    stack.pop_back();
    if (tree.is_leaf(node)) continue;
    if (!expanded) {
      stack.push_back({node, true});
      for (const NodeId child : tree.children(node)) stack.push_back({child, false});
      continue;
    }
    std::vector<NodeId> children;
    for (const NodeId child : tree.children(node)) children.push_back(built[child]);
    built[node] = builder.add_node(children);
  }
  return builder.build();
}

}  // namespace fprev
