// Constant-time lowest common ancestors for trees of millions of nodes.
//
// Nodes are laid out in pre-order. For u != v with pre(u) < pre(v), every node at pre-order
// positions (pre(u), pre(v)] lies below LCA(u, v), and the shallowest of them is a child of it, so
// LCA(u, v) = parent(shallowest node in that range). The range minimum is answered from
//   * per position p, a 64-bit mask of the positions q <= p of p's block whose depth is strictly
//     below every depth in (q, p]: the lowest such q at or after a is the minimum of [a, p];
//   * a sparse table over the blocks' minima for the whole blocks in between.
#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <utility>

#include "fprev/tree.hpp"

namespace fprev {
namespace {

constexpr std::uint32_t kBlock = 64;

}  // namespace

LcaIndex::LcaIndex(const Tree& tree) : tree_(&tree) {
  const std::size_t count = tree.node_count();
  if (count == 0) return;
  const std::size_t n = tree.leaf_count();

  // Subtree node counts, bottom-up: children always have smaller ids than their parent.
  std::vector<std::uint32_t> subtree(count, 1);
  for (std::size_t v = n; v < count; ++v) {
    for (NodeId child : tree.children(static_cast<NodeId>(v))) subtree[v] += subtree[child];
  }
  // Pre-order positions, top-down: a child starts right after its previous sibling's subtree.
  first_.assign(count, 0);
  for (std::size_t v = count; v-- > n;) {
    std::uint32_t position = first_[v] + 1;
    for (NodeId child : tree.children(static_cast<NodeId>(v))) {
      first_[child] = position;
      position += subtree[child];
    }
  }
  euler_.resize(count);
  depth_at_.resize(count);
  for (std::size_t v = 0; v < count; ++v) euler_[first_[v]] = static_cast<NodeId>(v);
  for (std::size_t p = 0; p < count; ++p) {
    depth_at_[p] = static_cast<std::uint32_t>(tree.node_depth(euler_[p]));
  }

  // In-block masks: a monotone stack of suffix minima, kept as bits.
  in_block_.resize(count);
  for (std::size_t start = 0; start < count; start += kBlock) {
    std::uint64_t stack = 0;
    const std::size_t end = std::min<std::size_t>(start + kBlock, count);
    for (std::size_t p = start; p < end; ++p) {
      while (stack != 0) {
        const int top = 63 - std::countl_zero(stack);
        if (depth_at_[start + static_cast<std::size_t>(top)] < depth_at_[p]) break;
        stack &= ~(std::uint64_t{1} << top);
      }
      stack |= std::uint64_t{1} << (p - start);
      in_block_[p] = stack;
    }
  }

  // Sparse table over the blocks' minima.
  const std::size_t blocks = (count + kBlock - 1) / kBlock;
  sparse_.emplace_back(blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t last = std::min<std::size_t>((b + 1) * kBlock, count) - 1;
    sparse_[0][b] = static_cast<std::uint32_t>(b * kBlock) +
                    static_cast<std::uint32_t>(std::countr_zero(in_block_[last]));
  }
  for (std::size_t width = 2; width <= blocks; width *= 2) {
    const std::vector<std::uint32_t>& below = sparse_.back();
    std::vector<std::uint32_t> level(blocks - width + 1);
    for (std::size_t b = 0; b < level.size(); ++b) {
      level[b] = shallower(below[b], below[b + width / 2]);
    }
    sparse_.push_back(std::move(level));
  }
}

std::uint32_t LcaIndex::argmin_in_block(std::uint32_t a, std::uint32_t b) const {
  const std::uint32_t start = b - b % kBlock;
  const std::uint64_t candidates = in_block_[b] & (~std::uint64_t{0} << (a - start));
  return start + static_cast<std::uint32_t>(std::countr_zero(candidates));
}

std::uint32_t LcaIndex::argmin(std::uint32_t a, std::uint32_t b) const {
  const std::uint32_t block_a = a / kBlock;
  const std::uint32_t block_b = b / kBlock;
  if (block_a == block_b) return argmin_in_block(a, b);
  std::uint32_t best =
      shallower(argmin_in_block(a, block_a * kBlock + kBlock - 1), argmin_in_block(block_b * kBlock, b));
  if (block_b - block_a > 1) {
    const std::uint32_t lo = block_a + 1;
    const std::uint32_t hi = block_b - 1;
    const int level = std::bit_width(hi - lo + 1) - 1;
    const std::vector<std::uint32_t>& table = sparse_[static_cast<std::size_t>(level)];
    best = shallower(best, shallower(table[lo], table[hi + 1 - (std::uint32_t{1} << level)]));
  }
  return best;
}

NodeId LcaIndex::lca(NodeId a, NodeId b) const {
  const std::size_t count = first_.size();
  if (a >= count || b >= count) {
    throw std::out_of_range("LcaIndex: node " + std::to_string(a >= count ? a : b) +
                            " does not exist (the tree has " + std::to_string(count) + " nodes)");
  }
  if (a == b) return a;
  std::uint32_t pa = first_[a];
  std::uint32_t pb = first_[b];
  if (pa > pb) std::swap(pa, pb);
  return tree_->parent(euler_[argmin(pa + 1, pb)]);
}

std::uint32_t LcaIndex::leaf_count(NodeId i, NodeId j) const {
  return tree_->leaves_under(lca(i, j));
}

}  // namespace fprev
