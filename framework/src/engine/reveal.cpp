// reveal() and verify(): the engine's entry points. Order of work: choose the mask scheme, check
// determinism, run the algorithm, then check the tree (fused width, sampled l(i,j), simulation).
#include "fprev/reveal.hpp"

#include <chrono>
#include <sstream>

#include "checks.hpp"

namespace fprev {

using detail::check_determinism;
using detail::check_fused_width;
using detail::check_tree;
using detail::fail;
using detail::ProbeSession;

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
  }
  return "?";
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

MaskScheme scheme_for(const TargetInfo& info) {
  if (info.n == 0)
    fail(Finding::unsupported, "the target has no summands (n = 0)", {}, std::nullopt,
         "an empty reduction: check the case's shape (n, k)");
  if (info.n > 0xfffffff0u)
    fail(Finding::unsupported, "n is too large (more than 2^32 summands)", {}, std::nullopt,
         "leaf indices are 32-bit");
  try {
    return choose_mask_scheme(info.traits, info.n);
  } catch (const MaskSchemeError& e) {
    fail(Finding::unsupported, e.what(), {}, std::nullopt,
         "the formats' range cannot mask this many summands; use a smaller case");
  }
}

}  // namespace

RevealResult reveal(Target& target, const RevealOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  RevealResult result;
  result.scheme = scheme_for(target.info());
  ProbeSession session(target, result.scheme, options, result.stats);
  check_determinism(session, options);
  switch (options.algorithm) {
    case Algorithm::fprev:
      result.tree = run_fprev(session, options, result.stats);
      break;
    case Algorithm::basic:
      result.tree = run_basic(session);
      break;
    case Algorithm::naive:
      result.tree = run_naive(session, options.seed);
      break;
  }
  check_fused_width(session, result.tree);
  check_tree(session, result.tree, options, options.verify_probes, false, result.stats);
  result.stats.total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

RevealStats verify(Target& target, const Tree& tree, const RevealOptions& options) {
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
  check_fused_width(session, tree);
  check_tree(session, tree, options, options.verify_probes, true, stats);
  stats.total_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace fprev
