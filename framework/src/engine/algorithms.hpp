// The three revelation algorithms, over a ProbeSession.
#pragma once

#include "fprev/reveal.hpp"
#include "probe_session.hpp"

namespace fprev::detail {

Tree run_fprev(ProbeSession& session, const RevealOptions& options, RevealStats& stats);   // Xie et al., USENIX ATC 2025 Alg. 4 (+ Alg. 5)
Tree run_basic(ProbeSession& session);                       // Xie et al., USENIX ATC 2025 Alg. 2, multiway
Tree run_naive(ProbeSession& session, std::uint64_t seed);   // Xie et al., USENIX ATC 2025 Sec. 3.3, n <= 8

// Random inputs whose sums are reproducible by simulation: values exactly representable in the
// input format, of mixed signs and magnitudes; for products the right factors are powers of two so
// every product is exact (FMA or not). `a` has rows x n values, `b` n values (empty when plain).
struct RandomInputs {
  std::vector<double> a;
  std::vector<double> b;
  double summand(std::size_t row, std::size_t n, std::size_t k) const {
    return a[row * n + k] * (b.empty() ? 1.0 : b[k]);
  }
};
RandomInputs make_random_inputs(const TargetInfo& info, std::size_t rows, std::uint64_t seed,
                                int exponent_spread);

}  // namespace fprev::detail
