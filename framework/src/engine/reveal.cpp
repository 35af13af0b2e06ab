// reveal() and verify(): the engine's entry points. Order of work: choose the mask scheme, check
// determinism, run the algorithm (on a grid target: reveal the order map and check every element
// against its class's tree), then check the tree(s): fused nodes against value-dependent orders,
// sampled l(i,j), simulation.
#include "fprev/reveal.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>

#include "checks.hpp"
#include "entry_checks.hpp"
#include "map_reveal.hpp"

namespace fprev {

using namespace detail;

std::string_view to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::fprev: return "fprev";
    case Algorithm::basic: return "basic";
    case Algorithm::naive: return "naive";
  }
  return "?";
}

std::optional<Algorithm> parse_algorithm(std::string_view name) {
  for (Algorithm a : {Algorithm::fprev, Algorithm::basic, Algorithm::naive})
    if (to_string(a) == name) return a;
  return std::nullopt;
}

std::string_view to_string(Finding finding) {
  switch (finding) {
    case Finding::nondeterministic: return "nondeterministic";
    case Finding::order_independent: return "order_independent";
    case Finding::value_dependent: return "value_dependent";
    case Finding::non_finite_output: return "non_finite_output";
    case Finding::not_whole_count: return "not_whole_count";
    case Finding::count_out_of_range: return "count_out_of_range";
    case Finding::inconsistent_structure: return "inconsistent_structure";
    case Finding::verification_failed: return "verification_failed";
    case Finding::batch_inconsistent: return "batch_inconsistent";
    case Finding::unsupported: return "unsupported";
    case Finding::target_error: return "target_error";
    case Finding::ranks_disagree: return "ranks_disagree";
    case Finding::target_fault: return "target_fault";
  }
  return "?";
}

std::optional<Finding> parse_finding(std::string_view name) {
  for (Finding finding : {Finding::nondeterministic, Finding::order_independent, Finding::value_dependent,
                          Finding::non_finite_output, Finding::not_whole_count,
                          Finding::count_out_of_range, Finding::inconsistent_structure,
                          Finding::verification_failed, Finding::batch_inconsistent,
                          Finding::unsupported, Finding::target_error, Finding::ranks_disagree,
                          Finding::target_fault})
    if (to_string(finding) == name) return finding;
  return std::nullopt;
}

std::string Diagnostic::to_string() const {
  std::ostringstream os;
  os.precision(17);
  os << "target misbehaves (" << fprev::to_string(finding) << "): " << message;
  if (!probe.empty()) os << "\n  probe: " << probe;
  if (raw_output) os << "\n  raw output: " << *raw_output;
  if (variability)
    os << "\n  variability: V_c = " << variability->count_variability
       << ", V_ermv = " << variability->ermv << " (" << variability->runs << " runs x "
       << variability->inputs << " inputs, up to " << variability->distinct_outputs
       << " distinct outputs for one input)";
  if (!likely_cause.empty()) os << "\n  likely cause: " << likely_cause;
  return os.str();
}

RevealFailure::RevealFailure(Diagnostic diagnostic)
    : std::runtime_error(diagnostic.to_string()), diagnostic_(std::move(diagnostic)) {}

namespace {

std::string over_budget_message(double budget_seconds, double seconds, std::size_t probes) {
  std::ostringstream os;
  os.precision(3);
  os << "stopped after " << seconds << " s, past its time budget of " << budget_seconds << " s ("
     << probes << " probes measured); the order was not revealed";
  return os.str();
}

}  // namespace

RevealOverBudget::RevealOverBudget(double budget_seconds, double seconds, std::size_t probes)
    : std::runtime_error(over_budget_message(budget_seconds, seconds, probes)),
      budget_seconds_(budget_seconds),
      seconds_(seconds),
      probes_(probes) {}

namespace {

Tree reveal_single(ProbeSession& session, const RevealOptions& options, RevealStats& stats) {
  const std::size_t n = session.leaves();
  switch (options.algorithm) {
    case Algorithm::fprev: {
      stats.low_range_mode = uses_low_range_mode(n, session.scheme());
      const auto algorithm = make_fprev(n, session.scheme(), session.all_active(), options);
      return run_waves(session, *algorithm, stats);
    }
    case Algorithm::basic: {
      const auto algorithm = make_basic(n, session.scheme(), session.all_active());
      return run_waves(session, *algorithm, stats);
    }
    case Algorithm::naive:
      return run_naive(session, options.seed);
  }
  return {};
}

// Naive search on a grid target: every element sees the same random inputs (one call each, the
// input on every row); elements answering alike form a class, searched on its own outputs.
OrderMap reveal_grid_naive(ProbeSession& session, const RevealOptions& options) {
  const TargetInfo& info = session.info();
  check_naive_size(info.n);
  const std::size_t rows = info.grid.rows, n = info.n;
  const RandomInputs inputs = naive_inputs(info, options.seed);
  std::vector<std::vector<double>> outputs(info.grid.size());
  std::vector<double> a(rows * n);
  for (std::size_t t = 0; t < kNaiveInputs; ++t) {
    for (std::size_t r = 0; r < rows; ++r)
      std::copy_n(inputs.a.begin() + static_cast<std::ptrdiff_t>(t * n), n,
                  a.begin() + static_cast<std::ptrdiff_t>(r * n));
    const std::vector<double> out = session.evaluate_value_grid(Placement::rows, rows, a, inputs.b);
    for (std::size_t e = 0; e < out.size(); ++e) outputs[e].push_back(out[e]);
  }
  std::map<std::vector<double>, std::size_t> groups;
  std::vector<std::size_t> element_class(info.grid.size());
  std::vector<Tree> trees;
  for (std::size_t e = 0; e < outputs.size(); ++e) {
    auto [it, added] = groups.emplace(outputs[e], trees.size());
    if (added) trees.push_back(naive_search(info, inputs, outputs[e]));
    element_class[e] = it->second;
  }
  // Different outputs may still come from one tree (a kernel with other arithmetic): merge.
  for (std::size_t& k : element_class)
    for (std::size_t j = 0; j < k; ++j)
      if (trees[j] == trees[k]) {
        k = j;
        break;
      }
  return map_of_elements(info.grid, element_class, std::move(trees));
}

// `calls_before_verification` receives the target calls made until the map was found. Ends with
// the final comparison of the determinism input (check_unchanged).
OrderMap reveal_grid(ProbeSession& session, const RevealOptions& options, const ValueRecord& determinism,
                     RevealStats& stats, std::size_t& calls_before_verification) {
  if (options.algorithm == Algorithm::naive) {
    OrderMap map = reveal_grid_naive(session, options);
    calls_before_verification = stats.target_calls;
    check_unchanged(session, determinism);
    return map;
  }
  stats.low_range_mode =
      options.algorithm == Algorithm::fprev && uses_low_range_mode(session.leaves(), session.scheme());
  MapRevealer revealer(session, options, stats);
  revealer.use_first_partition(determinism.outputs);
  do {
    revealer.reveal();
  } while (!revealer.check_elements(true) || !revealer.prove_every_element_if_asked(true));
  calls_before_verification = stats.target_calls;
  const OrderMap map = revealer.map();
  const std::vector<std::uint32_t> element_class = revealer.element_classes();
  stats.uniformity_outputs = revealer.take_uniformity_outputs();
  grid_signatures(
      session.info().grid, revealer.partition_input_count(),
      [&](std::size_t input, std::size_t r, std::size_t c) { return revealer.partition_output(input, r, c); }, stats);
  check_fused_nodes_per_class(session, element_class,
                              [&](std::uint32_t id) -> const Tree& { return revealer.class_tree(id); },
                              stats);
  // Every element returns the bits it returned for the determinism input before the reveal.
  check_unchanged(session, determinism);
  // The simulation reuses the value partition's random inputs: every element added each of them
  // (in the partition's calls, before the reveal), so every element is compared with its class's
  // tree on each input, where a call of its own would give each element one input (row r: input
  // r mod count). No call of its own, and more inputs per element. It comes after the final
  // comparison, so that an element whose order changed during the reveal is named for that
  // (batch_inconsistent), not for a simulation that disagrees with its old outputs.
  if (options.verify_inputs > 0 && session.leaves() >= 2)
    compare_grid_simulation(
        session.info(), revealer.partition_inputs(),
        std::min(options.verify_inputs, revealer.partition_input_count()),
        [](std::size_t, std::size_t) { return true; },
        [&](std::size_t input, std::size_t element) {
          const std::size_t columns = session.info().grid.columns;
          return revealer.partition_output(input, element / columns, element % columns);
        },
        element_class, [&](std::uint32_t id) -> const Tree& { return revealer.class_tree(id); }, stats);
  return map;
}

}  // namespace

RevealResult reveal(Target& target, const RevealOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  RevealResult result;
  check_grid(target.info());
  result.scheme = scheme_for(target.info());
  ProbeSession session(target, result.scheme, options, result.stats);
  const ValueRecord before = check_determinism(session, options);
  // The verification: every call after the tree (or map) was found.
  std::size_t calls_before_verification = 0;
  if (target.info().is_grid()) {
    result.map = reveal_grid(session, options, before, result.stats, calls_before_verification);
    if (result.map.single_class()) result.tree = result.map.classes.front().tree;
  } else {
    result.tree = reveal_single(session, options, result.stats);
    calls_before_verification = result.stats.target_calls;
    check_fused_nodes(target.info(), result.tree, single_runner(session), result.stats);
    check_tree(session, result.tree, options, options.verify_probes, false, result.stats);
    result.map = OrderMap::uniform(target.info().grid, result.tree);
    check_unchanged(session, before);
  }
  result.stats.verification_calls = result.stats.target_calls - calls_before_verification;
  result.stats.map_classes = result.map.classes.size();
  result.stats.total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

RevealStats verify(Target& target, const Tree& tree, const RevealOptions& options) {
  if (target.info().is_grid()) return verify(target, OrderMap::uniform(target.info().grid, tree), options);
  const auto start = std::chrono::steady_clock::now();
  RevealStats stats;
  if (tree.leaf_count() != target.info().n) {
    fail(Finding::verification_failed,
         "the tree has " + std::to_string(tree.leaf_count()) + " leaves but the target adds " +
             std::to_string(target.info().n) + " summands");
  }
  const MaskScheme scheme = scheme_for(target.info());
  ProbeSession session(target, scheme, options, stats);
  check_determinism(session, options);
  check_fused_nodes(target.info(), tree, single_runner(session), stats);
  check_tree(session, tree, options, options.verify_probes, true, stats);
  stats.total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

RevealStats verify(Target& target, const OrderMap& map, const RevealOptions& options) {
  const TargetInfo& info = target.info();
  if (!info.is_grid()) {
    check_single_output_map(info, map);
    return verify(target, map.classes.front().tree, options);
  }
  const auto start = std::chrono::steady_clock::now();
  RevealStats stats;
  check_grid(info);
  const MaskScheme scheme = scheme_for(info);
  ProbeSession session(target, scheme, options, stats);
  // The determinism check runs on the simulation's inputs (no call of the simulation's own).
  const detail::SimulatedRecord measured = detail::check_grid_determinism_for_simulation(session, options);
  detail::MapRevealer revealer(session, options, stats);
  revealer.assume(map);
  revealer.check_elements(false);
  const std::vector<std::uint32_t> element_class = revealer.element_classes();
  const auto tree_of = [&](std::uint32_t id) -> const Tree& { return map.classes[id].tree; };
  check_fused_nodes_per_class(session, element_class, tree_of, stats);
  const std::vector<bool> reproduced = detail::compare_recorded_grid_simulation(info, measured, element_class, tree_of, stats);
  detail::grid_signatures(info.grid, measured, stats, reproduced);
  stats.map_classes = map.classes.size();
  stats.total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace fprev
