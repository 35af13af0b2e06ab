// The revelation algorithms. FPRev and BasicFPRev are written as sequences of waves: the caller
// measures each wave's requests wherever it likes (batched on a single-output target, or placed on
// the elements of one class of a grid target) and hands the measurements back, so several classes
// of an order map are revealed side by side and share target calls.
#pragma once

#include <memory>
#include <span>

#include "fprev/reveal.hpp"
#include "probe_session.hpp"

namespace fprev::detail {

class RevealAlgorithm {
 public:
  virtual ~RevealAlgorithm() = default;
  // True when every wave has been answered.
  virtual bool done() const = 0;
  // The requests of the current wave (stable until accept()); empty only when done.
  virtual std::span<const ProbeRequest> wave() = 0;
  // The measurements of the current wave, in the order of wave(). Throws RevealFailure when they
  // cannot come from one fixed tree.
  virtual void accept(std::span<const Measurement> results) = 0;
  // The tree, once done().
  virtual Tree finish() = 0;
  virtual std::size_t leaves_placed() const { return 0; }
  // Subtrees guessed from a sibling and proven, and guesses that failed (sibling_guess.hpp).
  virtual std::size_t guesses_proven() const { return 0; }
  virtual std::size_t guesses_failed() const { return 0; }
};

// Xie et al., USENIX ATC 2025 Alg. 4 (+ Alg. 5 when the counts exceed the exact range).
std::unique_ptr<RevealAlgorithm> make_fprev(std::size_t n, const MaskScheme& scheme,
                                            const Background* all_active,
                                            const RevealOptions& options);
// Xie et al., USENIX ATC 2025 Alg. 2, multiway: every pair in one wave.
std::unique_ptr<RevealAlgorithm> make_basic(std::size_t n, const MaskScheme& scheme,
                                            const Background* all_active);
// FPRev switches to the low-dynamic-range technique (Alg. 5) when n - 2 units may round.
bool uses_low_range_mode(std::size_t n, const MaskScheme& scheme);

// Runs `algorithm` to the end on a single-output target, each wave batched by the session.
// Adds the algorithm's guesses to `stats`.
Tree run_waves(ProbeSession& session, RevealAlgorithm& algorithm, RevealStats& stats);

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

// The naive search's parts, for grid targets (each class of elements answering alike is searched
// on its own outputs): kNaiveInputs random inputs, and the one tree reproducing `expected`.
inline constexpr std::size_t kNaiveInputs = 32;
void check_naive_size(std::size_t n);
RandomInputs naive_inputs(const TargetInfo& info, std::uint64_t seed);
Tree naive_search(const TargetInfo& info, const RandomInputs& inputs,
                  const std::vector<double>& expected);

}  // namespace fprev::detail
