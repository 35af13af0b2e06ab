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
// The values need the input format to carry the accumulator's precision and the output format to
// show it (float32 and float64 sums, dots and GEMMs); where they cannot (fp16 inputs into float32
// accumulators), the test does not apply and fused nodes rest on the probes alone.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "checks.hpp"

namespace fprev::detail {
namespace {

// Nodes tested per tree: the widest first, then spread over the tree.
constexpr std::size_t kMaxNodes = 6;

struct Pattern {
  double v[3];
  double exact;
  const char* order;  // the sorted order it exposes
};

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
  struct Input {
    NodeId node;
    std::uint32_t leaves[3];
    double values[3];
    const Pattern* pattern;
  };
  std::vector<Input> inputs;
  for (NodeId node : nodes) {
    const auto children = tree.children(node);
    const std::uint32_t carriers[3] = {tree.smallest_leaf(children[0]),
                                       tree.smallest_leaf(children[1]),
                                       tree.smallest_leaf(children[2])};
    for (const Pattern& pattern : patterns)
      for (std::size_t rotation = 0; rotation < 3; ++rotation) {
        Input in{node, {}, {}, &pattern};
        for (std::size_t k = 0; k < 3; ++k) {
          in.leaves[k] = carriers[k];
          in.values[k] = pattern.v[(k + rotation) % 3];
        }
        inputs.push_back(in);
      }
  }
  std::vector<double> a(inputs.size() * n, 0.0);
  for (std::size_t k = 0; k < inputs.size(); ++k)
    for (std::size_t c = 0; c < 3; ++c) a[k * n + inputs[k].leaves[c]] = inputs[k].values[c];
  const std::vector<double> b(t.summand == SummandKind::plain ? 0 : n, 1.0);
  const std::vector<std::vector<double>> outputs = evaluate(inputs.size(), a, b);
  stats.fused_node_tests += inputs.size();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Input& in = inputs[k];
    for (double out : outputs[k]) {
      if (out == in.pattern->exact) continue;
      std::ostringstream os;
      os << "the tree has a fused " << tree.children(in.node).size() << "-term node over "
         << tree.leaves_under(in.node) << " leaves (from leaf " << tree.smallest_leaf(in.node)
         << "); a fixed fused step returns the exact sum " << format_double(in.pattern->exact)
         << " of the terms " << format_double(in.values[0]) << ", "
         << format_double(in.values[1]) << ", " << format_double(in.values[2]) << " (at leaves "
         << in.leaves[0] << ", " << in.leaves[1] << ", " << in.leaves[2]
         << ", zeros elsewhere), but the target returned " << format_double(out) << where;
      fail(Finding::value_dependent, os.str(),
           "values " + format_double(in.values[0]) + ", " + format_double(in.values[1]) + ", " +
               format_double(in.values[2]) + " at leaves " + std::to_string(in.leaves[0]) + ", " +
               std::to_string(in.leaves[1]) + ", " + std::to_string(in.leaves[2]),
           out,
           std::string("the order depends on the values: an intermediate sum was rounded, as when "
                       "the terms are added one by one sorted by ") +
               in.pattern->order +
               " (a sort by magnitude makes the masks of every probe meet last, which looks like "
               "one wide fused node)");
    }
  }
}

}  // namespace fprev::detail
