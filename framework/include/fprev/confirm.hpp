// Cheap check of a known tree (a golden): confirm() measures a set of probes proven to tell the
// tree apart from every other summation tree over the same leaves, instead of revealing the
// target's tree again. For a binary tree that is n - 1 probes, one per inner node; a fused node
// with k children costs k(k-1)/2 (every pair of its children), which no probe set can do without.
// The argument is written out in src/engine/confirm.cpp.
//
// What confirm() proves is what reveal() proves: the target's order, provided the target follows
// some fixed summation tree (checked as reveal checks it: determinism before, unchanged outputs
// after, every output decoded and validated, the fused-node test against value-dependent orders,
// bitwise simulation of random inputs where the arithmetic is modelled). A disagreement throws
// RevealFailure(verification_failed) naming the probe and the node of the tree it tested; run
// reveal() to see what the target does instead.
#pragma once

#include <cstddef>
#include <optional>
#include <cstdint>
#include <utility>
#include <vector>

#include "fprev/order_map.hpp"
#include "fprev/reveal.hpp"
#include "fprev/target.hpp"
#include "fprev/tree.hpp"

namespace fprev {

// The proof probe set of `tree`: for every inner node, the smallest leaves of its children taken
// in pairs (binary: the one pair; k children: all k(k-1)/2 pairs), each (smaller, larger).
std::vector<std::pair<std::uint32_t, std::uint32_t>> confirm_pairs(const Tree& tree);
// Its size: n - 1 for a binary tree, sum over inner nodes of k(k-1)/2 in general.
std::size_t count_confirm_probes(const Tree& tree);

// True when the target's output format counts every leaf exactly, so each proof probe reads the
// whole l(i,j) with every leaf active. Beyond that (the low-dynamic-range regime of Xie et al.,
// USENIX ATC 2025 Alg. 5, e.g. more than 2048 summands with a float16 output) a single-output
// target's proof counts within L(v) and one block of the leaves outside it at a time
// (src/engine/confirm.cpp), where that costs at most 4n probes; otherwise, and for grid targets,
// confirm() reveals the tree and compares it, at a reveal's cost.
bool confirmable(const TargetInfo& info);
// The probes confirm() measures to prove `tree` on a target described by `info`: the proof pairs
// (count_confirm_probes) in the exact counting range, the block-wise proof's beyond it; nullopt
// where confirm() would reveal instead (grid targets beyond the range, or a proof costing more
// than 4n probes).
std::optional<std::size_t> confirm_probe_count(const TargetInfo& info, const Tree& tree);

// Confirms that `target` follows `tree` (a grid target: every element). RevealStats::confirmed is
// set when the proof probes did it (confirmable targets). Throws RevealFailure when the target
// misbehaves or follows another tree.
RevealStats confirm(Target& target, const Tree& tree, const RevealOptions& options = {});
// The same for an order map: every element against its class's tree.
RevealStats confirm(Target& target, const OrderMap& map, const RevealOptions& options = {});

}  // namespace fprev
