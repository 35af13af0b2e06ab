// Proof probes that carry several +M/-M pairs at once (the placement proof's cheaper form of
// confirm()'s proof; the argument is in multi_pair_proof.cpp and docs/alignment.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "fprev/mask_scheme.hpp"
#include "fprev/reveal.hpp"
#include "fprev/target.hpp"
#include "fprev/tree.hpp"
#include "probe_session.hpp"

namespace fprev::detail {

// The values of a multi-pair probe: every leaf a unit, except the masks. Pair r of a probe (r = 0,
// 1, ...) carries +-M_r = +-2^(top_exponent - r) (products: a = +-2^(top_exponent - r - unit_b),
// b = unit.b, so every leaf of every probe shares one b).
struct MultiPairScheme {
  SummandValue unit;
  int top_exponent = 0;
  std::size_t max_pairs = 0;  // pairs one probe may carry (>= 2)
  SummandValue mask(std::size_t rank, bool positive) const;
};

// The scheme for `info` (single-output, taking further masks, counting exactly), derived from the
// target's mask scheme; nullopt when the target or the formats leave no room for two pairs (then
// the proof is confirm()'s, one pair a probe).
std::optional<MultiPairScheme> multi_pair_scheme(const TargetInfo& info, const MaskScheme& scheme);

// The proof plan of a tree: the pairs measured alone (fused nodes' pairs, and nodes whose height
// has too few binary nodes to share) and the multi-pair probes, each a list of binary inner nodes
// of one height. Every binary node not measured alone is in t >= 2 probes, and no other node is in
// all of them; the nodes of a probe have disjoint leaf sets.
struct MultiPairPlan {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> single_pairs;
  std::vector<std::vector<NodeId>> probes;
};
MultiPairPlan plan_multi_pair_proof(const Tree& tree, std::size_t max_pairs);
// The probes of m nodes of one height (probe indices per node: distinct t-subsets, t >= 2, at most
// max_pairs nodes a probe, as few probes as the greedy design finds); empty when that would not
// take fewer calls than m.
std::vector<std::vector<std::uint32_t>> shared_probe_design(std::size_t m, std::size_t max_pairs);

// The plan's multi-pair probes as a target takes them (pair 0 on each probe's plus and minus
// leaves, the others as further masks, ProbeBatch::extra_masks) with the units each keeps in the
// tree: built once where the same proof is measured again (the placement proof, at every placement).
struct MultiPairProbes {
  ProbeValues values;
  std::vector<Probe> probes;
  std::vector<std::uint32_t> extra_begin;  // probes.size() + 1 entries
  std::vector<ExtraMask> extras;
  std::vector<std::uint64_t> predicted;  // units the tree keeps, per probe
};
MultiPairProbes build_multi_pair_probes(const Tree& tree, const MultiPairPlan& plan, const MultiPairScheme& pairs);

// Measures the plan's multi-pair probes on a single-output target and fails with
// verification_failed at the first whose output differs from the tree's prediction.
void measure_multi_pair_probes(ProbeSession& session, const Tree& tree, const MultiPairPlan& plan,
                               const MultiPairProbes& built, RevealStats& stats);
void measure_multi_pair_probes(ProbeSession& session, const Tree& tree, const MultiPairPlan& plan,
                               const MultiPairScheme& pairs, RevealStats& stats);

}  // namespace fprev::detail
