#include "pattern_recognition.hpp"

#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "fprev/summary.hpp"

namespace fprev::detail {
namespace {

constexpr std::int64_t kNotFrontier = -1;

std::size_t least_binary_depth(std::size_t n) { return n <= 1 ? 0 : std::bit_width(n - 1); }

// The part of `tree` between `top` and a frontier of nodes that becomes the new tree's leaves:
// node v with index_of[v] >= 0 is leaf index_of[v]. The empty tree when the frontier does not cut
// the subtree of `top` into exactly the leaves 0..leaves-1 (a leaf of `tree` left above it, an
// index missing or used twice). Iterative: trees of any depth.
Tree tree_above(const Tree& tree, NodeId top, const std::vector<std::int64_t>& index_of, std::size_t leaves) {
  try {
    TreeBuilder builder(leaves);
    std::vector<NodeId> built(tree.node_count(), kNoNode);
    std::vector<std::pair<NodeId, bool>> stack{{top, false}};
    std::vector<NodeId> children;
    while (!stack.empty()) {
      const auto [node, expanded] = stack.back();
      stack.pop_back();
      if (index_of[node] != kNotFrontier) {
        built[node] = static_cast<NodeId>(index_of[node]);
        continue;
      }
      if (tree.is_leaf(node)) return {};
      if (!expanded) {
        stack.emplace_back(node, true);
        for (const NodeId child : tree.children(node)) stack.emplace_back(child, false);
        continue;
      }
      children.clear();
      for (const NodeId child : tree.children(node)) children.push_back(built[child]);
      built[node] = builder.add_node(children);
    }
    return builder.build();
  } catch (const TreeError&) {
    return {};
  }
}

// The subtree of `top`, whose leaves are first .. first + count - 1, as a tree of its own.
Tree subtree(const Tree& tree, NodeId top, std::size_t first, std::size_t count) {
  std::vector<std::int64_t> index_of(tree.node_count(), kNotFrontier);
  for (std::size_t i = 0; i < count; ++i) index_of[first + i] = static_cast<std::int64_t>(i);
  return tree_above(tree, top, index_of, count);
}

// How K partial sums (lanes, blocks) are combined: pairwise means in pairs, pairs of pairs, ...
// (a binary tree of the least depth, the halving rule being one of them).
std::string combination(const Tree& combined) {
  const std::size_t k = combined.leaf_count();
  if (combined == patterns::pairwise(k)) return "pairwise";
  if (combined == patterns::sequential(k)) return "sequentially";
  if (combined.max_arity() == 2 && combined.depth() == least_binary_depth(k)) return "pairwise";
  return combined.max_arity() == 2 ? "in a binary tree of depth " + std::to_string(combined.depth()) : "";
}

// K lanes strided: lane r adds x[r], x[r+K], ... one after the other (lanes r < n mod K have one
// summand more); the lane sums are then combined. K is read off leaf 0's partner; every lane's
// chain is then checked node by node and the tree above the lanes is described.
std::string lanes(const Tree& tree) {
  const std::size_t n = tree.leaf_count();
  const auto first_children = tree.children(tree.parent(0));
  if (first_children.size() != 2 || !tree.is_leaf(first_children[1]) || first_children[1] < 2) return "";
  const std::size_t k = first_children[1];
  std::vector<std::int64_t> lane_of_top(tree.node_count(), kNotFrontier);
  for (std::size_t r = 0; r < k; ++r) {
    NodeId sum = static_cast<NodeId>(r);
    for (std::size_t next = r + k; next < n; next += k) {
      const NodeId step = tree.parent(sum);
      if (step == kNoNode) return "";
      const auto children = tree.children(step);
      if (children.size() != 2 || (children[0] != next && children[1] != next)) return "";
      sum = step;
    }
    lane_of_top[sum] = static_cast<std::int64_t>(r);
  }
  const std::string combined = combination(tree_above(tree, tree.root(), lane_of_top, k));
  return combined.empty() ? "" : std::to_string(k) + " lanes strided, lanes combined " + combined;
}

// Blocks of B consecutive summands, each summed sequentially, the block sums added sequentially;
// the last block may be shorter unless `whole_blocks`. B is read off the chain from leaf 0.
std::string blocks(const Tree& tree, bool whole_blocks) {
  const std::size_t n = tree.leaf_count();
  NodeId node = tree.parent(0);
  while (node != tree.root() && tree.is_leaf(tree.children(node)[1])) node = tree.parent(node);
  if (tree.is_leaf(tree.children(node)[1])) return "";
  const std::size_t block = tree.leaves_under(tree.children(node)[0]);
  if (block < 2 || (whole_blocks && n % block != 0) || !(tree == patterns::blocked(n, block))) return "";
  // A last block of one summand is that summand added last: said so, as a tail is.
  const std::size_t last = n % block;
  return "blocks of " + std::to_string(block) + " summed sequentially, block sums added sequentially" +
         (last == 0   ? ""
          : last == 1 ? ", then the last summand added"
                      : ", the last block of " + std::to_string(last));
}

// A pattern that covers the whole binary tree.
std::string binary_pattern(const Tree& tree, bool whole_blocks) {
  const std::size_t n = tree.leaf_count();
  if (tree.depth() == n - 1) {
    if (tree == patterns::sequential(n)) return "sequential";
    if (tree == patterns::reverse(n)) return "reverse sequential";
  }
  if (tree.depth() == least_binary_depth(n) && tree == patterns::pairwise(n)) return "pairwise";
  std::string found = lanes(tree);
  if (found.empty()) found = blocks(tree, whole_blocks);
  return found;
}

// A kernel's main loop covers a prefix of the summands; the rest (the tail) is added after it:
// one by one to the result, or summed sequentially on its own and then added. The main loop's
// pattern is one of lanes and whole blocks.
std::string with_tail(const Tree& tree) {
  const std::size_t n = tree.leaf_count();
  NodeId core = tree.root();
  std::size_t tail = 0;
  std::string tail_words;
  while (!tree.is_leaf(core) && tree.is_leaf(tree.children(core)[1]) &&
         tree.children(core)[1] == tree.leaves_under(core) - 1) {
    core = tree.children(core)[0];
    ++tail;
  }
  if (tail > 0) {
    tail_words = tail == 1 ? "then the last summand added" : "then the last " + std::to_string(tail) + " summands added one by one";
  } else {
    const auto children = tree.children(core);
    if (children.size() != 2 || tree.is_leaf(children[1])) return "";
    const std::size_t prefix = tree.leaves_under(children[0]);
    tail = n - prefix;
    if (tail < 2 || tree.smallest_leaf(children[1]) != prefix ||
        !(subtree(tree, children[1], prefix, tail) == patterns::sequential(tail)))
      return "";
    core = children[0];
    tail_words = "the last " + std::to_string(tail) + " summed sequentially on their own, then added";
  }
  const std::size_t prefix = n - tail;
  if (tree.is_leaf(core) || prefix < 4) return "";
  const Tree main_loop = subtree(tree, core, 0, prefix);
  if (main_loop.empty()) return "";
  std::string found = lanes(main_loop);
  if (found.empty()) found = blocks(main_loop, true);
  return found.empty() ? "" : found + ", " + tail_words;
}

}  // namespace

std::string recognise_pattern(const Tree& tree) {
  const std::size_t n = tree.leaf_count();
  if (n == 1) return "single summand";
  if (tree.max_arity() == 2) {
    std::string found = binary_pattern(tree, false);
    if (found.empty()) found = with_tail(tree);
    return found;
  }
  if (tree.inner_count() == 1) return "one fused sum of " + std::to_string(n) + " summands";
  // Fused groups: the node above leaf 0 fuses the first group of leaves 0..w-1.
  const auto first_children = tree.children(tree.parent(0));
  const std::size_t width = first_children.size();
  if (width > 2 && tree.is_leaf(first_children.back()) && tree == patterns::fused_groups(n, width))
    return "fused groups of " + std::to_string(width);
  return "";
}

}  // namespace fprev::detail
