// The pair grid of a GEMM's order map (src/engine/pair_grid.hpp): every l(i, j) measured at the
// grid's own elements in two value calls, read by each class's FPRev instead of rounds of one probe
// per line. The map must be the one the rounds find, in fewer calls, whatever the classes; a target
// whose value calls answer the pair grid wrongly must never get a wrong map from it.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <span>
#include <string>

#include "fprev/order_map.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"
#include "grid_oracle_target.hpp"
#include "oracle_target.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

std::string text_of(const OrderMap& map) {
  std::string text;
  for (const std::string& line : describe_map(map)) text += "  " + line + "\n";
  return text;
}

struct Revealed {
  RevealResult result;
  std::size_t probe_calls = 0, value_calls = 0;
};

Revealed reveal_with(GridOracleTarget& target, bool pair_grid, RevealOptions options = {}) {
  options.pair_grid = pair_grid;
  const std::size_t probe_calls = target.probe_calls, value_calls = target.value_calls;
  Revealed r{reveal(target, options), 0, 0};
  r.probe_calls = target.probe_calls - probe_calls;
  r.value_calls = target.value_calls - value_calls;
  EXPECT_TRUE(same_orders(r.result.map, target.truth()))
      << (pair_grid ? "with" : "without") << " the pair grid, revealed:\n"
      << text_of(r.result.map) << "truth:\n"
      << text_of(target.truth());
  return r;
}

GridOracleTarget gemm_like(OutputGrid grid, std::vector<Tree> trees, GridOracleTarget::TreeOf tree_of) {
  GridOracleTarget target(grid, std::move(trees), std::move(tree_of), float32_product_traits());
  target.take_column_factors();
  return target;
}

// One tree on an n x n GEMM-like grid whose value calls come back edited by `edit` (a misbehaving
// kernel: the pair grid's calls are those with right factors per column).
class EditedValueCalls : public GridOracleTarget {
 public:
  using Edit = std::function<void(const ValueBatch&, std::span<double>)>;
  EditedValueCalls(std::size_t n, Tree tree, Edit edit)
      : GridOracleTarget({n, n}, {std::move(tree)}, [](std::size_t, std::size_t) { return std::size_t{0}; },
                         float32_product_traits()),
        edit_(std::move(edit)) {
    take_column_factors();
  }
  using GridOracleTarget::evaluate;
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    GridOracleTarget::evaluate(batch, outputs);
    edit_(batch, outputs);
  }

 private:
  Edit edit_;
};

// One tree on a grid of at least n x n: the pair grid's two calls replace FPRev's rounds (no probe
// call before the per-element checks), every FPRev probe is answered there, and every other pair
// it measured is checked against the tree at the elements that answered it.
TEST(PairGrid, OneClassIsRevealedFromTwoCallsWithTheRoundsMap) {
  for (const Tree& tree : {left_deep_tree(40), balanced_tree(33), lanes_tree(48, 8), random_binary_tree(37, 11)}) {
    SCOPED_TRACE(to_sexpr(tree));
    const std::size_t n = tree.leaf_count();
    GridOracleTarget target = gemm_like({n + 3, n}, {tree}, [](std::size_t, std::size_t) { return std::size_t{0}; });
    const Revealed with = reveal_with(target, true);
    const Revealed without = reveal_with(target, false);
    EXPECT_EQ(with.result.tree, without.result.tree);
    EXPECT_EQ(with.result.stats.pair_grid_calls, 2u);
    EXPECT_GE(with.result.stats.pair_grid_answers, n - 1);  // FPRev asks at least n - 1 probes
    EXPECT_EQ(without.result.stats.pair_grid_calls, 0u);
    EXPECT_EQ(without.result.stats.pair_grid_answers, 0u);
    // The rounds' probe calls are gone: only the per-element checks' remain.
    EXPECT_LT(with.probe_calls, without.probe_calls);
    EXPECT_LE(with.result.stats.target_calls, without.result.stats.target_calls);
    // Every element answered two pairs, each checked against the tree, on top of the check rounds.
    EXPECT_GE(with.result.stats.element_checks,
              without.result.stats.element_checks + 2 * (n + 3) * n - 2 * (n + 3));
  }
}

// Two halves of other trees, each holding every pair: each class reads the answers of its own
// elements only. Edge rows and columns of other trees (a kernel's tails) and a checkerboard, whose
// classes cannot hold every pair: no pair grid (the rounds they need would carry the other classes'
// probes anyway), the rounds' map.
TEST(PairGrid, EveryClassReadsOnlyItsOwnElementsAnswers) {
  const std::size_t n = 24;
  const std::vector<Tree> trees = {left_deep_tree(n), balanced_tree(n), lanes_tree(n, 4)};
  {
    GridOracleTarget target = gemm_like({48, 30}, trees, [](std::size_t r, std::size_t) {
      return std::size_t{r >= 24 ? 1u : 0u};
    });
    const Revealed with = reveal_with(target, true);
    EXPECT_EQ(with.result.map.classes.size(), 2u);
    EXPECT_EQ(with.result.stats.pair_grid_calls, 2u);
    EXPECT_GE(with.result.stats.pair_grid_answers, 2 * (n - 1));
    const Revealed without = reveal_with(target, false);
    EXPECT_LT(with.probe_calls, without.probe_calls);  // no rounds: the per-element checks' calls only
    EXPECT_LE(with.result.stats.target_calls, without.result.stats.target_calls);
  }
  {
    GridOracleTarget target = gemm_like({30, 27}, trees, [](std::size_t r, std::size_t c) {
      return std::size_t{r >= 26 ? 1u : (c >= 24 ? 2u : 0u)};
    });
    const Revealed with = reveal_with(target, true);
    EXPECT_EQ(with.result.map.classes.size(), 3u);
    EXPECT_EQ(with.result.stats.pair_grid_calls, 0u);
  }
  {
    GridOracleTarget target = gemm_like({26, 26}, trees, [](std::size_t r, std::size_t c) {
      return std::size_t{(r + c) % 2 == 0 ? 0u : 1u};
    });
    const Revealed with = reveal_with(target, true);
    EXPECT_EQ(with.result.map.classes.size(), 2u);
    EXPECT_EQ(with.result.stats.pair_grid_calls, 0u);
  }
}

// Two threads splitting C in halves of rows (or columns), each half another tree, on a grid of
// exactly n x n: the first call gives each half only half the leaves on its rows, a shuffled
// second call would leave pairs out, the second call turned half way round gives each half the
// other leaves: both classes hold every pair.
TEST(PairGrid, HalvesOfTheGridTakeTheSecondCallTurnedHalfWayRound) {
  const std::size_t n = 24;
  const std::vector<Tree> trees = {left_deep_tree(n), balanced_tree(n)};
  for (bool by_rows : {true, false}) {
    GridOracleTarget target = gemm_like({n, n}, trees, [by_rows, n](std::size_t r, std::size_t c) {
      return std::size_t{(by_rows ? r : c) >= n / 2 ? 1u : 0u};
    });
    const Revealed with = reveal_with(target, true);
    EXPECT_EQ(with.result.map.classes.size(), 2u);
    EXPECT_EQ(with.result.stats.pair_grid_calls, 2u);
    EXPECT_LT(with.probe_calls, reveal_with(target, false).probe_calls);
  }
}

// A kernel built to trap floating-point exceptions would die of an overflow: no call of the pair
// grid may overflow, not even at the elements whose row and column mask the same leaf (they add the
// two large factors' product), and the value calls' outputs stay finite everywhere.
TEST(PairGrid, NoCallOverflows) {
  for (std::size_t n : {std::size_t{24}, std::size_t{64}}) {
    EditedValueCalls target(n, left_deep_tree(n), [](const ValueBatch&, std::span<double> outputs) {
      for (double out : outputs)
        if (!std::isfinite(out)) throw TargetError("a value call overflowed (" + std::to_string(out) + ")");
    });
    const Revealed with = reveal_with(target, true);
    EXPECT_EQ(with.result.stats.pair_grid_calls, 2u);
  }
}

// Pair-grid outputs that are no whole count of units (a kernel scaling its result, extra
// precision): the pair grid gives nothing at all, and the rounds, with the target's own scheme,
// reveal the map (or diagnose the target) exactly as without it.
TEST(PairGrid, OutputsThatAreNoCountGiveNothingAndTheRoundsReveal) {
  const std::size_t n = 20;
  EditedValueCalls target(n, balanced_tree(n), [](const ValueBatch& batch, std::span<double> outputs) {
    if (batch.column_factors.empty()) return;
    for (double& out : outputs) out += 0.5 * batch.a[1] * batch.b[1];  // half a unit (row 0, block 0, leaf 1)
  });
  const Revealed with = reveal_with(target, true);
  EXPECT_EQ(with.result.stats.pair_grid_answers, 0u);
  EXPECT_EQ(with.result.stats.pair_grid_calls, 1u);  // the first call's outputs end it
  EXPECT_EQ(with.probe_calls, reveal_with(target, false).probe_calls);
}

// A grid smaller than n x n in either direction cannot hold every pair in a call, and a target
// without right factors per column cannot take the crossed inputs: no pair grid, the rounds as before.
TEST(PairGrid, OnlyGridsThatHoldEveryPairUseIt) {
  const Tree tree = left_deep_tree(20);
  const auto one = [](std::size_t, std::size_t) { return std::size_t{0}; };
  GridOracleTarget narrow = gemm_like({40, 19}, {tree}, one);
  EXPECT_EQ(reveal_with(narrow, true).result.stats.pair_grid_calls, 0u);
  GridOracleTarget shared_b({40, 40}, {tree}, one, float32_product_traits());
  EXPECT_EQ(reveal_with(shared_b, true).result.stats.pair_grid_calls, 0u);
  GridOracleTarget wide = gemm_like({20, 20}, {tree}, one);
  EXPECT_EQ(reveal_with(wide, true).result.stats.pair_grid_calls, 2u);
}

// Value calls that answer as another tree does (an arithmetic that hides the order from random
// inputs, and so from the pair grid too): the pair grid's answers are consistent, and wrong for the
// elements of the other tree. The per-element checks' probes tell them apart and the map is right.
TEST(PairGrid, ValueCallsThatLieCannotPutAWrongTreeInTheMap) {
  const std::size_t n = 24;
  GridOracleTarget target = gemm_like({30, 30}, {left_deep_tree(n), balanced_tree(n)},
                                      [](std::size_t r, std::size_t) { return std::size_t{r >= 26 ? 1u : 0u}; });
  target.answer_values_with(0);
  RevealOptions options;
  options.verify_inputs = 0;  // the simulated sums would not match the lying arithmetic
  const Revealed with = reveal_with(target, true, options);
  EXPECT_EQ(with.result.map.classes.size(), 2u);
  EXPECT_GE(with.result.stats.class_splits, 1u);
}

// A value call that answers one pair wrongly at every element (a pair FPRev does not ask of a
// sequential sum, whose pivot is leaf 0): the class's table is consistent, so only the check of
// every pair against the tree finds it. The class is then revealed afresh by rounds, and the map
// is right.
TEST(PairGrid, APairAnsweredWronglyEverywhereIsFoundByTheWholeTableCheck) {
  const std::size_t n = 20;
  EditedValueCalls target(n, left_deep_tree(n), [n](const ValueBatch& batch, std::span<double> outputs) {
    if (batch.column_factors.empty()) return;
    for (std::size_t r = 0; r < batch.rows; ++r)
      for (std::size_t c = 0; c < n; ++c) {
        const auto row = batch.a.subspan(r * n, n);
        const auto column = batch.b.subspan(batch.column_factors[c] * n, n);
        // +M at leaf 5 (the row's large factor), -M at leaf 9 (the column's).
        if (std::fabs(row[5]) > std::fabs(row[0]) && std::fabs(column[9]) > std::fabs(column[0]))
          outputs[r * n + c] -= row[0] * column[0];  // one unit fewer: l(5, 9) one more
      }
  });
  const Revealed honest_reference = [&] {
    EditedValueCalls honest(n, left_deep_tree(n), [](const ValueBatch&, std::span<double>) {});
    return reveal_with(honest, true);
  }();
  const Revealed with = reveal_with(target, true);
  EXPECT_EQ(with.result.tree, left_deep_tree(n));
  // The wrong pair was broadcast as a probe and the class revealed again in rounds: more probe calls
  // than where every pair was right.
  EXPECT_GT(with.probe_calls, honest_reference.probe_calls);
}

}  // namespace
}  // namespace fprev
