// Multi-pair proof probes: one target call proves many nodes of a known tree (the placement
// proof's cheaper form of confirm()'s proof, src/engine/confirm.cpp).
//
// A probe of confirm() carries one +M/-M pair and proves one node; for a binary tree that is n - 1
// calls, and no set of one-pair probes does with fewer than n - 2 (confirm.cpp). A multi-pair probe
// carries k pairs: pair r puts +M_r on one leaf and -M_r on another, with M_r = 2^(E - r) (distinct
// powers of two), and a unit on every other leaf. The probe reaches the target as a ProbeBatch
// whose probe carries pair 0 and whose further masks (ProbeBatch::extra_masks) carry the others:
// O(k) to set up, as cheap as a one-pair probe for targets that build inputs with ProbeVectors.
//
// The arithmetic model (confirm's, with the same guard): the target follows a fixed tree T' over
// the leaves; binary steps round to nearest in the accumulator (or wider), a fused step aligns to
// its largest term and truncates what falls below its precision. Split a node's exact value into
// its M-part (the signed sum of the masks below it) and its units. With k <= p (the accumulator's
// precision) every M-part is a multiple of 2^(E-k+1) below 2^(E+1) in magnitude: exact. With all n
// units below M_min = 2^(E-k+1) by the scheme's margin (p + guard bits more than log2 n), a unit sum
// meeting a nonzero M-part is absorbed. So by induction over T' a node's computed value is its
// M-part when some child's M-part is nonzero, else the exact count of its surviving units: a unit
// survives iff every ancestor of it in T' has only children of M-part zero. The output is the
// count of surviving units when the M-parts cancel at the root (they do: every pair is complete).
//
// The plan. Let h(v) be the height of node v (leaves 0). The binary inner nodes of one height are
// an antichain: their leaf sets are disjoint. A probe holds nodes of one height only; node v with
// children A (holding leaf i) and B (holding j) contributes the pair (i, j), its "region" is L(v).
// Each binary node sits in t >= 2 of V probes, no two nodes in the same t probes (the nodes of a
// height get distinct t-subsets of the V probes: a complete graph's edges for t = 2), or is
// measured alone as today; the pairs of fused nodes are measured alone as today.
//
// The proof, by induction over heights as confirm's part 1: suppose every cluster of T below
// height h is a cluster of T'. Take a probe P of nodes of height h; their children are below h, so
// for every pair r of P, A_r and B_r are clusters of T'.
//  (a) Every unit of every region L(v_r), r in P, is lost in T': A_r's only mask is M_r (regions
//      are disjoint), so the node A_r of T' has a child with M-part M_r != 0 and loses all its
//      units; likewise B_r. So the output is at most the prediction, n - sum |L(v_r)| units, which is
//      what T gives (in T a unit outside the regions meets only subtrees of M-part zero).
//  (b) If the output equals the prediction, then by (a) every unit outside the regions survives.
//      Let W = LCA_T'(i, j) for the pair (i, j) of node v_p in P. W contains A_p and B_p (clusters
//      holding i and j). The child D of W holding i does not hold j: its M-part is +-M_p plus +-M_r
//      of some other pairs r, never zero (distinct powers of two, coefficients -1, 0, 1). So every
//      unit below W is lost, and W holds no unit outside the regions of P: W lies inside the union
//      of P's regions.
//  (c) By (b) for each of the t probes holding v_p, W lies inside the union of that probe's
//      regions; regions of distinct nodes of one height are disjoint, so W lies inside the regions
//      of the nodes that are in all t probes. Only v_p is (another node's t probes are another
//      t-subset, which cannot contain v_p's), so W lies inside L(v_p); with W containing A_p and
//      B_p, W = L(v_p), a cluster of T'. A node measured alone gives the same by confirm's part 1.
// So every cluster of T of height h is one of T', and by induction all are; the fused nodes' pairs,
// measured alone, give confirm's part 2 (T' has no cluster T lacks); for a binary T part 2 is free.
// A passing multi-pair proof therefore means what a passing confirm() means: T' = T.
//
// Why t >= 2 probes per node: a single probe cannot see nodes of P trade children. If T' adds
// (A_p + A_q) and (B_p + B_q) where T adds (A_p + B_p) and (A_q + B_q), the same units are lost and
// the M-parts cancel as well; another probe of p, without q, has units on q's leaves, and A_p's
// mask absorbs them. tests/unit/engine/multi_pair_proof_test.cpp checks that dropping the second
// probe lets such a tree through.
//
// What it costs: a height with m binary nodes takes V calls instead of m, the fewest V for which
// the greedy design finds m distinct t-subsets (t <= 4) with at most 24 nodes a probe: 64 nodes in
// 9 calls (t = 3), 32 in 7, 300 in 25 (t = 2), wider heights m/12. Chains cap it: the nodes of one
// chain have distinct heights, so a tree of c chains (OpenBLAS sdot: 32 or 64 lanes) has about c
// nodes a height. Conditions (checked
// by multi_pair_scheme(), else the plain proof runs): a single-output target that takes further
// masks (TargetInfo::extra_masks), in the exact counting range, k <= p, every factor a normal
// number of the input format, the absorption margin for n units below M_min.
#include "multi_pair_proof.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <sstream>

#include "fprev/format.hpp"

namespace fprev::detail {

namespace {

// ceil(log2(max(n, 2))), as the mask scheme counts summands.
int summands_log2(std::size_t n) {
  const auto value = static_cast<std::uint64_t>(std::max<std::size_t>(n, 2));
  return static_cast<int>(std::bit_width(value - 1));
}

// At most this many pairs a probe.
constexpr std::size_t kMostPairs = 24;
// Nodes of one height shared out by one design (wider heights take several), and the most probes
// one node is in: enough for the best designs of up to 300 nodes with 24 pairs a probe.
constexpr std::size_t kMostNodesShared = 300;
constexpr std::size_t kMostProbesANode = 4;

// True when C(probes, t) >= m. C(probes - t + k, k) grows with k and is C(probes, t) at k = t: it
// stops as soon as it reaches m (no overflow).
bool enough_subsets(std::size_t probes, std::size_t t, std::size_t m) {
  std::size_t c = 1;
  for (std::size_t k = 1; k <= t; ++k) {
    c = c * (probes - t + k) / k;
    if (c >= m) return true;
  }
  return false;
}

}  // namespace

SummandValue MultiPairScheme::mask(std::size_t rank, bool positive) const {
  const double value = std::ldexp(positive ? 1.0 : -1.0, top_exponent - static_cast<int>(rank));
  return {value / unit.b, unit.b};
}

std::optional<MultiPairScheme> multi_pair_scheme(const TargetInfo& info, const MaskScheme& scheme) {
  const NumericTraits& traits = info.traits;
  if (!info.extra_masks || info.is_grid() || traits.summand == SummandKind::product_shared_rhs ||
      scheme.subnormal_factors || info.n < 4)
    return std::nullopt;
  const FormatInfo& input = format_info(traits.input);
  const FormatInfo& acc = format_info(traits.accumulator);
  const int guard = traits.fused_extra_bits + 2;  // the mask scheme's
  const int unit_b = std::ilogb(scheme.values.unit.b);
  MultiPairScheme pairs;
  pairs.unit = scheme.values.unit;
  // The largest mask as in the scheme (so the masks' sum stays finite), its factor a in range.
  pairs.top_exponent = std::min(scheme.mask_exponent, input.max_exponent + unit_b);
  std::size_t k = std::min<std::size_t>(kMostPairs, static_cast<std::size_t>(acc.precision));
  const auto fits = [&](std::size_t pairs_count) {
    const int smallest = pairs.top_exponent - static_cast<int>(pairs_count) + 1;
    const bool normal_factor = smallest - unit_b >= input.min_exponent;
    const bool absorbs = smallest - scheme.unit_exponent - acc.precision - guard >= summands_log2(info.n);
    return normal_factor && absorbs;
  };
  while (k >= 2 && !fits(k)) --k;
  if (k < 2) return std::nullopt;
  pairs.max_pairs = k;
  // Every factor used must be exact in the input format.
  for (std::size_t r = 0; r < k; ++r)
    for (bool positive : {true, false}) {
      const SummandValue m = pairs.mask(r, positive);
      if (round_to_format(m.a, traits.input) != m.a || round_to_format(m.b, traits.input) != m.b)
        return std::nullopt;
    }
  return pairs;
}

std::vector<std::vector<std::uint32_t>> shared_probe_design(std::size_t m, std::size_t max_pairs) {
  for (std::size_t probes = 3; probes < m; ++probes)
    for (std::size_t t = 2; t <= std::min<std::size_t>(kMostProbesANode, probes - 1); ++t) {
      if (m * t > probes * max_pairs || !enough_subsets(probes, t, m)) continue;
      // Greedy, in lexicographic order: take a t-subset when none of its probes is full.
      std::vector<std::vector<std::uint32_t>> design;
      std::vector<std::size_t> load(probes, 0);
      std::vector<std::uint32_t> subset(t);
      for (std::size_t k = 0; k < t; ++k) subset[k] = static_cast<std::uint32_t>(k);
      while (design.size() < m) {
        if (std::all_of(subset.begin(), subset.end(), [&](std::uint32_t v) { return load[v] < max_pairs; })) {
          design.push_back(subset);
          for (std::uint32_t v : subset) ++load[v];
        }
        // The next t-subset of {0, ..., probes - 1}, if any.
        std::size_t k = t;
        while (k > 0 && subset[k - 1] == probes - t + k - 1) --k;
        if (k == 0) break;
        ++subset[k - 1];
        for (std::size_t j = k; j < t; ++j) subset[j] = subset[j - 1] + 1;
      }
      if (design.size() == m) return design;
    }
  return {};
}

MultiPairPlan plan_multi_pair_proof(const Tree& tree, std::size_t max_pairs) {
  MultiPairPlan plan;
  const std::size_t n = tree.leaf_count();
  std::vector<std::uint32_t> height(tree.node_count(), 0);
  std::vector<std::vector<NodeId>> binary_at_height;
  for (auto v = static_cast<NodeId>(n); v < tree.node_count(); ++v) {  // children before parents
    const std::span<const NodeId> children = tree.children(v);
    for (NodeId c : children) height[v] = std::max(height[v], height[c] + 1);
    if (children.size() != 2) {
      for (std::size_t a = 0; a < children.size(); ++a)
        for (std::size_t b = a + 1; b < children.size(); ++b)
          plan.single_pairs.emplace_back(tree.smallest_leaf(children[a]), tree.smallest_leaf(children[b]));
      continue;
    }
    if (binary_at_height.size() <= height[v]) binary_at_height.resize(height[v] + 1);
    binary_at_height[height[v]].push_back(v);
  }
  const auto alone = [&](NodeId v) {
    const std::span<const NodeId> children = tree.children(v);
    plan.single_pairs.emplace_back(tree.smallest_leaf(children[0]), tree.smallest_leaf(children[1]));
  };
  // Heights of equal width share their design.
  std::map<std::size_t, std::vector<std::vector<std::uint32_t>>> designs;
  const std::size_t chunk = kMostNodesShared;
  for (const std::vector<NodeId>& nodes : binary_at_height) {
    for (std::size_t begin = 0; begin < nodes.size(); begin += chunk) {
      const std::size_t count = std::min(chunk, nodes.size() - begin);
      auto found = designs.find(count);
      if (found == designs.end()) found = designs.emplace(count, shared_probe_design(count, max_pairs)).first;
      const std::vector<std::vector<std::uint32_t>>& design = found->second;
      if (design.empty()) {  // sharing would not save a call
        for (std::size_t e = 0; e < count; ++e) alone(nodes[begin + e]);
        continue;
      }
      const std::size_t first = plan.probes.size();
      for (std::size_t e = 0; e < count; ++e)
        for (std::uint32_t probe : design[e]) {
          if (first + probe >= plan.probes.size()) plan.probes.resize(first + probe + 1);
          plan.probes[first + probe].push_back(nodes[begin + e]);
        }
      // A probe the greedy design left without nodes is no call.
      plan.probes.erase(std::remove_if(plan.probes.begin() + static_cast<std::ptrdiff_t>(first), plan.probes.end(),
                                       [](const std::vector<NodeId>& p) { return p.empty(); }),
                        plan.probes.end());
    }
  }
  return plan;
}

MultiPairProbes build_multi_pair_probes(const Tree& tree, const MultiPairPlan& plan, const MultiPairScheme& pairs) {
  MultiPairProbes built;
  // Pair 0 of every probe takes the batch's +-M_0; the others go as further masks.
  built.values.unit = pairs.unit;
  built.values.plus = pairs.mask(0, true);
  built.values.minus = pairs.mask(0, false);
  // Pair r's masks are the same in every probe: computed once (ldexp per mask was most of the
  // building's time on a long dot).
  std::vector<SummandValue> plus_mask(pairs.max_pairs), minus_mask(pairs.max_pairs);
  for (std::size_t r = 0; r < pairs.max_pairs; ++r) {
    plus_mask[r] = pairs.mask(r, true);
    minus_mask[r] = pairs.mask(r, false);
  }
  std::size_t extra_count = 0;
  for (const std::vector<NodeId>& nodes : plan.probes) extra_count += 2 * (nodes.size() - std::min<std::size_t>(1, nodes.size()));
  built.probes.reserve(plan.probes.size());
  built.extra_begin.reserve(plan.probes.size() + 1);
  built.extras.reserve(extra_count);
  built.predicted.reserve(plan.probes.size());
  const std::size_t n = tree.leaf_count();
  for (std::size_t k = 0; k < plan.probes.size(); ++k) {
    built.extra_begin.push_back(static_cast<std::uint32_t>(built.extras.size()));
    const std::vector<NodeId>& nodes = plan.probes[k];
    std::size_t lost = 0;
    for (std::size_t r = 0; r < nodes.size(); ++r) {
      const std::span<const NodeId> children = tree.children(nodes[r]);
      const std::uint32_t x = tree.smallest_leaf(children[0]), y = tree.smallest_leaf(children[1]);
      lost += tree.leaves_under(nodes[r]);
      // Orientation alternates, as confirm's one-pair probes do (rounding toward zero keeps
      // +M + u == M but not -M + u == -M).
      const bool plus_on_x = (r + k) % 2 == 0;
      if (r == 0) {
        built.probes.push_back({plus_on_x ? x : y, plus_on_x ? y : x, 0});
        continue;
      }
      built.extras.push_back({x, plus_on_x ? plus_mask[r] : minus_mask[r]});
      built.extras.push_back({y, plus_on_x ? minus_mask[r] : plus_mask[r]});
    }
    built.predicted.push_back(n - lost);
  }
  built.extra_begin.push_back(static_cast<std::uint32_t>(built.extras.size()));
  return built;
}

void measure_multi_pair_probes(ProbeSession& session, const Tree& tree, const MultiPairPlan& plan,
                               const MultiPairScheme& pairs, RevealStats& stats) {
  measure_multi_pair_probes(session, tree, plan, build_multi_pair_probes(tree, plan, pairs), stats);
}

void measure_multi_pair_probes(ProbeSession& session, const Tree& tree, const MultiPairPlan& plan,
                               const MultiPairProbes& built, RevealStats& stats) {
  const std::size_t n = tree.leaf_count();
  const std::vector<double> outputs =
      session.measure_with_extras(built.values, built.probes, built.extra_begin, built.extras);
  stats.multi_pair_probes += built.probes.size();
  for (std::size_t k = 0; k < plan.probes.size(); ++k) {
    const std::vector<NodeId>& nodes = plan.probes[k];
    const std::uint64_t predicted = built.predicted[k];
    const DecodedOutput got = decode_output(session.scheme(), outputs[k]);
    if (got.status == DecodeStatus::exact && got.count == predicted) continue;
    std::ostringstream os;
    os << "a proof probe with " << nodes.size() << " +M/-M pairs (leaves";
    for (std::size_t r = 0; r < nodes.size(); ++r) {
      const std::span<const NodeId> children = tree.children(nodes[r]);
      os << (r == 0 ? " " : ", ") << tree.smallest_leaf(children[0]) << "/" << tree.smallest_leaf(children[1]);
    }
    os << ") should keep " << predicted << " of its " << n - 2 * nodes.size() << " units but gave "
       << (got.status == DecodeStatus::exact ? std::to_string(got.count) + " units"
                                              : "output " + format_double(outputs[k]))
       << ": a node of the tree adding the parts of one of these leaf pairs (subtrees of";
    for (std::size_t r = 0; r < nodes.size(); ++r) os << (r == 0 ? " " : ", ") << tree.leaves_under(nodes[r]);
    os << " leaves) is not where the target adds them";
    fail(Finding::verification_failed, os.str(), {}, outputs[k],
         "the target adds these parts in another order than the tree (a changed order, or steps fused or "
         "split)");
  }
}

}  // namespace fprev::detail
