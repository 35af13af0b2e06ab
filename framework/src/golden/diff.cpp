// Semantic tree diff: clusters matched as intervals of the old tree's leaf order (Day's
// algorithm), differing regions found through the lowest agreeing ancestors, and subtrees printed
// with a length limit.
#include "fprev/diff.hpp"
#include "engine/checks.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <numeric>
#include <unordered_map>

namespace fprev {
namespace {

constexpr std::size_t kMinCollapsedLeaves = 4;  // smaller identical subtrees read better in full

// Inner nodes of `a` and `b` with the same cluster, in both directions (kNoNode: no match).
// Leaves map to themselves.
TreeMatching match_clusters(const Tree& old_tree, const Tree& new_tree) {
  const std::size_t n = old_tree.leaf_count();
  // Rank of every leaf in the old tree's left-to-right leaf order: each old cluster is then an
  // interval of ranks, and a new cluster is an old one exactly when its ranks form the same interval.
  std::vector<std::uint32_t> rank(n);
  {
    std::uint32_t next = 0;
    std::vector<NodeId> stack{old_tree.root()};
    while (!stack.empty()) {
      const NodeId node = stack.back();
      stack.pop_back();
      if (old_tree.is_leaf(node)) {
        rank[node] = next++;
        continue;
      }
      const auto children = old_tree.children(node);
      for (std::size_t i = children.size(); i-- > 0;) stack.push_back(children[i]);
    }
  }
  const auto interval_key = [](std::uint32_t lo, std::uint32_t hi) {
    return (static_cast<std::uint64_t>(lo) << 32) | hi;
  };
  // Children have smaller ids than their parents (post-order), so one ascending pass computes
  // every node's rank interval.
  const auto rank_intervals = [&](const Tree& tree) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> interval(tree.node_count());
    for (NodeId leaf = 0; leaf < n; ++leaf) interval[leaf] = {rank[leaf], rank[leaf]};
    for (NodeId node = static_cast<NodeId>(n); node < tree.node_count(); ++node) {
      auto& [lo, hi] = interval[node];
      lo = kNoNode;
      hi = 0;
      for (NodeId child : tree.children(node)) {
        lo = std::min(lo, interval[child].first);
        hi = std::max(hi, interval[child].second);
      }
    }
    return interval;
  };

  const auto old_intervals = rank_intervals(old_tree);
  std::unordered_map<std::uint64_t, NodeId> old_by_interval;
  old_by_interval.reserve(old_tree.inner_count());
  for (NodeId node = static_cast<NodeId>(n); node < old_tree.node_count(); ++node)
    old_by_interval.emplace(interval_key(old_intervals[node].first, old_intervals[node].second), node);

  TreeMatching matching;
  matching.new_to_old.assign(new_tree.node_count(), kNoNode);
  matching.old_to_new.assign(old_tree.node_count(), kNoNode);
  for (NodeId leaf = 0; leaf < n; ++leaf) matching.new_to_old[leaf] = matching.old_to_new[leaf] = leaf;
  const auto new_intervals = rank_intervals(new_tree);
  for (NodeId node = static_cast<NodeId>(n); node < new_tree.node_count(); ++node) {
    const auto [lo, hi] = new_intervals[node];
    if (hi - lo + 1 != new_tree.leaves_under(node)) continue;  // ranks not contiguous
    const auto it = old_by_interval.find(interval_key(lo, hi));
    if (it == old_by_interval.end()) continue;
    matching.new_to_old[node] = it->second;
    matching.old_to_new[it->second] = node;
  }
  return matching;
}

// identical[v]: every inner node of v's subtree (v included) has its cluster in the other tree.
std::vector<bool> all_clusters_matched(const Tree& tree, const std::vector<NodeId>& match) {
  std::vector<bool> identical(tree.node_count(), true);
  for (NodeId node = static_cast<NodeId>(tree.leaf_count()); node < tree.node_count(); ++node) {
    bool all = match[node] != kNoNode;
    for (NodeId child : tree.children(node)) all = all && identical[child];
    identical[node] = all;
  }
  return identical;
}

// For every node, its lowest proper ancestor whose cluster is in the other tree.
std::vector<NodeId> lowest_agreeing_ancestors(const Tree& tree, const std::vector<NodeId>& match) {
  std::vector<NodeId> result(tree.node_count(), kNoNode);
  for (std::size_t node = tree.node_count(); node-- > 0;) {  // parents before children
    const NodeId parent = tree.parent(static_cast<NodeId>(node));
    if (parent == kNoNode) continue;
    result[node] = match[parent] != kNoNode ? parent : result[parent];
  }
  return result;
}

// Per node: smallest and largest leaf, and the gcd of the differences between its leaves. A leaf
// set is an arithmetic progression (contiguous when the gcd is 1) exactly when it has
// (highest - lowest) / gcd + 1 leaves: all of them lie on that grid, so then they fill it.
struct LeafBounds {
  std::vector<std::uint32_t> lowest;
  std::vector<std::uint32_t> highest;
  std::vector<std::uint32_t> step;  // gcd of differences; 0 for a single leaf

  explicit LeafBounds(const Tree& tree)
      : lowest(tree.node_count()), highest(tree.node_count()), step(tree.node_count(), 0) {
    for (NodeId node = 0; node < tree.node_count(); ++node) {  // children before parents
      if (tree.is_leaf(node)) {
        lowest[node] = highest[node] = node;
        continue;
      }
      lowest[node] = tree.smallest_leaf(node);
      highest[node] = 0;
      std::uint32_t g = 0;
      for (NodeId child : tree.children(node)) {
        highest[node] = std::max(highest[node], highest[child]);
        g = std::gcd(g, std::gcd(step[child], lowest[child] - lowest[node]));
      }
      step[node] = g;
    }
  }

  bool is_progression(const Tree& tree, NodeId node) const {
    return tree.is_leaf(node) ||
           (highest[node] - lowest[node]) / step[node] + 1 == tree.leaves_under(node);
  }
};

// "{a,b}" for listed leaves, "{a,b..z}" with a range end. Built by appending: GCC 12 reports a
// false -Wrestrict inside libstdc++ for chains of std::string operator+ at -O3.
std::string braced(std::initializer_list<std::uint32_t> listed, std::optional<std::uint32_t> last = {}) {
  std::string out = "{";
  bool first = true;
  for (std::uint32_t leaf : listed) {
    if (!first) out += ',';
    first = false;
    out += std::to_string(leaf);
  }
  if (last) {
    out += "..";
    out += std::to_string(*last);
  }
  out += '}';
  return out;
}

// The leaf set of a subtree in compact form (format_leaf_set); progressions need no leaf list.
std::string leaf_set_text(const Tree& tree, NodeId node, const LeafBounds& bounds) {
  if (!bounds.is_progression(tree, node)) return format_leaf_set(detail::leaves_of(tree, node));
  const std::uint32_t low = bounds.lowest[node], high = bounds.highest[node];
  if (tree.is_leaf(node)) return braced({low});
  if (bounds.step[node] == 1) return braced({low}, {high});
  if (tree.leaves_under(node) == 2) return braced({low, high});
  return braced({low, low + bounds.step[node]}, {high});
}

struct Printed {
  std::string text;
  bool truncated = false;
  bool braces = false;  // some subtree is shown by its leaf set
};

// Prints subtrees of one tree: plain S-expressions, or with some subtrees shown by their leaf set.
class SubtreePrinter {
 public:
  // `identical`: the subtrees that are the same in both trees. Those whose leaf set is a
  // progression (short to write) may be shown by it.
  SubtreePrinter(const Tree& tree, std::vector<bool> identical, std::size_t max_chars)
      : tree_(tree), collapsible_(std::move(identical)), max_chars_(max_chars), bounds_(tree) {
    for (NodeId node = 0; node < tree.node_count(); ++node)
      collapsible_[node] = collapsible_[node] && bounds_.is_progression(tree, node);
  }

  // The most readable form of the subtree at `root` within max_chars: plain if it fits; else with
  // the subtrees identical in both trees collapsed; else, in addition, every subtree deeper than the
  // largest depth that fits collapsed; else cut with "...".
  Printed print(NodeId root) const {
    Printed plain = print_limited(root, false, kNoDepthLimit);
    if (!plain.truncated) return plain;
    Printed condensed = print_limited(root, true, kNoDepthLimit);
    if (!condensed.truncated) return condensed;
    // Binary search for the largest depth limit that fits (longer with depth, up to rare
    // exceptions, so the result is a good depth that fits, not always the largest).
    std::size_t fits = 0;
    std::size_t too_deep = tree_.depth() - tree_.node_depth(root) + 1;
    while (too_deep - fits > 1) {
      const std::size_t middle = fits + (too_deep - fits) / 2;
      if (print_limited(root, true, middle).truncated) {
        too_deep = middle;
      } else {
        fits = middle;
      }
    }
    if (fits == 0) return condensed.braces ? condensed : plain;
    return print_limited(root, true, fits);
  }

 private:
  static constexpr std::size_t kNoDepthLimit = static_cast<std::size_t>(-1);

  Printed print_limited(NodeId root, bool collapse_identical, std::size_t depth_limit) const {
    Printed printed;
    std::string& out = printed.text;
    const auto emit = [&](std::string_view token) {
      if (out.size() + token.size() > max_chars_) {
        printed.truncated = true;
        return false;
      }
      out += token;
      return true;
    };
    struct Frame {
      NodeId node;
      std::size_t next_child;
    };
    std::vector<Frame> stack{{root, 0}};  // the path from root: depth = stack size - 1
    while (!stack.empty()) {
      Frame& frame = stack.back();
      const NodeId node = frame.node;
      bool ok = true;
      if (tree_.is_leaf(node)) {
        ok = emit(std::to_string(node));
        stack.pop_back();
      } else if (node != root && frame.next_child == 0 &&
                 ((collapse_identical && collapsible_[node]) || stack.size() - 1 >= depth_limit)) {
        ok = emit(leaf_set_text(tree_, node, bounds_));
        printed.braces = true;
        stack.pop_back();
      } else {
        const auto children = tree_.children(node);
        if (frame.next_child == children.size()) {
          ok = emit(")");
          stack.pop_back();
        } else {
          ok = emit(frame.next_child == 0 ? "(" : " ");
          const NodeId child = children[frame.next_child++];
          stack.push_back({child, 0});
        }
      }
      if (!ok) {
        out += "...";
        break;
      }
    }
    return printed;
  }

  const Tree& tree_;
  std::vector<bool> collapsible_;
  std::size_t max_chars_;
  LeafBounds bounds_;
};

}  // namespace

TreeMatching match_trees(const Tree& old_tree, const Tree& new_tree) {
  if (old_tree.leaf_count() != new_tree.leaf_count())
    throw std::invalid_argument("match_trees: the trees have " + std::to_string(old_tree.leaf_count()) +
                                " and " + std::to_string(new_tree.leaf_count()) + " leaves");
  TreeMatching matching = match_clusters(old_tree, new_tree);
  // A subtree is identical in both trees when every cluster on each side is matched.
  const auto old_matched = all_clusters_matched(old_tree, matching.old_to_new);
  const auto new_matched = all_clusters_matched(new_tree, matching.new_to_old);
  matching.old_identical.assign(old_tree.node_count(), false);
  matching.new_identical.assign(new_tree.node_count(), false);
  for (NodeId node = 0; node < new_tree.node_count(); ++node) {
    const NodeId old_node = matching.new_to_old[node];
    if (old_node != kNoNode && new_matched[node] && old_matched[old_node])
      matching.new_identical[node] = matching.old_identical[old_node] = true;
  }
  return matching;
}

std::string format_leaf_set(const std::vector<std::uint32_t>& leaves) {
  if (leaves.empty()) return "{}";
  if (leaves.size() == 1) return braced({leaves[0]});
  const std::uint32_t step = leaves[1] - leaves[0];
  bool progression = true;
  for (std::size_t i = 2; i < leaves.size() && progression; ++i)
    progression = leaves[i] - leaves[i - 1] == step;
  if (progression && step == 1) return braced({leaves.front()}, {leaves.back()});
  if (progression && leaves.size() >= 3) return braced({leaves[0], leaves[1]}, {leaves.back()});
  constexpr std::size_t kListed = 6;
  std::string out = "{";
  for (std::size_t i = 0; i < std::min(leaves.size(), kListed); ++i) {
    if (i != 0) out += ',';
    out += std::to_string(leaves[i]);
  }
  if (leaves.size() > kListed) {
    out += ",...,";
    out += std::to_string(leaves.back());
    out += "; ";
    out += std::to_string(leaves.size());
    out += " leaves";
  }
  out += '}';
  return out;
}

TreeDiff diff_trees(const Tree& old_tree, const Tree& new_tree, const DiffOptions& options) {
  TreeDiff diff;
  diff.old_summary = summarize(old_tree);
  diff.new_summary = summarize(new_tree);
  diff.old_inner = old_tree.inner_count();
  diff.new_inner = new_tree.inner_count();
  if (old_tree.leaf_count() != new_tree.leaf_count()) {
    diff.comparable = false;
    diff.note = "not comparable: the old tree has " + std::to_string(old_tree.leaf_count()) +
                " leaves, the new tree " + std::to_string(new_tree.leaf_count());
    return diff;
  }
  if (old_tree == new_tree) {
    diff.equal = true;
    diff.agreeing_inner_nodes = diff.new_inner;
    return diff;
  }

  const TreeMatching matching = match_trees(old_tree, new_tree);
  const std::size_t n = new_tree.leaf_count();
  for (NodeId node = static_cast<NodeId>(n); node < new_tree.node_count(); ++node)
    if (matching.new_to_old[node] != kNoNode) ++diff.agreeing_inner_nodes;

  // Differing regions, as new-tree nodes.
  std::vector<bool> is_region(new_tree.node_count(), false);
  const auto new_laa = lowest_agreeing_ancestors(new_tree, matching.new_to_old);
  for (NodeId node = static_cast<NodeId>(n); node < new_tree.node_count(); ++node)
    if (matching.new_to_old[node] == kNoNode) is_region[new_laa[node]] = true;
  const auto old_laa = lowest_agreeing_ancestors(old_tree, matching.old_to_new);
  for (NodeId node = static_cast<NodeId>(n); node < old_tree.node_count(); ++node)
    if (matching.old_to_new[node] == kNoNode) is_region[matching.old_to_new[old_laa[node]]] = true;

  // Subtrees identical in both trees may be shown by their leaf set when printing.
  std::vector<bool> collapse_new(new_tree.node_count(), false);
  std::vector<bool> collapse_old(old_tree.node_count(), false);
  for (NodeId node = static_cast<NodeId>(n); node < new_tree.node_count(); ++node) {
    if (new_tree.leaves_under(node) >= kMinCollapsedLeaves && matching.new_identical[node])
      collapse_new[node] = collapse_old[matching.new_to_old[node]] = true;
  }
  const SubtreePrinter old_printer(old_tree, std::move(collapse_old), options.max_chars);
  const SubtreePrinter new_printer(new_tree, std::move(collapse_new), options.max_chars);

  for (NodeId node = static_cast<NodeId>(n); node < new_tree.node_count(); ++node) {
    if (!is_region[node]) continue;
    ++diff.difference_count;
    if (diff.differences.size() >= options.max_items) continue;
    DiffItem item;
    item.leaves = detail::leaves_of(new_tree, node);
    item.leaves_text = format_leaf_set(item.leaves);
    Printed old_text = old_printer.print(matching.new_to_old[node]);
    Printed new_text = new_printer.print(node);
    diff.condensed = diff.condensed || old_text.braces || new_text.braces;
    item.old_sexpr = std::move(old_text.text);
    item.new_sexpr = std::move(new_text.text);
    diff.differences.push_back(std::move(item));
  }
  return diff;
}

}  // namespace fprev
