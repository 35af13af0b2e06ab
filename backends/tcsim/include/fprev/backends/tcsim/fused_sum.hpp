// The arithmetic of one matrix-accelerator step: a fused multi-term sum of exact products and the
// accumulator, as modelled by Valpey et al. (NFM 2025, Sec. 4-5, Algorithm 1) and Xie et al., USENIX ATC 2025
// (Xie et al., Sec. 5.2.1):
//
//   1. every product a*b is exact (no rounding after the multiplication);
//   2. the terms (products and the accumulator) are aligned to the largest exponent among them;
//   3. the bits shifted out below `significand_bits + extra_bits` are discarded: truncation of each
//      term's magnitude, which is *not* IEEE round-to-zero (2 + (-2^-40) gives 2, Table 3);
//   4. the aligned terms are added exactly in a register with `carry_bits` more bits on top
//      (Valpey et al., NFM 2025: 3 carry bits are needed and enough for the 5-term sum); partial sums are not
//      normalised (Property 4);
//   5. the sum is normalised once and truncated to float32.
// float16/bfloat16 results are then rounded to nearest (Valpey et al., NFM 2025 Property 2).
//
// Everything here is exact integer arithmetic on doubles (a product of two values of any input
// format the model accepts is exact in double), independent of the host's rounding mode.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/format.hpp"

namespace fprev::tcsim {

// A step width that differs from the architecture's for one input format (Hopper's wgmma adds 8
// tf32 or 32 fp8 products per step, 16 of the 16-bit formats).
struct FormatStep {
  Format format = Format::float16;
  int products_per_step = 16;
};

// Parameters of one generation's fused multi-term sum. Construct your own to model hardware the
// presets below do not cover.
struct ArchModel {
  std::string name;             // "volta", ...
  int products_per_step = 4;    // products added per fused step; the accumulator is one more term
  int significand_bits = 24;    // alignment width: the float32 significand
  int extra_bits = 0;           // shifted-out bits kept below the significand while aligning
  int carry_bits = 3;           // bits above the significand that absorb carries
  std::vector<Format> inputs;   // formats the fused path accepts (float64 excluded)
  bool float64_fma = false;     // float64 GEMM as a chain of IEEE FMAs (the DMMA path)
  std::vector<FormatStep> format_steps;  // per-format step widths overriding products_per_step

  int fused_width() const { return products_per_step + 1; }
  bool supports(Format input) const;  // fused inputs, and float64 when float64_fma
  // The model a GEMM with this input format runs: its step width, and carry bits enough for that
  // many terms (ceil(log2(terms)), never fewer than the architecture's).
  ArchModel for_input(Format input) const;
};

enum class Arch : std::uint8_t { volta, turing, ampere, hopper };
std::string_view to_string(Arch arch);
std::optional<Arch> parse_arch(std::string_view name);
std::string arch_names();  // "volta, turing, ampere, hopper"

// Extra alignment bits of Hopper when none is given: 2, measured by the fingerprint on an H200
// through cuBLAS 13.1 (float16, bfloat16 and tf32 GEMMs; the papers stop at Ampere's 1, Valpey et
// al., NFM 2025 Sec. 7 expects more on Hopper). See backends/tcsim/README.md.
inline constexpr int kDefaultHopperExtraBits = 2;

// The presets (Valpey et al., NFM 2025 Sec. 4-5 for Volta/Turing/Ampere; Xie et al., USENIX ATC
// 2025 Sec. 7 for the 17-term Hopper step; the H200 run of backends/cublas/README.md for Hopper's
// tf32 and fp8 steps and extra bits). `hopper_extra_bits` is used for Hopper only.
ArchModel arch_model(Arch arch, int hopper_extra_bits = kDefaultHopperExtraBits);

// Bit widths of one fused sum.
struct FusedSumParams {
  int significand_bits = 24;
  int extra_bits = 0;
  int carry_bits = 3;
};
FusedSumParams fused_params(const ArchModel& model);

// The fused sum of `terms` (each an exact value: a product or the float32 accumulator), truncated
// to float32 and returned as a double. NaN when a term is NaN or infinities of both signs meet;
// an infinity otherwise dominates. A sum that overflows the register (fewer carry bits than the
// term count needs) wraps around in two's complement, as a fixed-width adder does. A result
// beyond float32's range is +-infinity.
double fused_sum(std::span<const double> terms, const FusedSumParams& params);

// One accelerator step: acc + sum_i a[i] * b[i] with exact products (a.size() == b.size() <=
// products_per_step; fewer products model zero padding).
double fused_step(const ArchModel& model, double acc, std::span<const double> a,
                  std::span<const double> b);

// Final conversion of a float32 accumulator value to the output format: float32 unchanged,
// float16 and bfloat16 rounded to nearest even (overflow to infinity).
double convert_output(double float32_value, Format output);

// Rounding of x (finite) to `precision` significand bits, with the quantum never below
// 2^min_quantum_exponent (gradual underflow) and +-infinity above 2^(max_exponent + 1).
enum class Rounding : std::uint8_t { truncate, nearest_even };
double round_binary(double x, int precision, int min_quantum_exponent, int max_exponent,
                    Rounding rounding);

}  // namespace fprev::tcsim
