#include "pattern_recognition.hpp"

#include <algorithm>
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

// The operands the running sum adds, bottom first: the spine from the root down the child that
// holds leaf 0 ends at leaf 0; each step's other child is an item. Empty for a non-binary spine.
std::vector<NodeId> spine_items(const Tree& tree) {
  std::vector<NodeId> items;
  NodeId node = tree.root();
  while (!tree.is_leaf(node)) {
    const auto children = tree.children(node);
    if (children.size() != 2) return {};
    items.push_back(children[1]);
    node = children[0];
  }
  return {items.rbegin(), items.rend()};
}

// Whether the subtree of `top` adds the leaves first .. first + count - 1 one after the other.
// O(count), no allocation: called for every block of a spine.
bool is_sequential_run(const Tree& tree, NodeId top, std::size_t first, std::size_t count) {
  NodeId node = top;
  for (std::size_t expected = first + count - 1; expected > first; --expected) {
    if (tree.is_leaf(node)) return false;
    const auto children = tree.children(node);
    if (children.size() != 2 || children[1] != expected) return false;
    node = children[0];
  }
  return node == first;
}

// "256, 256, 248 and 241"; "40 of 240 to 256" when there are many.
std::string sizes_text(const std::vector<std::size_t>& sizes) {
  if (sizes.size() > 6) {
    const auto [low, high] = std::minmax_element(sizes.begin(), sizes.end());
    return std::to_string(sizes.size()) + " of " + std::to_string(*low) + " to " + std::to_string(*high);
  }
  std::string text;
  for (std::size_t k = 0; k < sizes.size(); ++k)
    text += (k == 0 ? "" : k + 1 == sizes.size() ? " and " : ", ") + std::to_string(sizes[k]);
  return text;
}

// Blocks of consecutive summands of differing sizes, each summed sequentially, the block sums
// added sequentially: a GEMM's k split into its kernel's k-blocks (256, 256, then the rest halved).
// Summands added singly after the last block are the tail.
std::string uneven_blocks(const Tree& tree) {
  const std::vector<NodeId> items = spine_items(tree);
  if (items.empty()) return "";
  std::vector<std::size_t> sizes{1};  // the first block: leaf 0 and the leaves added to it
  std::size_t covered = 1, tail = 0;  // leaves in the blocks so far; single leaves after the last block
  for (const NodeId item : items) {
    if (tree.smallest_leaf(item) != covered + tail) return "";
    if (tree.is_leaf(item)) {
      if (sizes.size() == 1) {
        ++sizes[0];
        ++covered;
      } else {
        ++tail;
      }
      continue;
    }
    const std::size_t size = tree.leaves_under(item);
    if (tail != 0 || !is_sequential_run(tree, item, covered, size)) return "";
    sizes.push_back(size);
    covered += size;
  }
  if (sizes.size() < 2 || sizes[0] < 2) return "";
  return "blocks of " + sizes_text(sizes) + " summed sequentially, block sums added sequentially" +
         (tail == 0   ? ""
          : tail == 1 ? ", then the last summand added"
                      : ", then the last " + std::to_string(tail) + " summands added one by one");
}

std::string recognise_binary(const Tree& tree, int nesting);

// More parts than threads of a machine are not a thread split (and each costs a copy to compare).
constexpr std::size_t kMaxParts = 256;

// K parts of P consecutive summands with the same shape (threads, each with its share), each part
// summed in a recognised pattern, the part sums added sequentially.
std::string equal_parts(const Tree& tree, int nesting) {
  const std::size_t n = tree.leaf_count();
  const auto top = tree.children(tree.root());
  if (nesting <= 0 || top.size() != 2 || tree.is_leaf(top[1])) return "";
  const std::size_t part = tree.leaves_under(top[1]);
  if (part < 2 || n % part != 0) return "";
  const std::size_t count = n / part;
  if (count > kMaxParts) return "";
  // the spine down from the root: count - 1 parts, then the first part itself
  std::vector<NodeId> parts;
  NodeId node = tree.root();
  for (std::size_t k = 1; k < count; ++k) {
    const auto children = tree.children(node);
    if (children.size() != 2 || tree.is_leaf(children[1]) || tree.leaves_under(children[1]) != part) return "";
    parts.push_back(children[1]);
    node = children[0];
  }
  parts.push_back(node);
  const Tree first = subtree(tree, node, 0, part);
  if (first.empty()) return "";
  for (const NodeId other : parts)
    if (!(subtree(tree, other, tree.smallest_leaf(other), part) == first)) return "";
  const std::string each = recognise_binary(first, nesting - 1);
  if (each.empty()) return "";
  return std::to_string(count) + " parts of " + std::to_string(part) + " summands, each " + each +
         "; part sums added sequentially";
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
  std::string found;
  if (main_loop == patterns::pairwise(prefix)) found = "pairwise";
  if (found.empty()) found = lanes(main_loop);
  if (found.empty()) found = blocks(main_loop, true);
  // One vector of lanes, one summand each (a dot of 33 with 32 lanes): its lanes combined in pairs
  if (found.empty() && std::has_single_bit(prefix) && main_loop.depth() == least_binary_depth(prefix))
    found = std::to_string(prefix) + " lanes strided (one summand each), lanes combined pairwise";
  return found.empty() ? "" : found + ", " + tail_words;
}

// `tree` without its last leaf (n - 1): the node that added it becomes its other operand.
Tree without_last_leaf(const Tree& tree) {
  const std::size_t n = tree.leaf_count();
  const NodeId last = static_cast<NodeId>(n - 1);
  TreeBuilder builder(n - 1);
  std::vector<NodeId> built(tree.node_count(), kNoNode);
  std::vector<NodeId> children;
  for (NodeId node = 0; node < tree.node_count(); ++node) {  // children before parents (post-order)
    if (tree.is_leaf(node)) {
      built[node] = node == last ? kNoNode : node;
      continue;
    }
    children.clear();
    for (const NodeId child : tree.children(node))
      if (built[child] != kNoNode) children.push_back(built[child]);
    built[node] = children.size() == 1 ? children.front() : builder.add_node(children);
  }
  return builder.build();
}

// Whether the leaves under `node` are exactly first .. first + leaves_under(node) - 1.
bool covers_range(const Tree& tree, NodeId node) {
  const std::size_t first = tree.smallest_leaf(node), count = tree.leaves_under(node);
  std::vector<NodeId> stack{node};
  while (!stack.empty()) {
    const NodeId v = stack.back();
    stack.pop_back();
    if (tree.is_leaf(v) && (v < first || v >= first + count)) return false;
    if (!tree.is_leaf(v))
      for (const NodeId child : tree.children(v)) stack.push_back(child);
  }
  return true;
}

std::string recognise_once(const Tree& tree, int nesting) {
  std::string found = binary_pattern(tree, false);
  if (found.empty()) found = with_tail(tree);
  if (found.empty()) found = uneven_blocks(tree);
  if (found.empty()) found = equal_parts(tree, nesting);
  return found;
}

// The last summand joined early: GEMM's and GEMV's C (y) with beta = 1 is leaf n - 1, and kernels
// add it to their first partial sum rather than at the end. The rest is described without it.
std::string last_joins_early(const Tree& tree, int nesting) {
  const std::size_t n = tree.leaf_count();
  const NodeId last = static_cast<NodeId>(n - 1);
  const NodeId parent = tree.parent(last);
  if (n < 4 || parent == tree.root() || tree.children(parent).size() != 2) return "";
  const NodeId partner = tree.children(parent)[0] == last ? tree.children(parent)[1] : tree.children(parent)[0];
  if (!covers_range(tree, partner)) return "";
  const std::string rest = recognise_once(without_last_leaf(tree), nesting);
  if (rest.empty()) return "";
  const std::size_t first = tree.smallest_leaf(partner), count = tree.leaves_under(partner);
  return rest + "; summand " + std::to_string(last) + " (the last) added to " +
         (count == 1 ? "summand " + std::to_string(first)
                     : "the sum of summands " + std::to_string(first) + "-" + std::to_string(first + count - 1));
}

std::string recognise_binary(const Tree& tree, int nesting) {
  std::string found = recognise_once(tree, nesting);
  if (found.empty()) found = last_joins_early(tree, nesting);
  return found;
}

}  // namespace

std::string recognise_pattern(const Tree& tree) {
  const std::size_t n = tree.leaf_count();
  if (n == 1) return "single summand";
  if (tree.max_arity() == 2) return recognise_binary(tree, 1);
  if (tree.inner_count() == 1) return "one fused sum of " + std::to_string(n) + " summands";
  // Fused groups: the node above leaf 0 fuses the first group of leaves 0..w-1.
  const auto first_children = tree.children(tree.parent(0));
  const std::size_t width = first_children.size();
  if (width > 2 && tree.is_leaf(first_children.back()) && tree == patterns::fused_groups(n, width))
    return "fused groups of " + std::to_string(width);
  return "";
}

}  // namespace fprev::detail
