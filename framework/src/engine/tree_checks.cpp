// Verification of a tree against a target: predicted l(i,j) for sampled probes, and bitwise
// simulation on random inputs. Used after every reveal and to check a golden without re-revealing.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <sstream>

#include "checks.hpp"

namespace fprev::detail {

std::vector<std::uint32_t> leaves_of(const Tree& tree, NodeId node) {
  std::vector<std::uint32_t> leaves;
  std::vector<NodeId> stack{node};
  while (!stack.empty()) {
    const NodeId v = stack.back();
    stack.pop_back();
    if (tree.is_leaf(v)) {
      leaves.push_back(v);
      continue;
    }
    for (NodeId c : tree.children(v)) stack.push_back(c);
  }
  std::sort(leaves.begin(), leaves.end());
  return leaves;
}

SubtreeLeaves::SubtreeLeaves(const Tree& tree)
    : tree_(&tree), first_(tree.node_count(), 0), stamp_(tree.leaf_count(), 0) {
  order_.reserve(tree.leaf_count());
  if (tree.empty()) return;
  // Pre-order with an explicit stack (no recursion as deep as the tree): a node's first leaf is the
  // next one appended when the node is visited, and its leaves follow contiguously.
  std::vector<NodeId> stack{tree.root()};
  while (!stack.empty()) {
    const NodeId v = stack.back();
    stack.pop_back();
    first_[v] = static_cast<std::uint32_t>(order_.size());
    if (tree.is_leaf(v)) {
      order_.push_back(v);
      continue;
    }
    const std::span<const NodeId> children = tree.children(v);
    for (std::size_t c = children.size(); c-- > 0;) stack.push_back(children[c]);
  }
}

std::span<const std::uint32_t> SubtreeLeaves::depth_first(NodeId node) const {
  return std::span<const std::uint32_t>(order_).subspan(first_[node], tree_->leaves_under(node));
}

namespace {
// Whether `leaves` (those under one node, smallest `lowest`) are consecutive numbers; the largest.
bool consecutive(std::span<const std::uint32_t> leaves, std::uint32_t lowest, std::uint32_t& highest) {
  highest = *std::max_element(leaves.begin(), leaves.end());
  return highest - lowest + 1 == leaves.size();
}
}  // namespace

std::vector<std::uint32_t> SubtreeLeaves::sorted(NodeId node) const {
  const std::span<const std::uint32_t> leaves = depth_first(node);
  std::vector<std::uint32_t> out(leaves.size());
  std::uint32_t highest = 0;
  if (consecutive(leaves, tree_->smallest_leaf(node), highest)) {
    std::iota(out.begin(), out.end(), tree_->smallest_leaf(node));
    return out;
  }
  std::copy(leaves.begin(), leaves.end(), out.begin());
  std::sort(out.begin(), out.end());
  return out;
}

void SubtreeLeaves::split(NodeId node, std::vector<std::uint32_t>& inside, std::vector<std::uint32_t>& outside) {
  const std::span<const std::uint32_t> leaves = depth_first(node);
  const auto n = static_cast<std::uint32_t>(stamp_.size());
  const auto k = static_cast<std::uint32_t>(leaves.size());
  inside.resize(k);
  outside.resize(n - k);
  // Most libraries' subtrees hold a run of consecutive leaves (sequential, blocked, pairwise
  // orders): then both parts are runs, written without looking at any leaf twice.
  const std::uint32_t lowest = tree_->smallest_leaf(node);
  std::uint32_t highest = 0;
  if (consecutive(leaves, lowest, highest)) {
    std::iota(inside.begin(), inside.end(), lowest);
    std::iota(outside.begin(), outside.begin() + lowest, 0u);
    std::iota(outside.begin() + lowest, outside.end(), highest + 1);
    return;
  }
  const std::uint32_t mark = node + 1;
  for (const std::uint32_t leaf : leaves) stamp_[leaf] = mark;
  std::size_t in = 0, out = 0;
  for (std::uint32_t leaf = 0; leaf < n; ++leaf) {
    if (stamp_[leaf] == mark)
      inside[in++] = leaf;
    else
      outside[out++] = leaf;
  }
}

bool simulation_mismatch(const NumericTraits& traits, const std::string& what, const std::string& probe,
                         double output, RevealStats& stats) {
  if (!traits.exact_arithmetic_model) {
    stats.arithmetic_note = what +
                            ": the order is revealed by the probes, but the library's arithmetic "
                            "keeps extra precision somewhere (e.g. a wider accumulator for part "
                            "of the sum)";
    return true;
  }
  fail(Finding::verification_failed, what, probe, output,
       "extra precision in the accumulator (wider registers, a different accumulator format), "
       "a non-IEEE adder (e.g. a compensated sum), or an order that depends on the values. The target "
       "declares NumericTraits::exact_arithmetic_model = true (adding in the tree's order in the "
       "accumulator format reproduces it bitwise); a backend whose arithmetic is not plain IEEE additions "
       "sets it to false, and the mismatch becomes a note instead of a failure");
}

namespace {

void check_probes(ProbeSession& session, const Tree& tree, const RevealOptions& options,
                  std::size_t probe_count, bool all_from_first, RevealStats& stats) {
  const auto n = static_cast<std::uint32_t>(tree.leaf_count());
  if (n < 2 || (probe_count == 0 && !all_from_first)) return;  // nothing to measure
  const LcaIndex lca(tree);
  const bool all_active = n - 2 < session.scheme().exact_count_limit;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  if (all_from_first)
    for (std::uint32_t j = 1; j < n; ++j) pairs.emplace_back(0, j);
  std::mt19937_64 rng(options.seed ^ 0x7e1f);
  std::uniform_int_distribution<std::uint32_t> leaf(0, n - 1);
  for (std::size_t k = 0; k < probe_count; ++k) {
    const std::uint32_t i = leaf(rng), j = leaf(rng);
    if (i != j) pairs.emplace_back(i, j);
  }

  std::vector<Background> backgrounds;  // restricted mode: one per probe
  backgrounds.reserve(pairs.size());
  std::optional<SubtreeLeaves> subtrees;
  if (!all_active) subtrees.emplace(tree);
  std::vector<ProbeRequest> requests;
  std::vector<std::uint32_t> predicted;
  for (const auto& [i, j] : pairs) {
    const NodeId v = lca.lca(i, j);
    if (all_active) {
      requests.push_back({i, j, session.all_active(), n});
      predicted.push_back(tree.leaves_under(v));
      continue;
    }
    // Count within the parent of the LCA when that fits the exact range, so leaves outside the LCA
    // take part too; otherwise within the LCA alone.
    NodeId scope = tree.parent(v) != kNoNode ? tree.parent(v) : v;
    if (tree.leaves_under(scope) - 2 >= session.scheme().exact_count_limit) scope = v;
    if (tree.leaves_under(scope) - 2 >= session.scheme().exact_count_limit) continue;
    backgrounds.push_back(ProbeSession::restricted(subtrees->sorted(scope)));
    requests.push_back({i, j, &backgrounds.back(), tree.leaves_under(scope)});
    predicted.push_back(tree.leaves_under(v));
  }
  std::vector<Measurement> measured(requests.size());
  session.measure(requests, measured);
  for (std::size_t k = 0; k < requests.size(); ++k) {
    if (!measured[k].saturated && measured[k].l == predicted[k]) continue;
    std::ostringstream os;
    os << "l(" << requests[k].plus << "," << requests[k].minus << ") measured "
       << (measured[k].saturated ? std::string("beyond the exact range")
                                 : std::to_string(measured[k].l))
       << " but the tree predicts " << predicted[k];
    fail(Finding::verification_failed, os.str(),
         describe_probe(requests[k].plus, requests[k].minus, requests[k].active_count), std::nullopt,
         "the target no longer follows this tree (its order changed), or its order depends on the "
         "values or on the batch position");
  }
  stats.verified_probes += requests.size();
}

}  // namespace

// The inputs of the bitwise simulation (the same for every check of one target and seed).
RandomInputs simulation_inputs(const TargetInfo& info, const RevealOptions& options) {
  return make_random_inputs(info, options.verify_inputs, options.seed ^ 0x51a1, 12);
}

std::optional<std::vector<double>> simulated_outputs(const TargetInfo& info, const Tree& tree,
                                                     const RevealOptions& options) {
  const NumericTraits& traits = info.traits;
  if (options.verify_inputs == 0 || tree.leaf_count() < 2) return std::nullopt;
  // No model for this accelerator. On a target that fuses, even a 2-child node may be a fused sum
  // (e.g. a Tensor Core step adding two products) that truncates instead of rounding.
  const bool may_fuse = tree.max_arity() > 2 || traits.max_fused_width > 2;
  if (may_fuse && !traits.simulate_fused) return std::nullopt;
  const RandomInputs inputs = simulation_inputs(info, options);
  std::vector<double> expected(options.verify_inputs);
  std::vector<double> values(info.n);
  for (std::size_t r = 0; r < expected.size(); ++r) {
    for (std::size_t k = 0; k < info.n; ++k) values[k] = inputs.summand(r, info.n, k);
    expected[r] = simulate_sum(tree, values, traits.accumulator, traits.output, traits.fused_extra_bits);
  }
  return expected;
}

void check_simulated_outputs(ProbeSession& session, const RevealOptions& options,
                             const std::optional<std::vector<double>>& expected, RevealStats& stats,
                             const RandomInputs* made) {
  if (!expected) return;
  const TargetInfo& info = session.info();
  const std::size_t rows = expected->size();
  const std::optional<RandomInputs> own = made != nullptr ? std::nullopt : std::optional(simulation_inputs(info, options));
  const RandomInputs& inputs = made != nullptr ? *made : *own;
  const std::vector<double> outputs = session.evaluate_values(rows, inputs.a, inputs.b);
  for (std::size_t r = 0; r < rows; ++r) {
    if (std::memcmp(&(*expected)[r], &outputs[r], sizeof(double)) == 0) continue;
    std::ostringstream os;
    os.precision(17);
    os << "on random input #" << r << " the target returned " << outputs[r]
       << " but adding in the order of the tree (round to nearest in "
       << to_string(info.traits.accumulator) << ") gives " << (*expected)[r];
    if (simulation_mismatch(info.traits, os.str(), "random input #" + std::to_string(r), outputs[r], stats))
      return;
  }
  stats.simulated_inputs += rows;
}

bool reproduces_tree_on_random_inputs(Target& target, const Tree& tree, const RevealOptions& options) {
  const TargetInfo& info = target.info();
  const NumericTraits& traits = info.traits;
  if (info.is_grid() || options.verify_inputs == 0 || tree.leaf_count() < 2 || tree.leaf_count() != info.n) return false;
  if ((tree.max_arity() > 2 || traits.max_fused_width > 2) && !traits.simulate_fused) return false;
  const std::size_t rows = options.verify_inputs, n = info.n;
  const RandomInputs inputs = simulation_inputs(info, options);
  std::vector<double> values(n);
  for (std::size_t first = 0; first < rows;) {
    const std::size_t count = std::min(std::max<std::size_t>(1, info.max_batch), rows - first);
    ValueBatch batch;
    batch.rows = count;
    batch.a = std::span<const double>(inputs.a).subspan(first * n, count * n);
    batch.b = inputs.b;
    std::vector<double> outputs(count);
    target.evaluate(batch, outputs);
    for (std::size_t r = 0; r < count; ++r) {
      for (std::size_t k = 0; k < n; ++k) values[k] = inputs.summand(first + r, n, k);
      const double expected = simulate_sum(tree, values, traits.accumulator, traits.output, traits.fused_extra_bits);
      if (std::memcmp(&expected, &outputs[r], sizeof expected) != 0) return false;
    }
    first += count;
  }
  return true;
}

void check_tree(ProbeSession& session, const Tree& tree, const RevealOptions& options,
                std::size_t probe_count, bool all_from_first, RevealStats& stats) {
  check_probes(session, tree, options, probe_count, all_from_first, stats);
  check_simulated_outputs(session, options, simulated_outputs(session.info(), tree, options), stats);
}

}  // namespace fprev::detail
