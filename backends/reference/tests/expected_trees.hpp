// The summation tree each deterministic reference order must have, built straight from the order's
// definition (fprev/backends/reference.hpp) with TreeBuilder, never by running a kernel. The
// engine tests reuse this: every order must be revealed exactly as expected_reference_tree(spec).
// Header-only so any test executable can include it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fprev/backends/reference.hpp"
#include "fprev/tree.hpp"

namespace fprev {
namespace expected_trees_detail {

// Chains nodes[0..count) left to right: ((n0 + n1) + n2) + ...
inline NodeId chain(TreeBuilder& builder, const std::vector<NodeId>& nodes) {
  NodeId acc = nodes.front();
  for (std::size_t k = 1; k < nodes.size(); ++k) acc = builder.add_node({acc, nodes[k]});
  return acc;
}

// Pairwise over nodes[lo..hi): the left part has (hi - lo) / 2 nodes. Explicit work stack
// (post-order), so no recursion at all.
inline NodeId halve(TreeBuilder& builder, const std::vector<NodeId>& nodes) {
  struct Frame {
    std::size_t lo, hi;
    bool expanded;
  };
  std::vector<Frame> stack{{0, nodes.size(), false}};
  std::vector<NodeId> results;  // finished subtrees, in post-order
  while (!stack.empty()) {
    Frame frame = stack.back();
    stack.pop_back();
    const std::size_t count = frame.hi - frame.lo;
    if (count == 1) {
      results.push_back(nodes[frame.lo]);
    } else if (frame.expanded) {
      const NodeId right = results.back();
      results.pop_back();
      const NodeId left = results.back();
      results.pop_back();
      results.push_back(builder.add_node({left, right}));
    } else {
      const std::size_t mid = frame.lo + count / 2;
      stack.push_back({frame.lo, frame.hi, true});
      stack.push_back({mid, frame.hi, false});  // popped second: right after left
      stack.push_back({frame.lo, mid, false});
    }
  }
  return results.back();
}

inline std::vector<NodeId> leaves(std::size_t begin, std::size_t end, std::size_t step = 1) {
  std::vector<NodeId> out;
  for (std::size_t k = begin; k < end; k += step) out.push_back(static_cast<NodeId>(k));
  return out;
}

}  // namespace expected_trees_detail

// Throws std::invalid_argument for orders without a summation tree (has_summation_tree false).
inline Tree expected_reference_tree(const reference::ReferenceSpec& spec) {
  using reference::Order;
  namespace d = expected_trees_detail;
  const std::size_t n = spec.n;
  TreeBuilder builder(n);
  switch (spec.order) {
    case Order::sequential:
      d::chain(builder, d::leaves(0, n));
      break;
    case Order::reverse: {
      auto nodes = d::leaves(0, n);
      std::reverse(nodes.begin(), nodes.end());
      d::chain(builder, nodes);
      break;
    }
    case Order::pairwise:
      d::halve(builder, d::leaves(0, n));
      break;
    case Order::strided_pairwise:
    case Order::strided_sequential: {
      std::vector<NodeId> lane_sums;
      for (std::size_t r = 0; r < std::min(spec.lanes, n); ++r)
        lane_sums.push_back(d::chain(builder, d::leaves(r, n, spec.lanes)));
      if (spec.order == Order::strided_pairwise)
        d::halve(builder, lane_sums);
      else
        d::chain(builder, lane_sums);
      break;
    }
    case Order::blocked: {
      std::vector<NodeId> block_sums;
      for (std::size_t begin = 0; begin < n; begin += spec.block)
        block_sums.push_back(d::chain(builder, d::leaves(begin, std::min(n, begin + spec.block))));
      d::chain(builder, block_sums);
      break;
    }
    case Order::fused: {
      if (n == 1) break;
      std::size_t next = std::min(spec.width, n);
      NodeId acc = builder.add_node(d::leaves(0, next));
      while (next < n) {
        const std::size_t end = std::min(n, next + spec.width - 1);
        std::vector<NodeId> children{acc};
        for (NodeId leaf : d::leaves(next, end)) children.push_back(leaf);
        acc = builder.add_node(children);
        next = end;
      }
      break;
    }
    case Order::random_tree: {
      // The tree is defined by its merge list; a slot names the subtree currently held there.
      std::vector<NodeId> slot = d::leaves(0, n);
      for (const reference::Merge& m : reference::random_tree_merges(n, spec.seed))
        slot[m.into] = builder.add_node({slot[m.into], slot[m.from]});
      break;
    }
    default:
      throw std::invalid_argument("expected_reference_tree: order '" +
                                  std::string(reference::to_string(spec.order)) +
                                  "' has no summation tree");
  }
  return builder.build();
}

}  // namespace fprev
