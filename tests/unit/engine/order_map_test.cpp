// Order maps of grid targets: every element gets the tree it follows, however the classes are laid
// out (edge rows and columns, 1 x 1 corners, checkerboards, classes that differ only deep inside
// the tree), classes share target calls, and an order that changes between calls is a finding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine_test_helpers.hpp"
#include "fprev/probe_inputs.hpp"
#include "fprev/sexpr.hpp"
#include "grid_oracle_target.hpp"
#include "tampered_grid_target.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

RevealResult reveal_grid(GridOracleTarget& target, RevealOptions options = {}) {
  const RevealResult result = reveal(target, options);
  EXPECT_TRUE(same_orders(result.map, target.truth()))
      << "revealed:\n"
      << [&] {
           std::string text;
           for (const std::string& line : describe_map(result.map)) text += "  " + line + "\n";
           text += "truth:\n";
           for (const std::string& line : describe_map(target.truth())) text += "  " + line + "\n";
           return text;
         }();
  EXPECT_EQ(result.map.classes.size(), target.truth().classes.size());
  EXPECT_EQ(result.stats.map_classes, result.map.classes.size());
  return result;
}

TEST(OrderMap, OneOrderGivesOneClassAndTheTree) {
  const Tree truth = random_binary_tree(40, std::uint64_t{7});
  GridOracleTarget target({12, 9}, {truth}, [](std::size_t, std::size_t) { return std::size_t{0}; });
  const RevealResult result = reveal_grid(target);
  ASSERT_TRUE(result.map.single_class());
  EXPECT_EQ(result.tree, truth);  // result.tree works as for a single-output target
  EXPECT_EQ(result.map.classes[0].regions.size(), 1u);
  EXPECT_EQ(result.stats.class_splits, 0u);
  EXPECT_EQ(result.stats.target_calls, target.calls());
}

TEST(OrderMap, EdgeRowsEdgeColumnsAndATinyCorner) {
  // Like a GEMM kernel with 8 x 4 register tiles on a 13 x 9 output: 4 classes, one of them the
  // single corner element (12, 8).
  const std::vector<Tree> trees = {left_deep_tree(33), right_deep_tree(33), balanced_tree(33),
                                   random_binary_tree(33, std::uint64_t{5})};
  GridOracleTarget target({13, 9}, trees, [](std::size_t r, std::size_t c) {
    return std::size_t{(r >= 8 ? 1u : 0u) + (c >= 8 ? 2u : 0u)};
  });
  const RevealResult result = reveal_grid(target);
  EXPECT_TRUE(result.tree.empty());  // several trees: read the map
  EXPECT_EQ(result.map.class_at(12, 8).tree, trees[3]);
  EXPECT_EQ(result.map.class_at(0, 0).tree, trees[0]);
  EXPECT_EQ(result.map.class_at(12, 0).tree, trees[1]);
  EXPECT_EQ(result.map.class_at(0, 8).tree, trees[2]);
}

TEST(OrderMap, CheckerboardClassesAreUnionsOfRegions) {
  // OpenBLAS's Haswell sgemm alternates two orders over 8-row and 6-column tiles.
  const std::vector<Tree> trees = {left_deep_tree(24), random_binary_tree(24, std::uint64_t{3})};
  GridOracleTarget target({30, 30}, trees, [](std::size_t r, std::size_t c) {
    return std::size_t{((r / 8) + (c / 6)) % 2};
  });
  const RevealResult result = reveal_grid(target);
  ASSERT_EQ(result.map.classes.size(), 2u);
  EXPECT_GT(result.map.classes[0].regions.size(), 1u);
}

TEST(OrderMap, ClassesThatDifferOnlyDeepInsideTheTreeAreSeparated) {
  // Same l(0, j) for every j: the trees differ only in how leaves 4..7 are combined.
  const Tree a = parse_sexpr("((((0 1) 2) 3) (((4 5) 6) 7))");
  const Tree b = parse_sexpr("((((0 1) 2) 3) ((4 5) (6 7)))");
  GridOracleTarget target({10, 7}, {a, b}, [](std::size_t r, std::size_t c) {
    return std::size_t{r == 9 && c == 6 ? 1u : 0u};
  });
  reveal_grid(target);
}

// Random inputs usually tell the orders apart before any probe (each group of elements with equal
// outputs starts as a class). When they cannot, the probes do: elements of one class answering a
// probe differently split it.
TEST(OrderMap, OrdersHiddenFromRandomInputsAreSplitByProbes) {
  const std::vector<Tree> trees = {left_deep_tree(24), balanced_tree(24), right_deep_tree(24)};
  GridOracleTarget target({13, 9}, trees, [](std::size_t r, std::size_t c) {
    return std::size_t{r >= 8 ? 1u : (c >= 8 ? 2u : 0u)};
  });
  target.answer_values_with(0);
  RevealOptions options;
  options.verify_inputs = 0;  // the simulated sums would not match the lying arithmetic
  const RevealResult result = reveal_grid(target, options);
  EXPECT_EQ(result.stats.value_classes, 1u);
  EXPECT_GE(result.stats.class_splits, 2u);
}

TEST(OrderMap, HiddenOrdersThatDifferOnlyDeepInsideAreSeparated) {
  const Tree a = parse_sexpr("((((0 1) 2) 3) (((4 5) 6) 7))");
  const Tree b = parse_sexpr("((((0 1) 2) 3) ((4 5) (6 7)))");
  for (std::size_t row : {std::size_t{0}, std::size_t{5}, std::size_t{9}}) {
    GridOracleTarget target({10, 7}, {a, b}, [row](std::size_t r, std::size_t c) {
      return std::size_t{r == row && c == 6 ? 1u : 0u};
    });
    target.answer_values_with(0);
    RevealOptions options;
    options.verify_inputs = 0;
    reveal_grid(target, options);
  }
}

// One element, or a 3 x 3 block, whose first or last summands join its tree elsewhere, with an
// arithmetic that hides it from random inputs: only probes tell it from its neighbours. The
// per-element checks give every element its class's edge pairs (where leaves n - 1, 0, n - 2 and 1
// join the tree), so it becomes a class of its own wherever it lies. (With the same neighbouring
// pairs for every tree, 10 of these layouts came out as one class, a wrong tree for the odd
// elements: a single element of 8 lanes whose last two summands traded lanes, at three of the
// four positions, a sequential element whose second and third summands traded places.)
TEST(OrderMap, AnElementOrBlockWhoseFirstOrLastSummandsMovedIsAClassOfItsOwn) {
  const std::size_t n = 32, R = 16, C = 12;
  const std::vector<std::pair<std::string, Tree>> shapes = {
      {"sequential", left_deep_tree(n)}, {"8 lanes", lanes_tree(n, 8)}, {"random", random_binary_tree(n, std::uint64_t{9})}};
  for (const auto& [name, tree] : shapes)
    for (const auto& [x, y] : std::vector<std::pair<std::size_t, std::size_t>>{{n - 1, n - 2}, {0, 1}, {1, 2}}) {
      const Tree other = with_leaves_swapped(tree, x, y);
      if (other == tree) continue;
      for (std::size_t k = 0; k < 4; ++k)
        for (const std::size_t size : {std::size_t{1}, std::size_t{3}}) {
          const std::size_t r = (k * 5) % (R - size), c = (k * 7) % (C - size);
          GridOracleTarget target({R, C}, {tree, other}, [&](std::size_t row, std::size_t column) {
            return std::size_t{row >= r && row < r + size && column >= c && column < c + size ? 1u : 0u};
          });
          target.answer_values_with(0);
          RevealOptions options;
          options.verify_inputs = 0;  // the simulated sums would not match the lying arithmetic
          SCOPED_TRACE(name + ", leaves " + std::to_string(x) + " and " + std::to_string(y) + " swapped in " +
                       std::to_string(size) + " x " + std::to_string(size) + " at (" + std::to_string(r) + ", " +
                       std::to_string(c) + ")");
          reveal_grid(target, options);
        }
    }
}

// The same in a single column (a GEMV: its rows are its elements): a row's probes are answered by
// that row alone, so a row whose first or last summands moved can hand FPRev an answer that fits
// no tree together with its neighbours' answers. Every element then answers the class's probes
// until one divides it; before, some rows made the reveal fail with inconsistent_structure (a
// GEMV whose row 1 added its second and third products the other way, tests/e2e/drift_sweep).
TEST(OrderMap, AColumnWhoseRowsAnswerAlonePartsOfOneTranscriptIsDividedNotRefused) {
  const std::size_t n = 24, R = 20;
  const std::vector<std::pair<std::string, Tree>> shapes = {
      {"sequential", left_deep_tree(n)}, {"8 lanes", lanes_tree(n, 8)}, {"random", random_binary_tree(n, std::uint64_t{9})}};
  const std::vector<std::pair<std::size_t, std::size_t>> swaps = {{1, 2}, {n - 1, n - 2}, {0, 2}, {n - 2, n - 3}};
  for (const auto& [name, tree] : shapes)
    for (const auto& [x, y] : swaps)
      for (std::size_t row = 0; row < R; ++row) {
        const Tree other = with_leaves_swapped(tree, x, y);
        if (other == tree) continue;
        GridOracleTarget target({R, 1}, {tree, other},
                                [row](std::size_t r, std::size_t) { return std::size_t{r == row ? 1u : 0u}; });
        target.answer_values_with(0);
        RevealOptions options;
        options.verify_inputs = 0;  // the simulated sums would not match the lying arithmetic
        SCOPED_TRACE(name + ", row " + std::to_string(row) + ": leaves " + std::to_string(x) + " and " +
                     std::to_string(y) + " swapped");
        reveal_grid(target, options);
      }
}

// A band of rows or columns whose order differs from the rest in the middle of the tree (leaves 10
// and 20 trade places), hidden from random inputs: the waves put every probe on a row and, as a
// replica, on a column, so the band's lines answer the transcript's probes alongside the others'
// and split off where they differ (this holds with no round of per-element checks at all), and the
// band becomes a class of its own with its own tree.
TEST(OrderMap, ABandWhoseOrderDiffersInTheMiddleOfTheTreeIsAClassOfItsOwn) {
  const std::size_t n = 32, R = 36, C = 34;
  const std::vector<std::pair<std::string, Tree>> shapes = {
      {"sequential", left_deep_tree(n)}, {"8 lanes", lanes_tree(n, 8)}, {"random", random_binary_tree(n, std::uint64_t{9})}};
  for (const auto& [name, tree] : shapes) {
    const Tree other = with_leaves_swapped(tree, 10, 20);
    if (other == tree) continue;
    for (const bool rows : {true, false})
      for (const std::size_t at : {std::size_t{0}, std::size_t{13}, std::size_t{30}}) {
        GridOracleTarget target({R, C}, {tree, other}, [&](std::size_t r, std::size_t c) {
          const std::size_t line = rows ? r : c;
          return std::size_t{line >= at && line < at + 3 ? 1u : 0u};
        });
        target.answer_values_with(0);
        RevealOptions options;
        options.verify_inputs = 0;  // the simulated sums would not match the lying arithmetic
        SCOPED_TRACE(name + (rows ? ", rows " : ", columns ") + std::to_string(at) + "-" + std::to_string(at + 2));
        reveal_grid(target, options);
      }
  }
}

// One element whose order differs from its class's in the middle of the tree (leaves 10 and 20
// trade places), hidden from random inputs: the sampled per-element checks give it eight probes,
// which find it by chance only (docs/limits.md). With RevealOptions::element_proof_summands every
// element answers its class's whole proof (confirm_pairs), so each such element becomes a class of
// its own with its own tree, wherever it lies.
TEST(OrderMap, EveryElementProvenInFullFindsAChangeInTheMiddleOfOneElementsTree) {
  const std::size_t n = 32, R = 12, C = 10;
  const std::vector<std::pair<std::string, Tree>> shapes = {
      {"sequential", left_deep_tree(n)}, {"8 lanes", lanes_tree(n, 8)}, {"random", random_binary_tree(n, std::uint64_t{9})}};
  for (const auto& [name, tree] : shapes) {
    const Tree other = with_leaves_swapped(tree, 10, 20);
    if (other == tree) continue;
    for (std::size_t row = 0; row < R; row += 3)
      for (std::size_t column = 0; column < C; column += 3) {
        GridOracleTarget target({R, C}, {tree, other}, [=](std::size_t r, std::size_t c) {
          return std::size_t{r == row && c == column ? 1u : 0u};
        });
        target.answer_values_with(0);
        RevealOptions options;
        options.verify_inputs = 0;  // the simulated sums would not match the lying arithmetic
        options.element_proof_summands = std::uint64_t{1} << 30;
        SCOPED_TRACE(name + ", element (" + std::to_string(row) + ", " + std::to_string(column) + ")");
        const RevealResult result = reveal_grid(target, options);
        EXPECT_TRUE(result.stats.every_element_proven);
        EXPECT_TRUE(result.stats.element_proof_skipped.empty());
        // The element's row carries both classes' proofs (n - 1 pairs each for binary trees).
        EXPECT_GE(result.stats.element_proof_calls, 2 * (n - 1));
      }
  }
}

// Scattered elements, each changed in another way in the middle of its tree (each first found by
// another proof pair): all are divided off, each a class of its own with its own tree. (The proof
// divides by every disagreeing probe of a pass at once; the reveal's own waves already split some
// of these, so this holds with one division a pass as well.)
TEST(OrderMap, ScatteredElementsChangedInDifferentWaysAreAllDividedOff) {
  const std::size_t n = 32;
  for (const Tree& tree : {left_deep_tree(n), lanes_tree(n, 8)}) {
    const std::vector<Tree> trees = {tree, with_leaves_swapped(tree, 10, 20), with_leaves_swapped(tree, 3, 25),
                                     with_leaves_swapped(tree, 14, 28), with_leaves_swapped(tree, 6, 17),
                                     with_leaves_swapped(tree, 11, 12)};
    GridOracleTarget target({12, 10}, trees, [](std::size_t r, std::size_t c) {
      const std::pair<std::size_t, std::size_t> changed[] = {{1, 1}, {5, 7}, {9, 2}, {11, 9}, {4, 4}};
      for (std::size_t k = 0; k < 5; ++k)
        if (changed[k] == std::pair{r, c}) return k + 1;
      return std::size_t{0};
    });
    target.answer_values_with(0);
    RevealOptions options;
    options.verify_inputs = 0;  // the simulated sums would not match the lying arithmetic
    options.element_proof_summands = std::uint64_t{1} << 30;
    const RevealResult result = reveal_grid(target, options);
    EXPECT_TRUE(result.stats.every_element_proven);
  }
}

// The proof is taken only within its limit; past it the reveal says so and proves nothing more.
TEST(OrderMap, AnElementProofOverItsLimitIsSkippedVisibly) {
  const std::size_t n = 32;
  GridOracleTarget target({12, 10}, {left_deep_tree(n)}, [](std::size_t, std::size_t) { return std::size_t{0}; });
  RevealOptions options;
  options.element_proof_summands = (n - 1) * 12 * 10 * n - 1;  // one summand short of the proof
  const RevealResult result = reveal_grid(target, options);
  EXPECT_FALSE(result.stats.every_element_proven);
  EXPECT_EQ(result.stats.element_proof_calls, 0u);
  EXPECT_NE(result.stats.element_proof_skipped.find("31 calls"), std::string::npos) << result.stats.element_proof_skipped;
  options.element_proof_summands += 1;
  const RevealResult proven = reveal_grid(target, options);
  EXPECT_TRUE(proven.stats.every_element_proven);
  EXPECT_EQ(proven.stats.element_proof_calls, n - 1);
  EXPECT_EQ(proven.stats.target_calls, result.stats.target_calls + (n - 1));
  // Within the work, but over the time it may take (here any time at all).
  options.element_proof_seconds = -1.0;
  const RevealResult slow = reveal_grid(target, options);
  EXPECT_FALSE(slow.stats.every_element_proven);
  EXPECT_EQ(slow.stats.target_calls, result.stats.target_calls);
  EXPECT_NE(slow.stats.element_proof_skipped.find(" s), over the limit"), std::string::npos)
      << slow.stats.element_proof_skipped;
}

TEST(OrderMap, RandomMapsOfRandomTreesAreRevealedExactly) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed);
    const std::size_t rows = 1 + rng() % 24, columns = 1 + rng() % 24, n = 2 + rng() % 60;
    const std::size_t tree_count = 1 + rng() % 4;
    std::vector<Tree> trees;
    for (std::size_t t = 0; t < tree_count; ++t)
      trees.push_back(seed % 3 == 0 ? random_multiway_tree(n, 4, rng) : random_binary_tree(n, rng));
    // Bands of rows and columns, each band pair choosing a tree.
    const std::size_t row_cut = rng() % rows, column_cut = rng() % columns;
    std::vector<std::size_t> table(4);
    for (auto& t : table) t = rng() % tree_count;
    GridOracleTarget target({rows, columns}, trees, [=](std::size_t r, std::size_t c) {
      return table[(r >= row_cut ? 1 : 0) + (c >= column_cut ? 2 : 0)];
    });
    SCOPED_TRACE("seed " + std::to_string(seed));
    if (rows * columns == 1) continue;  // a 1 x 1 grid is a single-output target
    RevealOptions options = testing::options_with(Algorithm::fprev, seed);
    // Some with the orders hidden from random inputs (binary trees: the fused-node test of a
    // multiway tree runs on value inputs, which this oracle would answer with the wrong tree).
    if (seed % 2 == 0 && seed % 3 != 0) {
      target.answer_values_with(0);
      options.verify_inputs = 0;
    }
    reveal_grid(target, options);
  }
}

TEST(OrderMap, OneColumnAndOneRowGrids) {
  const std::vector<Tree> trees = {left_deep_tree(17), balanced_tree(17)};
  GridOracleTarget gemv_like({21, 1}, trees, [](std::size_t r, std::size_t) {
    return std::size_t{r < 8 ? 1u : 0u};
  });
  reveal_grid(gemv_like);
  GridOracleTarget row_vector({1, 21}, trees, [](std::size_t, std::size_t c) {
    return std::size_t{c >= 20 ? 1u : 0u};
  });
  reveal_grid(row_vector);
  // Without the columns placement (a target that can only put inputs on rows).
  GridOracleTarget rows_only({9, 5}, trees, [](std::size_t r, std::size_t c) {
    return std::size_t{r == 4 || c == 2 ? 1u : 0u};
  }, std::nullopt, false);
  reveal_grid(rows_only);
}

TEST(OrderMap, BasicAndNaiveAlgorithmsGiveTheSameMap) {
  const std::vector<Tree> trees = {left_deep_tree(6), right_deep_tree(6)};
  const auto tree_of = [](std::size_t r, std::size_t c) { return std::size_t{r + c >= 6 ? 1u : 0u}; };
  for (Algorithm algorithm : {Algorithm::basic, Algorithm::naive}) {
    GridOracleTarget target({5, 4}, trees, tree_of);
    reveal_grid(target, testing::options_with(algorithm));
  }
}

// Classes share calls: a map of two classes (one of them 4 rows) costs about one reveal, not one
// per class or per element.
TEST(OrderMap, ClassesShareTargetCalls) {
  const std::size_t n = 64;
  GridOracleTarget single({64, 64}, {left_deep_tree(n)}, [](std::size_t, std::size_t) { return std::size_t{0}; });
  GridOracleTarget edge({64, 64}, {left_deep_tree(n), balanced_tree(n)},
                        [](std::size_t r, std::size_t) { return std::size_t{r >= 60 ? 1u : 0u}; });
  RevealOptions options;
  const RevealResult one = reveal_grid(single, options);
  const RevealResult two = reveal_grid(edge, options);
  EXPECT_LE(two.stats.target_calls, 2 * one.stats.target_calls + 12)
      << one.stats.target_calls << " calls for one class, " << two.stats.target_calls << " for two";
}

// Determinism on a grid: one input on every row, two calls, whose outputs are also the first of the
// four value inputs: 2 + 3 value calls, then the final one. The simulation compares every element
// with its class's tree on the four value inputs it already added: no call of its own.
TEST(OrderMap, DeterminismAndSimulationShareTheirCallsWithTheValueClasses) {
  GridOracleTarget target({12, 9}, {lanes_tree(64, 4)}, [](std::size_t, std::size_t) { return std::size_t{0}; });
  const RevealResult result = reveal_grid(target);
  // Determinism (2, the first also value input 1), value inputs 2-4, the final comparison, and the
  // fingerprint's uniformity input on every element (whose outputs the fingerprint then reads).
  EXPECT_EQ(target.value_calls, 2u + 3u + 1u + 1u);
  EXPECT_EQ(result.stats.simulated_inputs, 4u);
  EXPECT_EQ(result.stats.uniformity_outputs.size(), 12u * 9u);
}

// The simulation on the value inputs is a real check: an element whose arithmetic differs from
// what its class's tree gives (here one element returns its sums one ulp up, in every call alike,
// so it stays deterministic and answers every probe as its class does) fails it.
TEST(OrderMap, TheSimulationOnTheValueInputsComparesEveryElement) {
  TamperedGridTarget target(4, 1, [](std::size_t) { return true; });
  try {
    reveal(target);
    FAIL() << "a map was returned although element (4, 1) does not add as its tree says";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::verification_failed) << e.what();
    EXPECT_NE(std::string(e.what()).find("output element (4, 1)"), std::string::npos) << e.what();
  }
}

// A grid whose element (3, 4) answers the same input differently in the second call.
TEST(OrderMap, AGridThatChangesItsAnswerToTheSameInputIsNondeterministic) {
  TamperedGridTarget target(3, 4, [](std::size_t call) { return call == 2; });
  try {
    reveal(target);
    FAIL() << "a map was returned for a non-deterministic grid";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::nondeterministic) << e.what();
    EXPECT_NE(std::string(e.what()).find("(3, 4)"), std::string::npos) << e.what();
  }
}

TEST(OrderMap, AnOrderThatChangesBetweenCallsIsBatchInconsistent) {
  const std::vector<Tree> trees = {left_deep_tree(20), right_deep_tree(20)};
  GridOracleTarget target({8, 8}, trees, [](std::size_t, std::size_t) { return std::size_t{0}; });
  target.switch_element_after(3, 5, 2, 1);  // element (5, 2) changes its order after call 3
  try {
    reveal(target);
    FAIL() << "a map was returned for an element whose order changed";
  } catch (const RevealFailure& e) {
    const Finding f = e.diagnostic().finding;
    EXPECT_TRUE(f == Finding::batch_inconsistent || f == Finding::nondeterministic) << e.what();
    EXPECT_NE(std::string(e.what()).find("(5, 2)"), std::string::npos) << e.what();
  }
}

TEST(OrderMap, VerifyChecksEveryElementAgainstItsClass) {
  const std::vector<Tree> trees = {left_deep_tree(12), balanced_tree(12)};
  GridOracleTarget target({9, 6}, trees, [](std::size_t r, std::size_t) { return std::size_t{r == 8 ? 1u : 0u}; });
  const OrderMap truth = target.truth();
  EXPECT_NO_THROW(verify(target, truth));
  // A map claiming one order everywhere does not hold at row 8.
  try {
    verify(target, OrderMap::uniform({9, 6}, trees[0]));
    FAIL() << "a wrong map was accepted";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::verification_failed) << e.what();
    EXPECT_NE(std::string(e.what()).find("output element (8, "), std::string::npos) << e.what();
  }
  // verify(target, tree) checks every element too.
  EXPECT_THROW(verify(target, trees[0]), RevealFailure);
}

// A float32 grid target of `rows` x 1 outputs whose rows from `sorted_from` on add their summands
// sorted by magnitude (a value-dependent order), the others sequentially.
class PartlySortingGrid : public Target {
 public:
  PartlySortingGrid(std::size_t n, std::size_t rows, std::size_t sorted_from)
      : sorted_from_(sorted_from), inputs_(n) {
    info_.description = "partly sorting grid";
    info_.n = n;
    info_.grid = {rows, 1};
    info_.columns_placement = true;
  }
  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    for (std::size_t r = 0; r < info_.grid.rows; ++r) {
      const std::size_t p = batch.placement == Placement::rows ? r : 0;
      if (p >= batch.probes.size()) continue;
      inputs_.load(batch, p);
      outputs[r] = sum(r);
    }
  }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    for (std::size_t r = 0; r < info_.grid.rows; ++r) {
      const std::size_t p = batch.placement == Placement::rows ? r : 0;
      if (p >= batch.rows) continue;
      inputs_.load(batch, p);
      outputs[r] = sum(r);
    }
  }

 private:
  double sum(std::size_t row) {
    std::vector<float> v(inputs_.a(), inputs_.a() + info_.n);
    if (row >= sorted_from_)
      std::sort(v.begin(), v.end(), [](float a, float b) { return std::fabs(a) < std::fabs(b); });
    float s = 0;
    for (float x : v) s += x;
    return s;
  }
  std::size_t sorted_from_;
  TargetInfo info_;
  ProbeVectors<float> inputs_;
};

TEST(OrderMap, AClassThatSortsIsValueDependentAndNamed) {
  PartlySortingGrid target(16, 6, 4);
  try {
    reveal(target);
    FAIL() << "a map was returned for rows that sort their summands";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::value_dependent) << e.what();
    EXPECT_NE(e.diagnostic().message.find("output element (4, 0)"), std::string::npos) << e.what();
  }
  PartlySortingGrid none_sorted(16, 6, 6);
  const RevealResult result = reveal(none_sorted);
  EXPECT_EQ(result.tree, left_deep_tree(16));
}

TEST(OrderMap, LowRangeModeWorksOnGrids) {
  // float16 output: counts beyond 2048 round, so FPRev restricts the active leaves (Alg. 5).
  const std::size_t n = 3000;
  NumericTraits traits;
  traits.input = Format::float32;
  traits.accumulator = Format::float32;
  traits.output = Format::float16;
  const std::vector<Tree> trees = {left_deep_tree(n), balanced_tree(n)};
  GridOracleTarget target({6, 3}, trees, [](std::size_t r, std::size_t) { return std::size_t{r == 5 ? 1u : 0u}; },
                          traits);
  RevealOptions options;
  options.verify_inputs = 0;
  const RevealResult result = reveal_grid(target, options);
  EXPECT_TRUE(result.stats.low_range_mode);
}

}  // namespace
}  // namespace fprev
