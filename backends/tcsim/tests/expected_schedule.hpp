// Independent constructions of what a simulated GEMM element should do, written from the
// definition (literal step lists or plain loops), never from plan_gemm(): as a summation tree for
// reveal tests and as a numeric evaluation for driver tests.
#pragma once

#include <cmath>
#include <cstddef>
#include <random>
#include <utility>
#include <vector>

#include "fprev/backends/tcsim.hpp"
#include "fprev/format.hpp"
#include "fprev/tree.hpp"

namespace tcsim_test {

using Step = std::pair<std::size_t, std::size_t>;  // half-open [first, second)

enum class CLeaf { none, epilogue, accumulator };

struct Schedule {
  std::size_t k = 0;
  std::vector<std::vector<Step>> slices;  // each slice: its fused steps in order
  bool pairwise = false;                  // reduction of the slices' partial sums
  CLeaf c = CLeaf::none;                  // C is leaf k when present
  std::size_t leaves() const { return k + (c == CLeaf::none ? 0 : 1); }
};

// Steps of `step` products over [lo, hi): aligned to lo (zero padding last) or to hi (the partial
// step first).
inline std::vector<Step> steps_over(std::size_t lo, std::size_t hi, std::size_t step,
                                    bool partial_first) {
  std::vector<Step> steps;
  std::size_t b = lo;
  if (partial_first && (hi - lo) % step != 0) {
    steps.push_back({lo, lo + (hi - lo) % step});
    b = lo + (hi - lo) % step;
  }
  for (; b < hi; b += step) steps.push_back({b, std::min(hi, b + step)});
  return steps;
}

inline Schedule chain(std::size_t k, std::size_t step, bool partial_first = true) {
  Schedule s;
  s.k = k;
  s.slices.push_back(steps_over(0, k, step, partial_first));
  return s;
}

inline fprev::Tree expected_tree(const Schedule& s) {
  using fprev::NodeId;
  fprev::TreeBuilder builder(s.leaves());
  const auto c_leaf = static_cast<NodeId>(s.k);
  std::vector<NodeId> partials;
  for (std::size_t slice = 0; slice < s.slices.size(); ++slice) {
    NodeId current = fprev::kNoNode;
    if (slice == 0 && s.c == CLeaf::accumulator) current = c_leaf;
    for (const Step& st : s.slices[slice]) {
      std::vector<NodeId> children;
      if (current != fprev::kNoNode) children.push_back(current);
      for (std::size_t i = st.first; i < st.second; ++i) children.push_back(static_cast<NodeId>(i));
      current = children.size() == 1 ? children[0] : builder.add_node(children);
    }
    partials.push_back(current);
  }
  if (s.pairwise) {
    while (partials.size() > 1) {
      std::vector<NodeId> next;
      for (std::size_t i = 0; i + 1 < partials.size(); i += 2)
        next.push_back(builder.add_node({partials[i], partials[i + 1]}));
      if (partials.size() % 2 == 1) next.push_back(partials.back());
      partials = next;
    }
  } else {
    for (std::size_t i = 1; i < partials.size(); ++i)
      partials[0] = builder.add_node({partials[0], partials[i]});
  }
  NodeId root = partials[0];
  if (s.c == CLeaf::epilogue) root = builder.add_node({root, c_leaf});
  (void)root;
  return builder.build();
}

// The value of one element under the schedule: fused steps with the model's fused_sum, IEEE
// float32 additions between slices and for the epilogue, then the output conversion.
inline double expected_value(const Schedule& s, const fprev::tcsim::ArchModel& model,
                             const std::vector<double>& a, const std::vector<double>& b, double c,
                             fprev::Format output) {
  const auto f32_add = [](double x, double y) {
    return static_cast<double>(static_cast<float>(x) + static_cast<float>(y));
  };
  std::vector<double> partials;
  for (std::size_t slice = 0; slice < s.slices.size(); ++slice) {
    double acc = (slice == 0 && s.c == CLeaf::accumulator) ? c : 0.0;
    for (const Step& st : s.slices[slice]) {
      std::vector<double> terms{acc};
      for (std::size_t i = st.first; i < st.second; ++i) terms.push_back(a[i] * b[i]);
      acc = fprev::tcsim::fused_sum(terms, fprev::tcsim::fused_params(model));
    }
    partials.push_back(acc);
  }
  if (s.pairwise) {
    while (partials.size() > 1) {
      std::vector<double> next;
      for (std::size_t i = 0; i + 1 < partials.size(); i += 2)
        next.push_back(f32_add(partials[i], partials[i + 1]));
      if (partials.size() % 2 == 1) next.push_back(partials.back());
      partials = next;
    }
  } else {
    for (std::size_t i = 1; i < partials.size(); ++i) partials[0] = f32_add(partials[0], partials[i]);
  }
  double result = partials[0];
  if (s.c == CLeaf::epilogue) result = f32_add(result, c);
  return fprev::tcsim::convert_output(result, output);
}

// Random values exactly representable in `format`: random significand bits, signs and exponents
// in [lo, hi], so that different orders give different sums.
inline double random_value(std::mt19937_64& rng, fprev::Format format, int lo, int hi) {
  const int precision = fprev::format_info(format).precision;
  std::uniform_int_distribution<std::uint64_t> fraction(0, (std::uint64_t{1} << (precision - 1)) - 1);
  std::uniform_int_distribution<int> exponent(lo, hi);
  std::bernoulli_distribution negative(0.5);
  const double significand =
      1.0 + std::ldexp(static_cast<double>(fraction(rng)), 1 - precision);
  return (negative(rng) ? -1.0 : 1.0) * std::ldexp(significand, exponent(rng));
}

}  // namespace tcsim_test
