// The tree plus the measured facts as an executable model: adds each input in the tree's order with
// every addition's measured precision and rounding, products rounded, exact or contracted into
// their addition (FMA), fused nodes aligned and truncated with the measured extra bits. Where it
// reproduces the outputs bitwise, the facts are a complete account of the target's arithmetic.
#include <cmath>

#include "fingerprint_lab.hpp"
#include "simulate_internal.hpp"

namespace fprev::detail {
namespace {

double add(double a, double b, Format format, bool toward_zero) {
  if (!toward_zero) return add_in_format(a, b, format);
  if (format == Format::float64) {
    const double s = a + b;
    const double z = s - a;
    const double error = (a - (s - z)) + (b - z);
    if (error == 0.0 || !std::isfinite(s) || (error > 0) == (s > 0)) return s;
    return std::nextafter(s, 0.0);
  }
  return round_toward_zero(add_round_to_odd(a, b), format);
}

// c + a * b rounded once to `format` (the product exact).
double fused_multiply_add(double a, double b, double c, Format format, bool round_toward_zero) {
  if (format == Format::float64 && !round_toward_zero) return std::fma(a, b, c);
  return add(c, a * b, format, round_toward_zero);  // a * b exact for inputs of up to 26 bits
}

}  // namespace

double simulate_with_facts(const Tree& tree, const NumericTraits& traits, const FactModel& model,
                           std::span<const double> a, std::span<const double> b) {
  const std::size_t n = tree.leaf_count();
  const bool product = !b.empty();
  std::vector<double> value(tree.node_count());
  const auto factor = [&](std::size_t k) { return product ? b[k] : 1.0; };
  for (std::size_t k = 0; k < n; ++k) {
    const double exact = a[k] * factor(k);
    // A plain summand enters its first addition as given; a product is rounded first unless the
    // facts say it is exact or contracted.
    value[k] = product && model.products == FactModel::Products::rounded
                   ? round_to_format(exact, traits.accumulator)
                   : exact;
  }
  std::vector<double> terms;
  for (std::size_t node = n; node < tree.node_count(); ++node) {
    const auto children = tree.children(static_cast<NodeId>(node));
    const Format format = model.node_format[node];
    if (children.size() != 2) {
      terms.clear();
      for (NodeId c : children) terms.push_back(value[c]);
      value[node] = fused_sum(terms, format, model.fused_extra_bits, model.fused_truncates);
      continue;
    }
    if (model.products == FactModel::Products::contracted && product &&
        (tree.is_leaf(children[0]) || tree.is_leaf(children[1]))) {
      // The later leaf is fused into the running sum; with two leaves the smaller enters first.
      const NodeId fused = tree.is_leaf(children[1]) ? children[1] : children[0];
      const NodeId other = fused == children[1] ? children[0] : children[1];
      const double running = tree.is_leaf(other) ? round_to_format(a[other] * factor(other), format) : value[other];
      value[node] = fused_multiply_add(a[fused], factor(fused), running, format, model.round_toward_zero);
      continue;
    }
    value[node] = add(value[children[0]], value[children[1]], format, model.round_toward_zero);
  }
  return round_to_format(value[tree.root()], traits.output);
}

}  // namespace fprev::detail
