// The reference Target: loads a probe or a row of values into plain arrays (ProbeVectors, O(1)
// per probe) and runs the kernel of its order. No allocation per call.
#include <algorithm>
#include <numeric>
#include <random>

#include "exact_accumulator.hpp"
#include "fprev/probe_inputs.hpp"
#include "kernels.hpp"

namespace fprev::reference {
namespace {

using detail::NativeArithmetic;
using detail::PlainSummands;
using detail::ProductSummands;
using detail::RoundedArithmetic;

// Converts a finished partial sum (or a lone summand when n == 1) to the output format. The
// accumulator is never wider than the output, so only a raw summand can need rounding here.
double to_output(double value, Format output) {
  switch (output) {
    case Format::float64:
      return value;
    case Format::float32:
      return static_cast<double>(static_cast<float>(value));
    default:
      return round_to_format(value, output);
  }
}

template <class T, class Arith, bool kProduct>
class ReferenceTarget final : public Target {
 public:
  using Acc = typename Arith::Acc;

  ReferenceTarget(const ReferenceSpec& spec, Arith arithmetic)
      : spec_(spec), split_(spec.splits_k() ? spec.n / 2 : 0), arith_(arithmetic), output_(output_format(spec)),
        vectors_(spec.n) {
    info_.description = describe(spec);
    if (spec.op == "gemv") info_.grid = {spec.m, 1};
    info_.n = spec.n;
    info_.traits = reference_traits(spec);
    info_.max_batch = 1;
    // ProbeVectors places the inputs at the batch's offset; aligned_peel's order depends on it.
    info_.alignment = AlignmentSupport::honours_offsets;
    info_.extra_masks = !info_.is_grid();  // ProbeVectors sets a probe's further masks
    nan_threshold_ = nan_threshold(info_.traits.accumulator);
    switch (spec.order) {
      case Order::strided_pairwise:
      case Order::strided_sequential:
      case Order::aligned_peel:
        accs_.resize(std::min(spec.lanes, spec.n));
        break;
      case Order::random_tree:
        merges_ = random_tree_merges(spec.n, spec.seed);
        accs_.resize(spec.n);
        break;
      case Order::nondeterministic:
        permutation_.resize(spec.n);
        std::iota(permutation_.begin(), permutation_.end(), 0u);
        shuffler_.seed((static_cast<std::uint64_t>(std::random_device{}()) << 32) ^
                       std::random_device{}());
        break;
      case Order::sorted_magnitude:
        sorted_.resize(spec.n);
        break;
      default:
        break;
    }
  }

  const TargetInfo& info() const override { return info_; }

  // A single-output target evaluates one output per probe; gemv (a grid of m x 1) puts probe p on
  // row p and leaves the rows without a probe at 0 (their outputs are ignored).
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    check_outputs(batch.probes.size(), outputs.size(), "probes");
    std::fill(outputs.begin(), outputs.end(), 0.0);
    for (std::size_t p = 0; p < batch.probes.size(); ++p) {
      vectors_.load(batch, p);
      outputs[p] = run();
    }
  }

  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    check_outputs(batch.rows, outputs.size(), "value rows");
    if (batch.a.size() < batch.rows * spec_.n || (kProduct && batch.b.size() != spec_.n && !batch.b.empty()))
      throw TargetError("reference target: value batch of " + std::to_string(batch.rows) +
                        " rows does not match n=" + std::to_string(spec_.n));
    std::fill(outputs.begin(), outputs.end(), 0.0);
    for (std::size_t row = 0; row < batch.rows; ++row) {
      vectors_.load(batch, row);
      outputs[row] = run();
    }
  }

 private:
  void check_outputs(std::size_t inputs, std::size_t outputs, const char* what) const {
    const bool ok = info_.is_grid() ? outputs == info_.grid.size() && inputs <= info_.grid.rows : outputs == inputs;
    if (!ok)
      throw TargetError("reference target: " + std::to_string(outputs) + " outputs for " + std::to_string(inputs) +
                        " " + what + " (" + info_.description + ")");
  }

  double run() {
    if constexpr (kProduct) {
      return dispatch(ProductSummands<T>{vectors_.a(), vectors_.b()},
                      ProductSummands<T>{vectors_.a() + split_, vectors_.b() + split_});
    } else {
      return dispatch(PlainSummands<T>{vectors_.a()}, PlainSummands<T>{vectors_.a() + split_});
    }
  }

  // `upper` is the source shifted to the second half of a split K (unused without a split).
  template <class S>
  double dispatch(const S& s, const S& upper) {
    if (spec_.order == Order::exact) {
      exact_.clear();
      for (std::size_t k = 0; k < spec_.n; ++k) exact_.add(static_cast<double>(s(k)));
      return exact_.round(output_);
    }
    if (split_ == 0) return to_output(static_cast<double>(accumulate(s, spec_.n)), output_);
    const Acc lower_sum = accumulate(s, split_);
    const Acc upper_sum = accumulate(upper, spec_.n - split_);
    return to_output(static_cast<double>(arith_.add(lower_sum, upper_sum)), output_);
  }

  template <class S>
  Acc accumulate(const S& s, std::size_t n) {
    switch (spec_.order) {
      case Order::sequential: return detail::sum_sequential(s, n, arith_);
      case Order::reverse: return detail::sum_reverse(s, n, arith_);
      case Order::pairwise: return detail::sum_pairwise(s, 0, n, arith_);
      case Order::strided_pairwise: return detail::sum_strided_pairwise(s, n, spec_.lanes, arith_, accs_.data());
      case Order::strided_sequential: return detail::sum_strided_sequential(s, n, spec_.lanes, arith_, accs_.data());
      case Order::blocked: return detail::sum_blocked(s, n, spec_.block, arith_);
      case Order::fused: return detail::sum_fused(s, n, spec_.width, arith_);
      case Order::random_tree: return detail::sum_merges(s, n, merges_, arith_, accs_.data());
      case Order::aligned_peel:
        return detail::sum_aligned_peel(s, n, spec_.lanes, vectors_.offset(), arith_, accs_.data());
      case Order::nondeterministic:
        std::shuffle(permutation_.begin(), permutation_.end(), shuffler_);
        return detail::sum_permuted(s, permutation_, arith_);
      case Order::sorted_magnitude: return detail::sum_sorted_magnitude(s, n, arith_, sorted_.data());
      case Order::nan: return detail::sum_nan(s, n, arith_, nan_threshold_);
      case Order::exact: break;  // dispatch() handles it
    }
    return Acc{};
  }

  ReferenceSpec spec_;
  std::size_t split_ = 0;  // gemv with a split K: the first half's length n/2; 0: no split
  Arith arith_;
  Format output_;
  TargetInfo info_;
  ProbeVectors<T> vectors_;
  double nan_threshold_ = 0.0;
  std::vector<Acc> accs_;                  // lane sums (strided), slots (random_tree)
  std::vector<Merge> merges_;              // random_tree
  std::vector<std::uint32_t> permutation_;  // nondeterministic
  std::mt19937_64 shuffler_;                // nondeterministic
  std::vector<T> sorted_;                   // sorted_magnitude
  detail::ExactAccumulator exact_;          // exact
};

template <class T, class Arith>
std::unique_ptr<Target> make_with(const ReferenceSpec& spec, Arith arithmetic) {
  if (spec.op == "dot" || spec.op == "gemv") return std::make_unique<ReferenceTarget<T, Arith, true>>(spec, arithmetic);
  return std::make_unique<ReferenceTarget<T, Arith, false>>(spec, arithmetic);
}

template <class T>
std::unique_ptr<Target> make_for_input(const ReferenceSpec& spec) {
  const Format accumulator = accumulator_format(spec);
  if (accumulator == spec.dtype) return make_with<T>(spec, NativeArithmetic<T>(accumulator));
  return make_with<T>(spec, RoundedArithmetic(accumulator));
}

}  // namespace

std::unique_ptr<Target> make_reference_target(const ReferenceSpec& spec) {
  validate_spec(spec);
  if (spec.dtype == Format::float64) return make_for_input<double>(spec);
  return make_for_input<float>(spec);
}

}  // namespace fprev::reference
