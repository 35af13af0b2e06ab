// Guessing a subtree from its sibling, then proving the guess (an extension of FPRev, Xie et al.,
// USENIX ATC 2025 Alg. 4, with the proof probe set of confirm.cpp).
//
// Real kernels repeat themselves: lanes that each add every L-th summand the same way, blocks
// combined pairwise, pairwise sums of powers of two. In Alg. 4 a sub-problem I with pivot i groups
// the other leaves by l(i,j); group J_l, when complete, is the sibling of r, the subtree built so far
// from i and the groups below l. In a repetitive kernel J_l is r again, shifted: the same shape over
// the same number of leaves, leaf k of r (in ascending order) standing for leaf k of J_l. Alg. 4
// still spends |J_l| - 1 probes on J_l, and as much again on each of its own sub-problems, so
// lanes combined pairwise cost about n(1 + log2(L) / 2) probes and a pairwise sum (n/2) log2 n.
//
// Instead, when |J_l| == |r| and r's shape is known, J_l's tree is guessed as r's shape moved onto
// J_l's leaves and tested with the guess's proof probe set (for every inner node, the smallest
// leaves of its children in pairs: |J_l| - 1 probes for a binary guess). confirm.cpp proves that
// when every proof probe measures the predicted l (every leaf active), the target's subtree over
// those leaves is exactly the guess: each guessed node is a cluster of the target's tree and the
// target has no cluster the guess lacks. The argument holds for any leaf set, not only for all n
// leaves: it speaks only of clusters holding the probed leaves. So a confirmed guess is as proven as
// a revealed subtree, and a J_l that is not a cluster at all (part of a fused node) fails its proof,
// because no node of the target has exactly J_l's leaves. A failed guess costs its probes and the
// group is revealed by Alg. 4 as usual: the tree never depends on a guess, only the probe count.
//
// Lanes combined pairwise then cost about 2n probes, a pairwise sum about 2n too; a sequential sum
// (every group a single leaf) is unchanged at n - 1.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "fprev/tree.hpp"

namespace fprev::detail {

// A subtree's shape as a post-order token stream: a token below kShapeNode is a leaf id; a token
// kShapeNode + k closes an inner node over the k subtrees before it.
inline constexpr std::uint32_t kShapeNode = 0x80000000u;

struct Shape {
  std::vector<std::uint32_t> tokens;
  std::uint32_t leaves = 0;

  static Shape leaf(std::uint32_t id) { return {{id}, 1}; }
  // This shape becomes the binary node (this, other).
  void pair_with(const Shape& other);
};

// `shape` moved onto `to` (ascending, as many leaves as the shape): its k-th smallest leaf becomes
// to[k].
Shape move_shape(const Shape& shape, std::span<const std::uint32_t> to);

// The proof probe set of `shape` (see confirm.cpp) with the l each probe must measure: the leaves
// under the node whose children the pair splits.
struct ShapeProof {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  std::vector<std::uint32_t> expected;
};
ShapeProof shape_proof(const Shape& shape);

// Adds the shape's inner nodes to `builder` (its leaves must be parentless there); returns its root.
NodeId build_shape(const Shape& shape, TreeBuilder& builder);

}  // namespace fprev::detail
