// The `reference` backend: plain C++ summation kernels whose accumulation order is known by
// construction. They are the ground truth of the engine tests (every order with a summation tree
// must be revealed exactly) and of the misbehaviour diagnostics (the last four orders have no tree).
//
// Orders (n summands x[0..n-1]; "add" is an IEEE round-to-nearest addition in the accumulator):
//   sequential          ((x0 + x1) + x2) + ...
//   reverse             ((x[n-1] + x[n-2]) + x[n-3]) + ... + x0
//   pairwise            sum(x[0:n]) = sum(x[0:m]) + sum(x[m:n]) with m = n/2 (integer division),
//                       so the left half is the smaller one for odd n: 3 summands give x0 + (x1 + x2)
//   strided_pairwise    K = lanes accumulators (NumPy-like): lane r adds x[r], x[r+K], x[r+2K], ...
//                       sequentially; the lane sums are then combined pairwise (same halving rule).
//                       With n < K only the first n lanes exist.
//   strided_sequential  the same lanes, combined sequentially: lane0 + lane1 + lane2 + ...
//   blocked             blocks of B = block consecutive summands, each summed sequentially; the block
//                       sums combined sequentially (the last block may be shorter)
//   fused               w = width: one fused w-term node adds x[0..w-1], then each step fuses the
//                       running sum with the next w-1 summands; the last step may be narrower. A fused
//                       node aligns every term to the largest exponent among its terms, keeps
//                       precision(accumulator) bits below that exponent's leading bit (0 extra bits),
//                       drops the shifted-out bits (truncation toward zero), adds exactly and rounds
//                       the result to the accumulator (nearest even). A step of only two terms is an
//                       ordinary IEEE addition, as every binary node is.
//   aligned_peel        a kernel that peels until aligned (Eigen's reductions): with the input
//                       `offset` elements after a 64-byte boundary (ProbeBatch::offset), the first
//                       p = (lanes - offset % lanes) % lanes summands (at most n) are peeled, the
//                       rest x[p..n-1] is added as strided_pairwise with `lanes` lanes, and the
//                       peeled summands are then added to that one at a time, x[0] first. Its
//                       order depends on the offset modulo lanes: the alignment check's ground truth
//   random_tree         a random binary tree drawn from std::mt19937_64(seed) (random_tree_merges),
//                       evaluated iteratively
//   nondeterministic    every call adds the summands sequentially in a freshly shuffled order
//                       (engine seeded from std::random_device): run-to-run different, like atomics
//   sorted_magnitude    value-dependent: summands sorted by |x| ascending (ties: negative first),
//                       then added sequentially
//   exact               order-independent: the exact sum (superaccumulator), correctly rounded to
//                       the output format (Collange et al., Parallel Computing 2015)
//   nan                 the sequential sum, but NaN whenever some |summand| >= nan_threshold() (a
//                       broken kernel)
//
// op "sum" adds the inputs (SummandKind::plain); op "dot" adds the products x[k]*y[k], each rounded
// to dtype (SummandKind::product). op "gemv" is y = A x with m rows (a grid target of m x 1
// outputs, SummandKind::product_shared_rhs): row r adds A[r][k]*x[k] in `order`, except that with
// m <= split_k_max_m the K summands are split in two halves (h = n/2), each added in `order` over
// its own summands, and the halves' sums added last: a split-K whose choice depends on the batch,
// as GPU libraries make it for small m. It is the invariance check's ground truth
// (docs/invariance.md): the order of row 0 changes between m = split_k_max_m and m + 1. Inputs are dtype (float32 or float64). The accumulator is the
// narrower of dtype and output: with output float16/bfloat16 (or float32 for float64 input) every
// addition rounds its exact result to the output format (a summand enters its first addition
// unrounded; a lone summand, n = 1, is rounded to the output); otherwise partial sums are kept in
// dtype and the result is converted exactly to the (wider or equal) output format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/format.hpp"
#include "fprev/target.hpp"

namespace fprev::reference {

enum class Order : std::uint8_t {
  sequential,
  reverse,
  pairwise,
  strided_pairwise,
  strided_sequential,
  blocked,
  fused,
  random_tree,
  aligned_peel,
  nondeterministic,
  sorted_magnitude,
  exact,
  nan,
};

std::string_view to_string(Order order);
std::optional<Order> parse_order(std::string_view name);
const std::vector<Order>& all_orders();  // in declaration order
std::string order_names();               // "sequential, reverse, pairwise, ..."
// True for the orders that follow a fixed summation tree (sequential .. random_tree); false for the
// misbehaving ones (nondeterministic, sorted_magnitude, exact, nan), which the engine must refuse.
bool has_summation_tree(Order order);

struct ReferenceSpec {
  std::string op = "sum";  // "sum", "dot" or "gemv"
  Order order = Order::sequential;
  Format dtype = Format::float32;  // input format: float32 or float64
  // Result format: float16, bfloat16, float32 or float64; empty means "the same as dtype" (so that
  // changing dtype alone never leaves a stale output format behind).
  std::optional<Format> output;
  std::size_t n = 0;       // summands, >= 1
  std::size_t lanes = 8;   // strided orders, aligned_peel
  std::size_t block = 64;  // blocked
  std::size_t width = 5;   // fused (2 .. kMaxFusedWidth)
  std::uint64_t seed = 1;  // random_tree
  std::size_t m = 1;              // gemv: rows of A (outputs)
  std::size_t split_k_max_m = 0;  // gemv: K split in two halves when m <= this (0: never)
  // gemv with m <= split_k_max_m and n >= 2.
  bool splits_k() const { return op == "gemv" && m <= split_k_max_m && n >= 2; }
};

inline constexpr std::size_t kMaxFusedWidth = 64;

Format output_format(const ReferenceSpec& spec);       // spec.output or dtype
Format accumulator_format(const ReferenceSpec& spec);  // the narrower of dtype and output
NumericTraits reference_traits(const ReferenceSpec& spec);
// "reference strided_pairwise float32 dot, n=1000, lanes=8" (+ ", output float16" when narrowed)
std::string describe(const ReferenceSpec& spec);
// Throws ConfigError (naming the parameter and the allowed values) for a spec no kernel can run.
void validate_spec(const ReferenceSpec& spec);
// Validates, then builds the target (max_batch 1; gemv: a grid of m x 1). Every reference target honours offsets
// (TargetInfo::alignment): only aligned_peel's order depends on them.
std::unique_ptr<Target> make_reference_target(const ReferenceSpec& spec);

// The definition of random_tree: starting from the n leaves as live nodes, each merge picks two
// distinct live nodes uniformly at random (std::mt19937_64(seed), 128-bit multiply-shift, so it is
// the same on every platform), adds `from` into `into`, and `from` stops being live. A live node is
// named by the leaf slot it started from (its value is kept in that slot). There are n - 1 merges;
// the last `into` holds the root (slot 0 when n == 1).
struct Merge {
  std::uint32_t into = 0;
  std::uint32_t from = 0;
};
std::vector<Merge> random_tree_merges(std::size_t n, std::uint64_t seed);

// The nan order returns NaN when some |summand| reaches this value: 2^40, lowered to 2^(emax-4)
// for accumulators whose range ends below that (float16: 2^11), so masks of every format trip it.
double nan_threshold(Format accumulator);

}  // namespace fprev::reference

namespace fprev {
// Registers the backend "reference" (no instance parameters; case parameters op, order, dtype,
// output, n, lanes, block, width, seed).
void register_reference_backend(BackendRegistry& registry);
}  // namespace fprev
