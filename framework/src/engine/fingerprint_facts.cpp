// Arithmetic facts, each measured with inputs built to expose it (Valpey et al., "An SMT
// Formalization of Mixed-Precision Matrix Multiplication", NFM 2025, Sec. 4-6; Xie et al., USENIX
// ATC 2025, Sec. 5.2 and 8). The revealed tree places the values: a value at a leaf reaches the
// addition of interest unchanged (the other leaves are zero, and adding zero is exact), and a
// cancelling value placed under the parent turns what that addition kept into the output:
//
//   partial-sums  node v = (big + small), parent adds -big: the output is what v kept of small.
//                 small = big * 2^-g is kept exactly iff v keeps more than g bits, so the largest
//                 such g is v's precision minus one (a binary search where it is not the format's).
//   rounding      the same construction with small = 0.25, 0.5 and 0.75 ulp of the accumulator,
//                 for positive and negative big: each IEEE rounding gives its own residues.
//   products      (1 + 2^-h)^2 fused into an addition with -(1 + 2^-h): 2^-h if the product was
//                 rounded first, 2^-h + 2^-2h if it entered exactly (FMA, or wider partial sums).
//   subnormals    a subnormal input alone; two normals whose sum is subnormal.
//   fused nodes   2^j terms of big * 2^-(p-1+j) beside big survive iff the node keeps j extra
//                 bits; big - tiny and big + 0.75 ulp tell truncation of the terms from IEEE
//                 rounding of the exact sum. A node that keeps fewer bits than the data has (a
//                 short accumulator): big * 2^-g beside big survives iff it keeps g + 1 bits,
//                 fused-alignment-bits (only recorded for such nodes).
// Outputs are compared with what each hypothesis predicts after rounding to the output format; where
// two hypotheses predict the same output, the fact is "undetermined", never guessed.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "fingerprint_lab.hpp"

namespace fprev::detail {
namespace {

constexpr std::size_t kMaxNodesTested = 2048;    // additions tested for their precision
constexpr std::size_t kMaxNodesSearched = 256;   // of which searched for an unusual precision
constexpr std::size_t kMaxRoundingNodes = 32;    // additions whose rounding is measured
constexpr std::size_t kMaxProductNodes = 1024;   // additions tested for contracted products
constexpr std::size_t kMaxFusedNodes = 4;        // fused nodes measured

std::string precision_name(int bits, bool at_least) {
  std::string name;
  for (Format f : all_formats())
    if (format_info(f).precision == bits && f != Format::tf32 && f != Format::fp8_e5m2 &&
        f != Format::fp8_e4m3)
      name = std::string(to_string(f));
  if (bits == 64) name = "x87 extended";
  const std::string count = std::to_string(bits) + " bits";
  if (at_least) return "at least " + count;
  return name.empty() ? count : name;
}

// "3, 5..9, 12" for sorted leaves.
std::string ranges_text(std::vector<std::uint32_t> leaves) {
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  std::ostringstream os;
  for (std::size_t i = 0; i < leaves.size();) {
    std::size_t j = i;
    while (j + 1 < leaves.size() && leaves[j + 1] == leaves[j] + 1) ++j;
    if (i != 0) os << ", ";
    os << leaves[i];
    if (j > i) os << ".." << leaves[j];
    i = j + 1;
  }
  return os.str();
}

std::string node_name(const Tree& tree, NodeId node) {
  return "n" + std::to_string(tree.smallest_leaf(node)) + "." + std::to_string(tree.leaves_under(node));
}

// Where an addition is in the tree, for people: the leaves it adds directly, or its name.
void describe_place(const Tree& tree, NodeId node, std::vector<std::uint32_t>& leaves,
                    std::vector<std::string>& names) {
  bool any = false;
  for (NodeId c : tree.children(node))
    if (tree.is_leaf(c)) {
      leaves.push_back(c);
      any = true;
    }
  if (!any) names.push_back(node_name(tree, node));
}

// Groups per-node results: the most common value first, the others with their places.
std::string group_by_node(const Tree& tree, const std::vector<std::pair<NodeId, std::string>>& results,
                          std::size_t candidates) {
  if (results.empty()) return "";
  std::map<std::string, std::vector<NodeId>> by_value;
  for (const auto& [node, value] : results) by_value[value].push_back(node);
  std::string base;
  std::size_t most = 0;
  for (const auto& [value, nodes] : by_value)
    if (nodes.size() > most) {
      most = nodes.size();
      base = value;
    }
  std::string text = base;
  for (const auto& [value, nodes] : by_value) {
    if (value == base) continue;
    std::vector<std::uint32_t> leaves;
    std::vector<std::string> names;
    for (NodeId node : nodes) describe_place(tree, node, leaves, names);
    text += "; " + value + " at";
    if (!leaves.empty()) text += " leaves " + ranges_text(leaves);
    if (!names.empty()) {
      if (!leaves.empty()) text += " and";
      text += " " + std::to_string(names.size()) + (names.size() == 1 ? " node" : " nodes") + " (" + names[0];
      if (names.size() > 1) text += ", ...";
      text += ")";
    }
  }
  if (results.size() < candidates)
    text += " (" + std::to_string(results.size()) + " of " + std::to_string(candidates) + " additions tested)";
  return text;
}

// Up to `limit` of `nodes`, evenly spread (all when there are few).
std::vector<NodeId> spread(const std::vector<NodeId>& nodes, std::size_t limit) {
  if (nodes.size() <= limit) return nodes;
  std::vector<NodeId> picked;
  for (std::size_t i = 0; i < limit; ++i) picked.push_back(nodes[i * nodes.size() / limit]);
  return picked;
}

// A leaf under `node` (its smallest).
std::uint32_t leaf_under(const Tree& tree, NodeId node) { return tree.smallest_leaf(node); }

// A child of `node`'s parent other than `node`.
NodeId sibling(const Tree& tree, NodeId node) {
  for (NodeId c : tree.children(tree.parent(node)))
    if (c != node) return c;
  return kNoNode;
}

class FactLab {
 public:
  FactLab(Lab& lab, const Tree& tree)
      : lab_(lab), tree_(tree), t_(lab.info().traits), p_(format_info(t_.accumulator).precision) {
    const int top = std::min({format_info(t_.input).max_exponent, format_info(t_.accumulator).max_exponent,
                              format_info(t_.output).max_exponent});
    big_exponent_ = product() ? std::min(top - 2, 2 * format_info(t_.input).max_exponent - 4) : top - 2;
    if (!product()) big_exponent_ = std::min(big_exponent_, format_info(t_.input).max_exponent - 2);
    big_exponent_ = std::min(big_exponent_, 0 + p_ + 8);  // keep residues far from the bottom
    for (NodeId node = static_cast<NodeId>(tree.leaf_count()); node < tree.node_count(); ++node) {
      const auto children = tree.children(node);
      if (children.size() == 2) {
        binary_.push_back(node);
        if (node != tree.root()) testable_.push_back(node);
      } else if (node != tree.root()) {
        fused_.push_back(node);
      }
    }
  }

  bool product() const { return t_.summand != SummandKind::plain; }
  double out(double x) const { return round_to_format(x, t_.output); }

  // big at a leaf under one child of `node`, small under the other, -big under the parent.
  std::optional<std::size_t> residue_experiment(NodeId node, double big, double small) {
    const auto children = tree_.children(node);
    return lab_.add({{leaf_under(tree_, children[0]), big},
                     {leaf_under(tree_, children[1]), small},
                     {leaf_under(tree_, sibling(tree_, node)), -big}});
  }

  // The first pass of partial-sums: one input per addition, big + 0.75 ulp of the accumulator. An
  // addition of the accumulator's precision returns big or big + 1 ulp whatever its rounding (the
  // rounding experiments confirm the precision on a sample); anything else is searched for its
  // precision in finish_partial_sums.
  void queue_partial_sums(std::map<std::string, std::string>& facts) {
    if (testable_.empty()) return;
    big_ = std::ldexp(1.0, big_exponent_);
    // Largest g whose residue the formats carry exactly.
    g_max_ = 0;
    while (g_max_ < 400 && out(std::ldexp(big_, -(g_max_ + 1))) == std::ldexp(big_, -(g_max_ + 1)) &&
           lab_.split(std::ldexp(big_, -(g_max_ + 1))))
      ++g_max_;
    if (g_max_ < p_) {
      facts["partial-sums"] = "undetermined (the formats cannot carry a residue below the accumulator's precision)";
      return;
    }
    tested_ = spread(testable_, kMaxNodesTested);
    const double ulp = std::ldexp(big_, -(p_ - 1));
    first_.resize(tested_.size());
    for (std::size_t i = 0; i < tested_.size(); ++i) first_[i] = residue_experiment(tested_[i], big_, 0.75 * ulp);
  }

  void finish_partial_sums(std::map<std::string, std::string>& facts) {
    if (tested_.empty()) return;
    const double big = big_;
    const int g_max = g_max_;
    const auto kept = [&](std::optional<std::size_t> index, double small) {
      return index && lab_.output(*index) == out(small);
    };
    const double ulp = std::ldexp(big, -(p_ - 1));
    const std::vector<std::optional<std::size_t>>& first = first_;
    std::vector<std::size_t> unusual;
    precision_.assign(tested_.size(), p_);
    for (std::size_t i = 0; i < tested_.size(); ++i)
      if (!first[i] || (lab_.output(*first[i]) != out(ulp) && lab_.output(*first[i]) != 0.0)) unusual.push_back(i);
    // Binary search for the precision of the unusual additions: kept(g) holds for g < precision.
    const std::vector<std::size_t> searched =
        unusual.size() <= kMaxNodesSearched ? unusual : std::vector<std::size_t>(unusual.begin(), unusual.begin() + kMaxNodesSearched);
    std::vector<int> lo(searched.size(), 0), hi(searched.size(), g_max + 1);  // kept(lo) or lo == 0; !kept(hi)
    for (bool busy = true; busy;) {
      busy = false;
      std::vector<std::optional<std::size_t>> index(searched.size());
      for (std::size_t s = 0; s < searched.size(); ++s)
        if (hi[s] - lo[s] > 1) {
          const int g = (lo[s] + hi[s]) / 2;
          index[s] = residue_experiment(tested_[searched[s]], big, std::ldexp(big, -g));
          busy = true;
        }
      lab_.run();
      for (std::size_t s = 0; s < searched.size(); ++s)
        if (hi[s] - lo[s] > 1) {
          const int g = (lo[s] + hi[s]) / 2;
          (kept(index[s], std::ldexp(big, -g)) ? lo[s] : hi[s]) = g;
        }
    }
    std::vector<std::pair<NodeId, std::string>> results;
    for (std::size_t i = 0; i < tested_.size(); ++i) {
      const auto s = std::find(searched.begin(), searched.end(), i);
      std::string value = precision_name(p_, false);
      if (s != searched.end()) {
        const std::size_t k = static_cast<std::size_t>(s - searched.begin());
        precision_[i] = lo[k] + 1;
        value = lo[k] == 0 ? "no bits kept (unexplained)" : precision_name(lo[k] + 1, hi[k] > g_max);
      } else if (std::find(unusual.begin(), unusual.end(), i) != unusual.end()) {
        precision_[i] = 0;
        value = "not " + precision_name(p_, false) + " (not searched)";
      }
      results.emplace_back(tested_[i], value);
    }
    facts["partial-sums"] = group_by_node(tree_, results, testable_.size());
  }

  // The additions whose rounding is measured: a spread of the tested additions of the
  // accumulator's precision. Before the partial sums are known, every tested addition is assumed to
  // be of that precision (the usual case), so the rounding experiments share the first run;
  // finish_rounding measures what that guess missed.
  std::vector<NodeId> rounding_nodes(bool guess) const {
    std::vector<NodeId> nodes;
    for (std::size_t i = 0; i < tested_.size(); ++i)
      if (guess || precision_[i] == p_) nodes.push_back(tested_[i]);
    return spread(nodes, kMaxRoundingNodes);
  }

  void queue_rounding(const std::vector<NodeId>& nodes) {
    const double big = std::ldexp(1.0, big_exponent_);
    const double ulp = std::ldexp(big, -(p_ - 1));
    for (NodeId node : nodes) {
      if (rounding_index_.count(node) != 0) continue;
      std::vector<std::optional<std::size_t>>& index = rounding_index_[node];
      for (const RoundingCase& c : rounding_cases(big, ulp)) index.push_back(residue_experiment(node, c.big, c.small));
    }
  }

  struct RoundingCase {
    double big, small;
    double residue[5];  // nearest-even, nearest-away, toward-zero, downward, upward
  };
  static std::vector<RoundingCase> rounding_cases(double big, double ulp) {
    return {
        {big, ulp, {ulp, ulp, ulp, ulp, ulp}},  // kept by any addition of the accumulator's precision
        {big, 0.75 * ulp, {ulp, ulp, 0, 0, ulp}},
        {big, 0.25 * ulp, {0, 0, 0, 0, ulp}},
        {big, 0.5 * ulp, {0, ulp, 0, 0, ulp}},
        {-big, -0.75 * ulp, {-ulp, -ulp, 0, -ulp, 0}},
        {-big, -0.5 * ulp, {0, -ulp, 0, -ulp, 0}},
    };
  }

  void finish_rounding(std::map<std::string, std::string>& facts) {
    const std::vector<NodeId> nodes = rounding_nodes(false);
    if (nodes.empty()) return;
    bool missing_any = false;
    for (NodeId node : nodes) missing_any = missing_any || rounding_index_.count(node) == 0;
    if (missing_any) {
      queue_rounding(nodes);
      lab_.run();
    }
    const double big = std::ldexp(1.0, big_exponent_);
    const double ulp = std::ldexp(big, -(p_ - 1));
    const std::vector<RoundingCase> cases = rounding_cases(big, ulp);
    const char* modes[] = {"nearest-even", "nearest-away", "toward-zero", "downward", "upward"};
    std::vector<std::pair<NodeId, std::string>> results;
    for (NodeId node : nodes) {
      const std::vector<std::optional<std::size_t>>& index = rounding_index_.at(node);
      std::vector<std::string> matching;
      bool missing = false;
      for (int m = 0; m < 5; ++m) {
        bool all = true;
        for (std::size_t c = 0; c < cases.size(); ++c) {
          if (!index[c]) { missing = true; all = false; break; }
          if (lab_.output(*index[c]) != out(cases[c].residue[m])) all = false;
        }
        if (all) matching.push_back(modes[m]);
      }
      std::string value;
      if (missing) value = "undetermined (the input format cannot hold the test values)";
      else if (matching.empty()) value = "unexplained (no IEEE rounding gives these residues)";
      else if (matching.size() == 1) value = matching[0];
      else {
        value = "undetermined (one of";
        for (const auto& m : matching) value += " " + m;
        value += ")";
      }
      results.emplace_back(node, value);
    }
    facts["rounding"] = group_by_node(tree_, results, results.size());
  }

  void queue_products(std::map<std::string, std::string>& facts) {
    if (!product()) return;
    const int p_in = format_info(t_.input).precision;
    if (2 * p_in <= p_) {
      facts["products"] = "exact (every product of two inputs fits the accumulator)";
      return;
    }
    const int h = (p_ + 1) / 2;
    if (h > p_in - 1) {
      facts["products"] = "undetermined (the input format cannot hold the test factors)";
      return;
    }
    const double factor = 1.0 + std::ldexp(1.0, -h);
    product_rounded_ = out(std::ldexp(1.0, -h));
    product_exact_ = out(std::ldexp(1.0, -h) + std::ldexp(1.0, -2 * h));
    if (product_rounded_ == product_exact_) {
      facts["products"] = "undetermined (the output format cannot tell the residues apart)";
      return;
    }
    std::vector<NodeId> nodes;
    for (NodeId node : binary_) {
      const auto children = tree_.children(node);
      if (tree_.is_leaf(children[0]) || tree_.is_leaf(children[1])) nodes.push_back(node);
    }
    product_candidates_ = nodes.size();
    if (nodes.empty()) {
      facts["products"] = "undetermined (no addition of two products)";
      return;
    }
    product_nodes_ = spread(nodes, kMaxProductNodes);
    // Per node, the product that may be fused is a leaf child; its partner is any leaf of the other
    // child. With two leaf children either may enter first: both placements are tried.
    product_index_.assign(product_nodes_.size(), {});
    for (std::size_t i = 0; i < product_nodes_.size(); ++i) {
      const auto children = tree_.children(product_nodes_[i]);
      for (int side = 0; side < 2; ++side) {
        const NodeId k = children[side], other = children[1 - side];
        if (!tree_.is_leaf(k)) continue;
        product_index_[i].push_back(lab_.add_factors({{k, factor}, {leaf_under(tree_, other), -1.0}}, factor));
      }
    }
  }

  // After finish_partial_sums: an exact product entering a wider partial sum is no contraction.
  void finish_products(std::map<std::string, std::string>& facts) {
    if (product_nodes_.empty()) return;
    std::vector<std::pair<NodeId, std::string>> results;
    for (std::size_t i = 0; i < product_nodes_.size(); ++i) {
      bool any_exact = false, all_known = true;
      for (std::size_t idx : product_index_[i]) {
        const double o = lab_.output(idx);
        if (o == product_exact_) any_exact = true;
        else if (o != product_rounded_) all_known = false;
      }
      std::string value = any_exact ? "not rounded (contracted, FMA)" : all_known ? "rounded" : "unexplained";
      if (any_exact) {
        // Entering exactly into a wider partial sum is not a contraction.
        const auto t = std::find(tested_.begin(), tested_.end(), product_nodes_[i]);
        if (t != tested_.end() && precision_[static_cast<std::size_t>(t - tested_.begin())] > p_)
          value = "not rounded (kept in the wider partial sum)";
      }
      results.emplace_back(product_nodes_[i], value);
    }
    facts["products"] = group_by_node(tree_, results, product_candidates_);
  }

  void queue_subnormals() {
    const FormatInfo& in = format_info(t_.input);
    const FormatInfo& acc = format_info(t_.accumulator);
    tiny_input_ = std::ldexp(1.0, in.min_exponent - 1);  // a subnormal of the input
    subnormal_input_test_ = lab_.add({{0, tiny_input_}});
    min_normal_ = std::ldexp(1.0, acc.min_exponent);
    if (tree_.leaf_count() >= 2) subnormal_result_test_ = lab_.add({{0, 1.5 * min_normal_}, {1, -min_normal_}});
  }

  void finish_subnormals(std::map<std::string, std::string>& facts) const {
    const auto verdict = [&](std::optional<std::size_t> index, double value) -> std::string {
      const double kept = out(round_to_format(value, t_.accumulator));
      if (!index) return "undetermined (the input format cannot hold the test values)";
      if (kept == 0.0) return "undetermined (the output format cannot hold the test values)";
      const double o = lab_.output(*index);
      if (o == kept) return "kept";
      if (o == 0.0) return "flushed to zero";
      return "unexplained";
    };
    facts["subnormal-inputs"] = verdict(subnormal_input_test_, tiny_input_);
    facts["subnormal-results"] = tree_.leaf_count() < 2 ? "undetermined (a single summand)"
                                                        : verdict(subnormal_result_test_, 0.5 * min_normal_);
  }

  void fused(std::map<std::string, std::string>& facts) {
    const std::vector<NodeId> nodes = spread(fused_, kMaxFusedNodes);
    if (nodes.empty()) return;
    const int e = std::min(big_exponent_, format_info(t_.output).max_exponent - 2);
    const double big = std::ldexp(1.0, e), ulp = std::ldexp(big, -(p_ - 1));
    if (out(ulp) != ulp) {
      facts["fused-extra-bits"] = "undetermined (the output format cannot hold the residues)";
      return;
    }
    std::vector<std::pair<NodeId, std::string>> bits, alignment;
    for (NodeId node : nodes) {
      const auto children = tree_.children(node);
      const std::uint32_t cancel = leaf_under(tree_, sibling(tree_, node));
      std::vector<std::optional<std::size_t>> index;
      int max_j = 0;
      while ((std::size_t{1} << (max_j + 1)) + 1 <= children.size()) ++max_j;
      for (int j = 1; j <= max_j; ++j) {
        std::vector<LeafValue> values{{leaf_under(tree_, children[0]), big}, {cancel, -big}};
        for (std::size_t c = 1; c <= (std::size_t{1} << j); ++c)
          values.push_back({leaf_under(tree_, children[c]), std::ldexp(big, -(p_ - 1 + j))});
        index.push_back(lab_.add(values));
      }
      const double tiny = std::ldexp(big, -(p_ + 10));
      const auto below = lab_.add({{leaf_under(tree_, children[0]), big}, {leaf_under(tree_, children[1]), -tiny}, {cancel, -big}});
      const auto above = lab_.add({{leaf_under(tree_, children[0]), big}, {leaf_under(tree_, children[1]), 0.75 * ulp}, {cancel, -big}});
      // big + big + ulp + 2 ulp = 2 big + 3 ulp lies in the next binade, whose ulp is 2 ulp: 1.5 of
      // its ulps above 2 big, it tells the final normalisation's rounding apart (to nearest: 2 big +
      // 4 ulp; truncation: 2 big + 2 ulp) whatever the extra bits. Needs a node of 4 terms.
      std::optional<std::size_t> carry;
      if (children.size() >= 4)
        carry = lab_.add({{leaf_under(tree_, children[0]), big}, {leaf_under(tree_, children[1]), big},
                          {leaf_under(tree_, children[2]), ulp}, {leaf_under(tree_, children[3]), 2 * ulp},
                          {cancel, -2 * big}});
      lab_.run();
      int kept = 0;
      std::string value;
      for (int j = 1; j <= max_j; ++j) {
        const auto& idx = index[static_cast<std::size_t>(j - 1)];
        if (!idx) { value = "undetermined (the input format cannot hold the test values)"; break; }
        const double o = lab_.output(*idx);
        if (o == ulp && kept == j - 1) kept = j;
        else if (o != 0.0 && o != ulp) { value = "unexplained"; break; }
      }
      if (value.empty()) value = kept == max_j ? "at least " + std::to_string(kept) : std::to_string(kept);
      bits.emplace_back(node, value);
      std::string align;
      if (!below || !above || !carry) {
        align = "undetermined (the input format cannot hold the test values)";
      } else {
        const double b = lab_.output(*below), a = lab_.output(*above), c = lab_.output(*carry);
        const double half_below = out(-std::ldexp(big, -p_));
        const bool truncated = c == out(2 * ulp), nearest = c == out(4 * ulp);
        if (b == 0.0 && a == 0.0 && truncated) align = "terms truncated, sum truncated";
        else if (b == 0.0 && a == 0.0 && nearest) align = "terms truncated, sum rounded to nearest";
        else if (b == half_below && a == 0.0 && truncated) align = "exact sum rounded toward zero";
        else if (b == 0.0 && a == out(ulp) && nearest) align = "exact sum rounded to nearest";
        else align = "unexplained";
      }
      alignment.emplace_back(node, align);
    }
    facts["fused-extra-bits"] = group_by_node(tree_, bits, fused_.size());
    facts["fused-alignment"] = group_by_node(tree_, alignment, fused_.size());
    narrow_fused(nodes, bits, big, facts);
  }

  // Fused nodes that keep no extra bit may keep fewer bits than the data has (a short accumulator,
  // TF32 rounding on input): big + big * 2^-g beside -big shows what the node kept of big * 2^-g,
  // for g up to p - 1. Measured (a second batch) only for those nodes, and recorded only when some
  // node is narrower, so the facts of every other target stay as they were.
  void narrow_fused(const std::vector<NodeId>& nodes, const std::vector<std::pair<NodeId, std::string>>& bits,
                    double big, std::map<std::string, std::string>& facts) {
    std::vector<std::pair<NodeId, std::vector<std::optional<std::size_t>>>> sweeps;
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      if (bits[k].second != "0") continue;
      const NodeId node = nodes[k];
      const auto children = tree_.children(node);
      const std::uint32_t cancel = leaf_under(tree_, sibling(tree_, node));
      std::vector<std::optional<std::size_t>> index;
      for (int g = 1; g <= p_ - 1; ++g)
        index.push_back(lab_.add({{leaf_under(tree_, children[0]), big},
                                  {leaf_under(tree_, children[1]), std::ldexp(big, -g)},
                                  {cancel, -big}}));
      sweeps.emplace_back(node, std::move(index));
    }
    if (sweeps.empty()) return;
    lab_.run();
    std::vector<std::pair<NodeId, std::string>> widths;
    bool narrower = false;
    for (const auto& [node, index] : sweeps) {
      int kept = 0;  // fraction bits kept: 2^-g survives for every g <= kept
      for (int g = 1; g <= p_ - 1; ++g) {
        const auto& idx = index[static_cast<std::size_t>(g - 1)];
        if (!idx || lab_.output(*idx) != out(std::ldexp(big, -g))) break;
        kept = g;
      }
      narrower = narrower || kept < p_ - 1;
      widths.emplace_back(node, std::to_string(kept + 1));
    }
    if (narrower) facts["fused-alignment-bits"] = group_by_node(tree_, widths, fused_.size());
  }

  std::optional<FactModel> model(const std::map<std::string, std::string>& facts, std::string& why_not) const {
    FactModel m;
    m.node_format.assign(tree_.node_count(), t_.accumulator);
    for (std::size_t i = 0; i < tested_.size(); ++i) {
      if (precision_[i] == p_) continue;
      bool found = false;
      for (Format f : {Format::float64, Format::float32, Format::float16, Format::bfloat16})
        if (format_info(f).precision == precision_[i]) {
          m.node_format[tested_[i]] = f;
          found = true;
        }
      if (!found) {
        why_not = "partial sums of " + std::to_string(precision_[i]) + " bits";
        return std::nullopt;
      }
    }
    const auto fact = [&](const char* name) {
      const auto it = facts.find(name);
      return it == facts.end() ? std::string() : it->second;
    };
    const std::string rounding = fact("rounding");
    if (rounding == "toward-zero") m.round_toward_zero = true;
    else if (!rounding.empty() && rounding != "nearest-even") {
      why_not = "rounding " + rounding;
      return std::nullopt;
    }
    const std::string products = fact("products");
    if (products == "not rounded (contracted, FMA)") m.products = FactModel::Products::contracted;
    else if (products.starts_with("exact") || products == "not rounded (kept in the wider partial sum)")
      m.products = FactModel::Products::exact;
    else if (!products.empty() && products != "rounded") {
      why_not = "products " + products;
      return std::nullopt;
    }
    for (const char* name : {"subnormal-inputs", "subnormal-results"})
      if (fact(name) == "flushed to zero") {
        why_not = std::string(name) + " flushed to zero";
        return std::nullopt;
      }
    if (!fused_.empty()) {
      // The value without a "(k of m additions tested)" remark.
      const auto value_of = [&](const char* name) {
        const std::string v = fact(name);
        return v.ends_with("additions tested)") ? v.substr(0, v.rfind(" (")) : v;
      };
      const std::string bits = value_of("fused-extra-bits"), alignment = value_of("fused-alignment");
      if (!alignment.starts_with("terms truncated, sum ") || bits.empty() ||
          bits.find_first_not_of("0123456789") != std::string::npos) {
        why_not = "fused nodes with extra bits '" + bits + "', alignment '" + alignment + "'";
        return std::nullopt;
      }
      m.fused_extra_bits = std::stoi(bits);
      m.fused_truncates = alignment == "terms truncated, sum truncated";
    }
    return m;
  }

 private:
  Lab& lab_;
  const Tree& tree_;
  const NumericTraits& t_;
  int p_;
  int big_exponent_ = 0;
  std::vector<NodeId> binary_, testable_, fused_;
  std::vector<NodeId> tested_;  // binary non-root additions whose precision was measured
  std::vector<int> precision_;  // per tested_ entry (0: unusual, not searched)
  // Experiments queued for the first run (finish_* reads them).
  double big_ = 0.0;
  int g_max_ = 0;
  std::vector<std::optional<std::size_t>> first_;  // partial-sums, per tested_ entry
  std::map<NodeId, std::vector<std::optional<std::size_t>>> rounding_index_;  // per case
  std::vector<NodeId> product_nodes_;
  std::vector<std::vector<std::size_t>> product_index_;
  std::size_t product_candidates_ = 0;
  double product_rounded_ = 0.0, product_exact_ = 0.0;
  double tiny_input_ = 0.0, min_normal_ = 0.0;
  std::optional<std::size_t> subnormal_input_test_, subnormal_result_test_;
};

}  // namespace

std::map<std::string, std::string> measure_facts(Lab& lab, const Tree& tree,
                                                 std::optional<FactModel>& model, std::string& why_not) {
  std::map<std::string, std::string> facts;
  FactLab facts_lab(lab, tree);
  // The experiments that need no earlier output share one run (one call per group of right factors
  // where the target takes enough inputs at once): the first pass of partial-sums, rounding at the
  // additions the partial sums will most likely find of the accumulator's precision, products and
  // subnormals. Only what depends on their outputs runs later: the precision search of unusual
  // additions, rounding at additions the guess missed, and the fused nodes. Each experiment's output
  // does not depend on the run it is in (the target's order is fixed, checked by the reveal), so the
  // facts are those measured one experiment family at a time.
  facts_lab.queue_partial_sums(facts);
  facts_lab.queue_rounding(facts_lab.rounding_nodes(true));
  facts_lab.queue_products(facts);
  facts_lab.queue_subnormals();
  lab.run();
  facts_lab.finish_partial_sums(facts);
  facts_lab.finish_rounding(facts);
  facts_lab.finish_products(facts);
  facts_lab.finish_subnormals(facts);
  facts_lab.fused(facts);
  model = facts_lab.model(facts, why_not);
  return facts;
}

}  // namespace fprev::detail
