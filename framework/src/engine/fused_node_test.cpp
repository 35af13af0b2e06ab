// Fused node or value-dependent order?
//
// Masked probes cannot tell a fused w-term step from an order that sorts its terms by value: both
// make the masks meet last, so both reveal a w-child node (sorting a whole sum by magnitude reveals
// one node of n children). What tells them apart is rounding. A fused step aligns its terms to the
// largest one and adds them at once (Valpey et al., NFM 2025; Xie et al., USENIX ATC 2025 Sec. 5.2):
// when every term is a multiple of the largest term's unit in the last place (u = 2^(1-p) for terms
// in [1, 2)) and the exact sum is representable, nothing is shifted out whatever the alignment
// width, so the step returns the exact sum. An order that adds the terms one by one after sorting
// them rounds an intermediate sum:
//
//   terms          exact        added in the order               result
//   1+u, 1, -1.75  0.25+u       by increasing magnitude          (1 + (1+u)) = 2, then 0.25
//   1+u, 1, -0.75  1.25+u       by decreasing magnitude          ((1+u) + 1) = 2, then 1.25
//   -(1+u), -1, 1.25  -0.75-u   by increasing value              (-(1+u) + -1) = -2, then -0.75
//   1+u, 1, -1.25  0.75+u       by decreasing value              ((1+u) + 1) = 2, then 0.75
//
// (2 + u is a tie between 2 and 2 + 2u; round to nearest even gives 2.) Each pattern goes on three
// children of the node, one leaf per child, in three rotations; every other leaf is zero, so the
// children and every step above the node pass the values through exactly (x + 0 = x) and the output
// is the node's sum. A fixed tree must return the exact sum on every input; anything else is
// reported as value_dependent, with the input and the output observed.
//
// A fixed step narrower than the data (a matrix unit whose short accumulator aligns float64 terms to
// 27 bits, or float32 data rounded to TF32 on input) drops the low bit of 1 + u too, so it fails
// these patterns although its order is fixed. What tells it from a sort is what a fixed step cannot
// do: its result does not depend on which child carries which term, and it drops low bits the
// same way in every pattern, so one width explains everything. When an input fails, each pattern
// is run again with its low bit at 2^-k for every k (one rotation); the largest k every pattern
// keeps is the width, and fused_sum's model at that width (terms truncated to it, the sum rounded
// to nearest or toward zero) must give every output observed, in every rotation. A sort passes
// some patterns exactly where a narrow step fails them all, so it is still value_dependent. The
// width measured is reported (stats.fused_alignment_bits, and the fingerprint's
// fused-alignment-bits).
//
// The values need the input format to carry the accumulator's precision and the output format to
// show it (float32 and float64 sums, dots and GEMMs); where they cannot (fp16 inputs into float32
// accumulators), the test does not apply and fused nodes rest on the probes alone.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "checks.hpp"
#include "simulate_internal.hpp"

namespace fprev::detail {
namespace {

// Nodes tested per tree: the widest first, then spread over the tree.
constexpr std::size_t kMaxNodes = 6;

struct Pattern {
  double v[3];
  double exact;
  const char* order;  // the sorted order it exposes
};

// The patterns with their low bit at 2^-low: v[0] is +-(1 + 2^-low), the others are multiples of
// 1/4, so every pattern of the table below is one of these at low = p - 1.
struct Shape {
  double sign;
  double v1, v2;
  const char* order;
};
constexpr Shape kShapes[] = {
    {1, 1, -1.75, "increasing magnitude"},
    {1, 1, -0.75, "decreasing magnitude"},
    {-1, -1, 1.25, "increasing value"},
    {1, 1, -1.25, "decreasing value"},
};

struct Input {
  NodeId node;
  std::uint32_t leaves[3];
  double values[3];
  double exact;
  const char* order;
};

std::vector<std::vector<double>> run_inputs(const std::vector<Input>& inputs, std::size_t n, const NumericTraits& t,
                                            const FusedTestRunner& evaluate, RevealStats& stats) {
  std::vector<double> a(inputs.size() * n, 0.0);
  for (std::size_t k = 0; k < inputs.size(); ++k)
    for (std::size_t c = 0; c < 3; ++c) a[k * n + inputs[k].leaves[c]] = inputs[k].values[c];
  const std::vector<double> b(t.summand == SummandKind::plain ? 0 : n, 1.0);
  stats.fused_node_tests += inputs.size();
  return evaluate(inputs.size(), a, b);
}

// What a fixed fused step keeping `bits` bits from the largest term's leading bit returns (terms
// truncated to that grain, the exact sum of those rounded to the accumulator, to nearest or toward
// zero), as the output format shows it.
double narrow_step(const Input& in, const NumericTraits& t, int bits, bool truncate_result) {
  const int extra = bits - format_info(t.accumulator).precision;  // negative: narrower
  const double sum = fused_sum(std::span<const double>(in.values, 3), t.accumulator, extra, truncate_result);
  return round_to_format(sum, t.output);
}

// The width of a fixed fused step narrower than the data that explains every output of `failed`
// (the inputs the exact-sum test ran, `outputs` what they gave), measured on `node` with the
// patterns' low bit swept; nullopt when no single width does (a value-dependent order).
std::optional<int> narrow_width(const Tree& tree, NodeId node, const std::vector<Input>& tested,
                                const std::vector<std::vector<double>>& outputs, const TargetInfo& info,
                                const FusedTestRunner& evaluate, RevealStats& stats) {
  const NumericTraits& t = info.traits;
  const int p = format_info(t.accumulator).precision;
  const auto children = tree.children(node);
  std::vector<Input> sweep;
  for (const Shape& shape : kShapes)
    for (int low = 1; low <= p - 1; ++low) {
      const double v0 = shape.sign * (1 + std::ldexp(1.0, -low));
      sweep.push_back({node,
                       {tree.smallest_leaf(children[0]), tree.smallest_leaf(children[1]), tree.smallest_leaf(children[2])},
                       {v0, shape.v1, shape.v2},
                       v0 + shape.v1 + shape.v2,
                       shape.order});
    }
  const std::vector<std::vector<double>> swept = run_inputs(sweep, info.n, t, evaluate, stats);
  // The fraction bits kept: the largest `low` every pattern keeps exactly, from 1 up.
  int kept = p - 1;
  for (std::size_t k = 0; k < sweep.size(); ++k) {
    const int low = static_cast<int>(k % static_cast<std::size_t>(p - 1)) + 1;
    for (double out : swept[k])
      if (out != sweep[k].exact) kept = std::min(kept, low - 1);
  }
  if (kept < 2 || kept >= p - 1) return std::nullopt;  // keeps everything (or too little to tell)
  const int bits = kept + 1;  // with the leading bit
  for (const bool truncate_result : {false, true}) {
    const auto explains = [&](const std::vector<Input>& inputs, const std::vector<std::vector<double>>& seen) {
      for (std::size_t k = 0; k < inputs.size(); ++k)
        for (double out : seen[k])
          if (out != narrow_step(inputs[k], t, bits, truncate_result)) return false;
      return true;
    };
    if (explains(sweep, swept) && explains(tested, outputs)) return bits;
  }
  return std::nullopt;
}

std::vector<NodeId> nodes_to_test(const Tree& tree) {
  std::vector<NodeId> fused;
  for (NodeId v = static_cast<NodeId>(tree.leaf_count()); v < tree.node_count(); ++v)
    if (tree.children(v).size() >= 3) fused.push_back(v);
  if (fused.size() <= kMaxNodes) return fused;
  std::vector<NodeId> chosen;
  const auto widest = std::max_element(fused.begin(), fused.end(), [&](NodeId a, NodeId b) {
    return tree.children(a).size() < tree.children(b).size();
  });
  chosen.push_back(*widest);
  for (std::size_t k = 0; chosen.size() < kMaxNodes && k < kMaxNodes; ++k) {
    const NodeId v = fused[k * (fused.size() - 1) / (kMaxNodes - 1)];
    if (std::find(chosen.begin(), chosen.end(), v) == chosen.end()) chosen.push_back(v);
  }
  return chosen;
}

}  // namespace

void check_fused_nodes(const TargetInfo& info, const Tree& tree, const FusedTestRunner& evaluate,
                       RevealStats& stats, const std::string& where) {
  const std::vector<NodeId> nodes = nodes_to_test(tree);
  if (nodes.empty()) return;
  const NumericTraits& t = info.traits;
  const int p = format_info(t.accumulator).precision;
  if (format_info(t.input).precision < p || format_info(t.output).precision < p) return;
  const double u = std::ldexp(1.0, 1 - p);
  const Pattern patterns[] = {
      {{1 + u, 1, -1.75}, 0.25 + u, "increasing magnitude"},
      {{1 + u, 1, -0.75}, 1.25 + u, "decreasing magnitude"},
      {{-(1 + u), -1, 1.25}, -0.75 - u, "increasing value"},
      {{1 + u, 1, -1.25}, 0.75 + u, "decreasing value"},
  };
  const std::size_t n = info.n;
  std::vector<Input> inputs;
  for (NodeId node : nodes) {
    const auto children = tree.children(node);
    const std::uint32_t carriers[3] = {tree.smallest_leaf(children[0]),
                                       tree.smallest_leaf(children[1]),
                                       tree.smallest_leaf(children[2])};
    for (const Pattern& pattern : patterns)
      for (std::size_t rotation = 0; rotation < 3; ++rotation) {
        Input in{node, {}, {}, pattern.exact, pattern.order};
        for (std::size_t k = 0; k < 3; ++k) {
          in.leaves[k] = carriers[k];
          in.values[k] = pattern.v[(k + rotation) % 3];
        }
        inputs.push_back(in);
      }
  }
  const std::vector<std::vector<double>> outputs = run_inputs(inputs, n, t, evaluate, stats);
  std::optional<std::size_t> failed;
  for (std::size_t k = 0; k < inputs.size() && !failed; ++k)
    for (double out : outputs[k])
      if (out != inputs[k].exact) failed = k;
  if (!failed) return;
  // Every node tested must be the same narrow step; measured on the widest (nodes[0]).
  if (const auto bits = narrow_width(tree, nodes.front(), inputs, outputs, info, evaluate, stats)) {
    stats.fused_alignment_bits = *bits;
    return;
  }
  const Input& in = inputs[*failed];
  double out = 0.0;
  for (double o : outputs[*failed])
    if (o != in.exact) out = o;
  std::ostringstream os;
  os << "the tree has a fused " << tree.children(in.node).size() << "-term node over "
     << tree.leaves_under(in.node) << " leaves (from leaf " << tree.smallest_leaf(in.node)
     << "); a fixed fused step returns the exact sum " << format_double(in.exact)
     << " of the terms " << format_double(in.values[0]) << ", "
     << format_double(in.values[1]) << ", " << format_double(in.values[2]) << " (at leaves "
     << in.leaves[0] << ", " << in.leaves[1] << ", " << in.leaves[2]
     << ", zeros elsewhere), or one narrower than the data drops the same low bits in every pattern, but "
        "the target returned "
     << format_double(out) << where;
  fail(Finding::value_dependent, os.str(),
       "values " + format_double(in.values[0]) + ", " + format_double(in.values[1]) + ", " +
           format_double(in.values[2]) + " at leaves " + std::to_string(in.leaves[0]) + ", " +
           std::to_string(in.leaves[1]) + ", " + std::to_string(in.leaves[2]),
       out,
       std::string("the order depends on the values: an intermediate sum was rounded, as when "
                   "the terms are added one by one sorted by ") +
           in.order +
           " (a sort by magnitude makes the masks of every probe meet last, which looks like "
           "one wide fused node)");
}

}  // namespace fprev::detail
