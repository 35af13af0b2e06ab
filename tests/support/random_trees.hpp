// Trees for tests: seeded random binary and multiway trees with random leaf labels, and the
// classic shapes (left-deep, right-deep, balanced pairwise). All builders are iterative and fine for
// millions of leaves; the same seed always gives the same tree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>

#include "fprev/tree.hpp"

namespace fprev {

// A random full binary tree with n >= 1 leaves. Each merge joins two random parts; per tree a
// random "chaining" bias makes some trees bushy and some long and thin, so depths vary widely.
Tree random_binary_tree(std::size_t n, std::mt19937_64& rng);
Tree random_binary_tree(std::size_t n, std::uint64_t seed);

// A random tree whose inner nodes have 2..max_arity children (max_arity >= 2), chosen at random
// per node; otherwise as random_binary_tree.
Tree random_multiway_tree(std::size_t n, std::size_t max_arity, std::mt19937_64& rng);
Tree random_multiway_tree(std::size_t n, std::size_t max_arity, std::uint64_t seed);

// Sequential sum a[0] + a[1] + ... : ((((0 1) 2) 3) ...). Depth n - 1.
Tree left_deep_tree(std::size_t n);
// Reverse sequential sum, a[n-1] + a[n-2] first: (0 (1 (2 ... (n-2 n-1)))). Depth n - 1.
Tree right_deep_tree(std::size_t n);
// Pairwise sum, level by level: adjacent parts are added in pairs ((0 1) (2 3)) ..., an odd part at
// the end of a level is carried up unchanged. Depth ceil(log2 n).
Tree balanced_tree(std::size_t n);
// A SIMD sum: k lanes strided (lane l adds l, l + k, l + 2k, ... in order), the lane sums then
// added pairwise as balanced_tree adds parts.
Tree lanes_tree(std::size_t n, std::size_t k);

// `tree` with leaves x and y trading places (every other leaf and every node as they were): a
// change of where two summands are added, e.g. the last two added in the other order.
Tree with_leaves_swapped(const Tree& tree, std::size_t x, std::size_t y);

}  // namespace fprev
