// The `tcsim` backend: simulated matrix accelerators (Tensor Cores of Volta, Turing, Ampere and
// Hopper) as a deterministic, GPU-free target, so multiway revelation and its goldens run in every
// CI build. The arithmetic model lives in tcsim/fused_sum.hpp, the GEMM driver in tcsim/gemm.hpp;
// this header turns them into fprev::Target objects and registers the backend.
#pragma once

#include <cstddef>
#include <memory>

#include "fprev/backend.hpp"
#include "fprev/backends/tcsim/fused_sum.hpp"
#include "fprev/backends/tcsim/gemm.hpp"
#include "fprev/target.hpp"

namespace fprev::tcsim {

// Default k_tile per architecture (CUTLASS-like threadblock k extents for 16-bit inputs).
std::size_t default_k_tile(Arch arch);

// One GEMM target: D[m x n] = A[m x k] * B[k x n] (+ C when beta). Leaves 0..k-1 are the products
// along k; with beta, C is leaf k. One probe per row of A with B shared by all rows (max_batch = m;
// every column of B is the same, so the first and the last column of D must agree, which is
// checked). Where one factor's range cannot mask the sum (fp8), each probe gets its own row of A
// and column of B and is read on the diagonal of D (max_batch = min(m, n)).
struct GemmTargetSpec {
  ArchModel model = arch_model(Arch::volta);
  GemmConfig config;
  Format input = Format::float16;
  Format output = Format::float32;  // float64 when input is float64
  std::size_t m = 16;
  std::size_t n = 16;
  std::size_t k = 32;
  bool beta = false;
};

// Checks a spec; throws fprev::ConfigError naming the parameter (arch, dtype, output, k_tile,
// beta, m, n, k) and the allowed values.
void validate(const GemmTargetSpec& spec);
std::unique_ptr<Target> make_tcsim_target(const GemmTargetSpec& spec);

}  // namespace fprev::tcsim

namespace fprev {
void register_tcsim_backend(BackendRegistry& registry);
}  // namespace fprev
