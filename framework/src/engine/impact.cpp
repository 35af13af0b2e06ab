// tree_impact(): both trees evaluated with the fingerprint's simulation (fingerprint_model.cpp) on
// the impact's input sets, against the exactly rounded sum (exact_sum.cpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>

#include "exact_sum.hpp"
#include "impact_internal.hpp"

namespace fprev {
namespace {

constexpr double kImpactInfinity = std::numeric_limits<double>::infinity();

// |x - reference| / |reference|; infinity when the reference is 0 and x is not.
double relative_deviation(double x, double reference) {
  if (x == reference) return 0.0;
  if (!std::isfinite(x) || !std::isfinite(reference)) return kImpactInfinity;
  return reference == 0.0 ? kImpactInfinity : std::fabs(x - reference) / std::fabs(reference);
}

double median_of(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  const double upper = *middle;
  return (*std::max_element(values.begin(), middle) + upper) / 2;
}

}  // namespace

TreeImpact tree_impact(const Tree& old_tree, const ImpactArithmetic& old_arithmetic, const Tree& new_tree,
                       const ImpactArithmetic& new_arithmetic, const ImpactOptions& options) {
  const std::size_t n = old_tree.leaf_count();
  if (new_tree.leaf_count() != n) throw std::invalid_argument("tree_impact: the trees have different leaf counts");
  TreeImpact impact;
  impact.old_bound = worst_case_bound(old_tree, old_arithmetic);
  impact.new_bound = worst_case_bound(new_tree, new_arithmetic);
  const detail::FactModel old_model = detail::impact_model(old_tree, old_arithmetic, impact.notes);
  const detail::FactModel new_model = detail::impact_model(new_tree, new_arithmetic, impact.notes);
  std::sort(impact.notes.begin(), impact.notes.end());
  impact.notes.erase(std::unique(impact.notes.begin(), impact.notes.end()), impact.notes.end());
  if (n == 0) return impact;
  // The work bound: vectors x leaves per set and tree.
  const std::size_t rows = impact_rows(n, options);
  const NumericTraits& traits = new_arithmetic.traits;
  const Format output = traits.output;
  detail::ExactSum exact;
  for (const ImpactInputSet& inputs : impact_input_sets(traits, n, rows, options.seed)) {
    ImpactSet set;
    set.name = inputs.name;
    set.inputs = inputs.rows;
    std::vector<double> ulps, conditions;
    for (std::size_t r = 0; r < inputs.rows; ++r) {
      const std::span<const double> a(inputs.a.data() + r * n, n);
      const std::span<const double> b = inputs.b.empty() ? std::span<const double>()
                                                         : std::span<const double>(inputs.b.data() + r * n, n);
      const double before = detail::simulate_with_facts(old_tree, old_arithmetic.traits, old_model, a, b);
      const double after = detail::simulate_with_facts(new_tree, traits, new_model, a, b);
      exact.clear();
      double magnitude = 0.0;
      for (std::size_t k = 0; k < n; ++k) {
        if (b.empty()) exact.add(a[k]);
        else exact.add_product(a[k], b[k]);
        magnitude += std::fabs(b.empty() ? a[k] : a[k] * b[k]);
      }
      const double reference = exact.rounded(output);
      const double exact_double = exact.rounded(Format::float64);
      conditions.push_back(exact_double == 0.0 ? kImpactInfinity : magnitude / std::fabs(exact_double));
      set.old_max_relative_error = std::max(set.old_max_relative_error, relative_deviation(before, reference));
      set.new_max_relative_error = std::max(set.new_max_relative_error, relative_deviation(after, reference));
      const bool same = before == after ? std::signbit(before) == std::signbit(after) : before != before && after != after;
      if (same) continue;
      ++set.differing;
      ulps.push_back(ulp_distance(before, after, output).value_or(kImpactInfinity));
      set.max_relative_difference = std::max(set.max_relative_difference, relative_deviation(after, before));
    }
    set.max_ulp = ulps.empty() ? 0.0 : *std::max_element(ulps.begin(), ulps.end());
    set.median_ulp = median_of(ulps);
    set.median_condition = median_of(conditions);
    impact.suggested_tolerance = std::max(impact.suggested_tolerance, set.max_relative_difference);
    impact.sets.push_back(std::move(set));
  }
  return impact;
}

}  // namespace fprev
