// Evaluation of the simulated GEMM: fused steps along the plan, IEEE float32 reduction of the
// split-K partials, epilogue and output conversion.
#include <array>
#include <cmath>
#include <stdexcept>

#include "fprev/backends/tcsim/gemm.hpp"

namespace fprev::tcsim {
namespace {

constexpr std::size_t kMaxStep = 64;

void check_formats(const ArchModel& model, Format input, Format output) {
  if (!model.supports(input)) {
    throw std::invalid_argument("tcsim gemm: " + model.name + " does not take " +
                                std::string(fprev::to_string(input)) + " inputs");
  }
  if (input == Format::float64) {
    if (output != Format::float64)
      throw std::invalid_argument("tcsim gemm: float64 inputs give float64 outputs");
  } else if (output != Format::float32 && output != Format::float16 &&
             output != Format::bfloat16) {
    throw std::invalid_argument("tcsim gemm: the output must be float32, float16 or bfloat16");
  }
  if (input != Format::float64 &&
      (model.products_per_step < 1 || static_cast<std::size_t>(model.products_per_step) > kMaxStep))
    throw std::invalid_argument("tcsim gemm: products_per_step must be in 1..64");
}

}  // namespace

GemmKernel::GemmKernel(ArchModel model, Format input, Format output, std::size_t k,
                       GemmConfig config)
    : model_(std::move(model)), input_(input), output_(output), fma_chain_(input == Format::float64) {
  check_formats(model_, input_, output_);
  plan_ = plan_gemm(k, fma_chain_ ? 1 : static_cast<std::size_t>(model_.products_per_step), config);
}

double GemmKernel::add(double x, double y) const {
  if (fma_chain_) return x + y;
  return static_cast<double>(static_cast<float>(x) + static_cast<float>(y));  // exact operands
}

double GemmKernel::accumulate_slice(const std::vector<KRange>& steps, const double* a,
                                    const double* b, std::size_t b_stride, double acc) const {
  if (fma_chain_) {
    for (const KRange& s : steps)
      for (std::size_t i = s.begin; i < s.end; ++i) acc = std::fma(a[i], b[i * b_stride], acc);
    return acc;
  }
  // Products of two values of any format narrower than float64 are exact in double (at most
  // 2 x 24 significand bits, exponents far inside double's range), so the terms go straight into
  // the fused sum; float64 takes the FMA path above.
  std::array<double, kMaxStep + 1> terms{};
  const FusedSumParams params = fused_params(model_);
  for (const KRange& s : steps) {
    const std::size_t count = s.end - s.begin;
    terms[0] = acc;
    for (std::size_t i = 0; i < count; ++i)
      terms[i + 1] = a[s.begin + i] * b[(s.begin + i) * b_stride];
    acc = fused_sum(std::span<const double>(terms.data(), count + 1), params);
  }
  return acc;
}

double GemmKernel::element(const double* a, const double* b, std::size_t b_stride,
                           const double* c) const {
  const bool c_first = c != nullptr && plan_.config.c_placement == CPlacement::accumulator;
  // Partial results of the slices, reduced in place (on the stack for up to 64 slices).
  std::array<double, 64> small{};
  std::vector<double> large;
  const std::size_t slices = plan_.slices.size();
  if (slices > small.size()) large.resize(slices);
  double* partial = slices > small.size() ? large.data() : small.data();
  for (std::size_t s = 0; s < slices; ++s) {
    const double initial = (s == 0 && c_first) ? *c : 0.0;
    partial[s] = accumulate_slice(plan_.slices[s], a, b, b_stride, initial);
  }
  if (plan_.config.reduction == SplitKReduction::sequential) {
    for (std::size_t s = 1; s < slices; ++s) partial[0] = add(partial[0], partial[s]);
  } else {
    // Adjacent pairs, level by level; an odd last partial moves up unchanged.
    for (std::size_t count = slices; count > 1; count = (count + 1) / 2) {
      for (std::size_t i = 0; i < count / 2; ++i)
        partial[i] = add(partial[2 * i], partial[2 * i + 1]);
      if (count % 2 == 1) partial[count / 2] = partial[count - 1];
    }
  }
  double result = partial[0];
  if (c != nullptr && !c_first) result = add(result, *c);
  return fma_chain_ ? result : convert_output(result, output_);
}

void GemmKernel::run(std::size_t m, std::size_t n, std::span<const double> a,
                     std::span<const double> b, std::span<const double> c,
                     std::span<double> d) const {
  const std::size_t k = plan_.k;
  if (a.size() != m * k || b.size() != k * n || d.size() != m * n ||
      (!c.empty() && c.size() != m * n)) {
    throw std::invalid_argument("tcsim gemm: operand sizes do not match m, n, k");
  }
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      d[i * n + j] = element(a.data() + i * k, b.data() + j, n, c.empty() ? nullptr : &c[i * n + j]);
    }
  }
}

}  // namespace fprev::tcsim
