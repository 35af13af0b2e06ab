// A simulated GEMM kernel on the fused-sum model: D = A*B (+C). Every element of D is accumulated
// the same way, fixed by k, the accelerator's step and the kernel configuration:
//
//   * split-K: k is cut into `split_k` slices of whole k-tiles (ceil(ceil(k / k_tile) / split_k)
//     tiles each, as CUTLASS's split-K GEMM does); each slice is accumulated on its own, from zero;
//   * main loop: a slice is walked tile by tile, each tile step by step in increasing k; one step is
//     one fused sum of the accumulator and `step` products (Valpey et al., NFM 2025 Algorithm 1);
//   * the partial tile of a slice (its length modulo k_tile) is processed first, right-aligned in a
//     zero-padded tile (CUTLASS's "residue first" main loop), or last, left-aligned (zero padding at
//     the end, as a naive kernel does); zero products change nothing, so only the step boundaries
//     move;
//   * the slices' float32 results are reduced with IEEE float32 additions, in slice order
//     (sequential) or in adjacent pairs level by level (pairwise);
//   * C is added by the epilogue (one float32 addition after the reduction) or enters as the initial
//     accumulator of the first slice (the HMMA "D = A*B + C" form);
//   * the float32 result is converted to the output format (Valpey et al., NFM 2025: round to nearest for fp16).
//
// float64 uses a chain of IEEE FMAs instead of fused sums (Xie et al., USENIX ATC 2025 Sec. 5.2.1), step 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "fprev/backends/tcsim/fused_sum.hpp"
#include "fprev/format.hpp"

namespace fprev::tcsim {

enum class SplitKReduction : std::uint8_t { sequential, pairwise };
enum class KResidue : std::uint8_t { first, last };
enum class CPlacement : std::uint8_t { epilogue, accumulator };

std::string_view to_string(SplitKReduction reduction);
std::string_view to_string(KResidue residue);
std::string_view to_string(CPlacement placement);
std::optional<SplitKReduction> parse_split_k_reduction(std::string_view name);
std::optional<KResidue> parse_k_residue(std::string_view name);
std::optional<CPlacement> parse_c_placement(std::string_view name);

struct GemmConfig {
  std::size_t k_tile = 32;  // k elements per main-loop iteration; a multiple of the step
  std::size_t split_k = 1;  // slices of k accumulated independently, then reduced
  SplitKReduction reduction = SplitKReduction::sequential;
  KResidue residue = KResidue::first;
  CPlacement c_placement = CPlacement::epilogue;
};

// Half-open range of k indices that one fused step adds.
struct KRange {
  std::size_t begin = 0;
  std::size_t end = 0;
  friend bool operator==(const KRange&, const KRange&) = default;
};

// The accumulation schedule shared by every element of D.
struct GemmPlan {
  std::size_t k = 0;
  std::size_t step = 0;        // products per fused step (1 for the FMA chain)
  std::size_t slice_size = 0;  // k elements per split-K slice (whole tiles)
  GemmConfig config;
  std::vector<std::vector<KRange>> slices;  // the non-empty slices, each its steps in order
};

// Throws std::invalid_argument when k, step, k_tile or split_k is 0 or k_tile is not a multiple
// of step.
GemmPlan plan_gemm(std::size_t k, std::size_t step, const GemmConfig& config);

class GemmKernel {
 public:
  // `input` must be supported by `model` (float64 selects the FMA chain); `output` float32,
  // float16 or bfloat16 for the fused path, float64 for the FMA chain. Throws std::invalid_argument.
  GemmKernel(ArchModel model, Format input, Format output, std::size_t k, GemmConfig config);

  const GemmPlan& plan() const { return plan_; }
  const ArchModel& model() const { return model_; }
  Format input() const { return input_; }
  Format output() const { return output_; }
  Format accumulator() const { return fma_chain_ ? Format::float64 : Format::float32; }
  bool fma_chain() const { return fma_chain_; }

  // One element of D: a[0..k) (contiguous), b[i * b_stride] for i in [0, k), and C's element when
  // c is not null. Values must be exact in the input format (C in the accumulator format).
  double element(const double* a, const double* b, std::size_t b_stride, const double* c) const;

  // D[m x n] = A[m x k] * B[k x n] (+ C[m x n] when c is not empty); row-major.
  void run(std::size_t m, std::size_t n, std::span<const double> a, std::span<const double> b,
           std::span<const double> c, std::span<double> d) const;

 private:
  double accumulate_slice(const std::vector<KRange>& steps, const double* a, const double* b,
                          std::size_t b_stride, double acc) const;
  double add(double x, double y) const;  // IEEE addition in the accumulator format

  ArchModel model_;
  Format input_;
  Format output_;
  bool fma_chain_;
  GemmPlan plan_;
};

}  // namespace fprev::tcsim
