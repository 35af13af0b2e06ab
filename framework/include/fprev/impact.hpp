// What a change costs: the numerical impact of a changed order (or a changed arithmetic under the
// same order), computed rather than sampled from the library. Both trees are known, so both are
// evaluated in the case's arithmetic (the fingerprint's evaluator: fprev/fingerprint.hpp) on
// documented, seeded input sets, and each tree's worst-case error bound is derived from its shape.
// docs/impact.md describes the input sets, the exact reference sum and the bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fprev/golden.hpp"
#include "fprev/order_map.hpp"
#include "fprev/target.hpp"
#include "fprev/tree.hpp"

namespace fprev {

// The arithmetic one tree is evaluated in: the formats and summand kind of the case, and the facts
// its fingerprint measured (partial-sums, rounding, products, fused-extra-bits, fused-alignment;
// absent facts mean IEEE additions in the accumulator format, to nearest even, products rounded).
struct ImpactArithmetic {
  NumericTraits traits;
  std::map<std::string, std::string> facts;
};

struct ImpactOptions {
  std::size_t vectors = 100;  // inputs per set, at most
  // Leaves evaluated per set and tree, at most: a set has min(vectors, max(1, budget / n)) inputs,
  // so the work is bounded whatever n (bench/impact_bench.cpp measures it).
  std::size_t leaf_budget = std::size_t{1} << 21;
  std::uint64_t seed = 0x1397'2025'0038'0001ULL;
};

// One input set: `rows` inputs of n summands; summand k of row r is a[r n + k] * b[r n + k] (b
// empty for plain sums). Every value is exact in the input format.
struct ImpactInputSet {
  std::string name;  // "uniform", "normal", "cancel"
  std::size_t rows = 0;
  std::vector<double> a, b;
};
// The sets, deterministic for given traits, n, rows and seed (docs/impact.md): uniform in [0, 1);
// approximately standard normal; heavy cancellation (condition number about 10^6).
std::vector<ImpactInputSet> impact_input_sets(const NumericTraits& traits, std::size_t n, std::size_t rows,
                                              std::uint64_t seed);
// The inputs per set tree_impact() evaluates for n leaves: min(vectors, max(1, leaf_budget / n)).
std::size_t impact_rows(std::size_t n, const ImpactOptions& options);

// The exact sum of a[k] * b[k] (of a[k] when b is empty) rounded once to `format`, to nearest even:
// the reference of the relative errors below (a fixed-point superaccumulator; docs/impact.md).
// NaN when a summand is not finite.
double exactly_rounded_sum(std::span<const double> a, std::span<const double> b, Format format);

// One input set's figures.
struct ImpactSet {
  std::string name;            // "uniform", "normal", "cancel" (docs/impact.md)
  std::size_t inputs = 0;      // vectors evaluated
  std::size_t differing = 0;   // inputs on which the two results differ bitwise
  double max_ulp = 0.0;        // over the differing inputs, in ulps of the output format
  double median_ulp = 0.0;     // median over the differing inputs (0 when none differ)
  // Largest |result - exact| / |exact| per tree, where exact is the exactly rounded sum in the
  // output format (infinity when exact is 0 and the result is not).
  double old_max_relative_error = 0.0;
  double new_max_relative_error = 0.0;
  // Largest |new - old| / |old| (0 when none differ; infinity when old is 0 and new is not).
  double max_relative_difference = 0.0;
  double median_condition = 0.0;  // median of sum|x_i| / |sum x_i| over the set's inputs
};

// The standard depth-based worst-case bound |error| <= gamma_h * sum|x_i| (Higham, "Accuracy and
// Stability of Numerical Algorithms", 2nd ed., SIAM 2002, Sec. 4.2), with h the largest number of
// roundings on a leaf's path to the root, each weighted by its unit roundoff relative to the
// accumulator's u (a float64 partial sum in a float32 accumulation counts 2^-29; a directed
// rounding, toward zero or a fused node's truncation, counts 2). Expressed as "h u".
struct ImpactBound {
  double h = 0.0;
  std::size_t leaf = 0;  // a leaf whose path attains h
};
ImpactBound worst_case_bound(const Tree& tree, const ImpactArithmetic& arithmetic);
// "36u", "9.5u".
std::string bound_text(double h);

// The impact of replacing (old tree, old arithmetic) by (new tree, new arithmetic): the trees have
// the same leaves and the arithmetics the same formats. Deterministic for given options.
struct TreeImpact {
  std::vector<ImpactSet> sets;  // uniform, normal, cancel
  ImpactBound old_bound, new_bound;
  // The smallest relative tolerance covering every input tried (max_relative_difference over the
  // sets): a suggestion for downstream tests, not a guarantee.
  double suggested_tolerance = 0.0;
  std::vector<std::string> notes;  // where the arithmetic had to be approximated
};
TreeImpact tree_impact(const Tree& old_tree, const ImpactArithmetic& old_arithmetic, const Tree& new_tree,
                       const ImpactArithmetic& new_arithmetic, const ImpactOptions& options = {});

// One changed class of an order map (or the one tree): the elements whose order or arithmetic
// changed from one tree to another, and the impact there.
struct ClassImpact {
  std::string elements;  // "rows 0-31 x columns 0" (empty for a single tree)
  std::size_t element_count = 0;
  std::size_t before_class = 0, after_class = 0;
  TreeImpact impact;
};
struct ResultImpact {
  std::vector<ClassImpact> changes;  // at most kMaxImpactChanges evaluated
  std::size_t unevaluated = 0;       // further changed class pairs left out (the work bound)
  std::string arithmetic;            // where the arithmetic came from, for people
  // The most visible figures over all changes (the first set that differs, else normal), for the
  // one-line summary and a tolerance over every change.
  double suggested_tolerance = 0.0;
};
inline constexpr std::size_t kMaxImpactChanges = 8;

// The impact of a change between two results (a golden and what check revealed, two goldens).
// `traits`: the case's formats where known (check); otherwise they are inferred from the results'
// fingerprints (the narrowest format holding every output; the partial-sums fact; products where
// a products fact was measured). nullopt when there is no change of order or arithmetic, a side is
// a recorded finding, or the trees cannot be compared (different leaf counts).
std::optional<ResultImpact> result_impact(const Golden& before, const Golden& after,
                                          const std::optional<NumericTraits>& traits = std::nullopt,
                                          const ImpactOptions& options = {});

// "impact: differs on 97 of 100 normal inputs, by up to 3 ulp (median 1); worst-case bound 36u -> 12u"
std::string impact_line(const ResultImpact& impact);
// The per-set detail and the tolerance, one line each (no trailing newline), e.g.
//   "uniform: differs on 12 of 100, up to 1 ulp (median 1); max relative error vs the exact sum 5.9e-08 -> 1.2e-07"
std::vector<std::string> impact_detail_lines(const ResultImpact& impact);

}  // namespace fprev
