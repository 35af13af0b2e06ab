// The fingerprints of an order map's classes, measured together in shared calls, are exactly those
// measured class by class through each class's ClassView (a single-output target, which the
// fingerprint measures on its own calls), in far fewer calls.
#include <gtest/gtest.h>

#include "fprev/class_view.hpp"
#include "fprev/confirm.hpp"
#include "fprev/fingerprint.hpp"
#include "fprev/reveal.hpp"
#include "grid_oracle_target.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

NumericTraits float32_products() { return float32_product_traits(); }

struct Measured {
  std::vector<Fingerprint> fingerprints;
  std::size_t calls = 0;
};

// Class by class, each through its own view: the fingerprint as it was measured before classes
// shared calls.
Measured class_by_class(GridOracleTarget& target, const OrderMap& map) {
  Measured m;
  for (std::size_t k = 0; k < map.classes.size(); ++k) {
    ClassView view(target, map, k);
    FingerprintStats stats;
    m.fingerprints.push_back(measure_fingerprint(view, map.classes[k].tree, &stats));
    m.calls += stats.target_calls;
  }
  return m;
}

// All classes in shared calls; with `evidence` (the stats of a reveal or confirmation), packed where
// the target's columns take right factors of their own.
Measured together(GridOracleTarget& target, const OrderMap& map, const RevealStats* evidence = nullptr) {
  Measured m;
  FingerprintStats stats;
  const std::size_t before = target.calls();
  m.fingerprints = measure_map_fingerprints(target, map, &stats, evidence);
  m.calls = stats.target_calls;
  EXPECT_EQ(m.calls, target.calls() - before) << "every call the target received is counted";
  return m;
}

// The facts without "uniformity", which only a grid's measurement has (a view is one element).
std::map<std::string, std::string> view_facts(std::map<std::string, std::string> facts) {
  facts.erase("uniformity");
  return facts;
}

void expect_same(const Measured& a, const Measured& b) {
  ASSERT_EQ(a.fingerprints.size(), b.fingerprints.size());
  for (std::size_t k = 0; k < a.fingerprints.size(); ++k) {
    EXPECT_EQ(a.fingerprints[k].digest(), b.fingerprints[k].digest()) << "class " << k;
    EXPECT_EQ(view_facts(a.fingerprints[k].facts), view_facts(b.fingerprints[k].facts)) << "class " << k;
    EXPECT_EQ(a.fingerprints[k].model, b.fingerprints[k].model) << "class " << k;
  }
}

// The "uniformity" fact of elements `region` that compute otherwise than element (0, 0).
std::string differs_at(const Region& region, const OutputGrid& grid) {
  return "differs at " + format_region(region, grid) + " (other bits than element (0, 0) on the same input)";
}

// Three classes: the rows from `edge_row` on (an edge kernel), the columns from `edge_column` on of
// the other rows, and the rest, each class with another tree of 40 leaves; the first class's rows
// do not start at row 0.
GridOracleTarget three_classes(OutputGrid grid, std::size_t edge_row, std::size_t edge_column) {
  const std::size_t n = 40;
  return GridOracleTarget(
      grid, {left_deep_tree(n), balanced_tree(n), random_binary_tree(n, 3)},
      [=](std::size_t r, std::size_t c) { return std::size_t{r >= edge_row ? 0u : c >= edge_column ? 1u : 2u}; },
      float32_products());
}

TEST(GridFingerprint, ClassesMeasuredTogetherGiveTheFingerprintsOfEachClassAlone) {
  GridOracleTarget target = three_classes({24, 10}, 20, 8);
  const OrderMap map = target.truth();
  ASSERT_EQ(map.classes.size(), 3u);
  const Measured alone = class_by_class(target, map);
  const Measured shared = together(target, map);
  expect_same(alone, shared);
  EXPECT_FALSE(shared.fingerprints[0].facts.empty());
  for (const Fingerprint& fingerprint : shared.fingerprints)
    EXPECT_FALSE(fingerprint.facts.contains("uniformity")) << "every element of a class computes alike";
  // The classes' experiments share calls: fewer calls than class by class (where the 4-row class
  // alone takes most of them: one experiment per row and call).
  EXPECT_LT(shared.calls, alone.calls);
}

// A one-class map (what measure_fingerprint gets for a grid target with one tree) is measured on
// the class's view, as before.
TEST(GridFingerprint, OneTreeOnAGridIsItsViewsFingerprint) {
  const std::size_t n = 33;
  GridOracleTarget target({16, 8}, {random_binary_tree(n, 11)}, [](std::size_t, std::size_t) { return std::size_t{0}; },
                          float32_products());
  const OrderMap map = target.truth();
  const Measured alone = class_by_class(target, map);
  FingerprintStats stats;
  const Fingerprint grid = measure_fingerprint(target, map.classes[0].tree, &stats);
  EXPECT_EQ(grid.digest(), alone.fingerprints[0].digest());
  EXPECT_EQ(grid.facts, alone.fingerprints[0].facts) << "no uniformity fact: every element computes alike";
  EXPECT_EQ(grid.model, alone.fingerprints[0].model);
  EXPECT_LE(stats.target_calls, alone.calls + 1) << "the view's calls and one with an input on every element";
}

// Two classes whose views ask for different set rows on one grid row cannot share a set's call:
// class 0 is read at rows 0-5 of column 0, class 1 at rows 2-7 of column 1, so row 2 carries set
// row 2 for class 0 and set row 0 for class 1. Each still gets every set row where its own view puts
// it.
TEST(GridFingerprint, ClassesWhoseRowsDisagreeGetCallsOfTheirOwn) {
  const std::size_t n = 24;
  const std::vector<Tree> trees = {left_deep_tree(n), right_deep_tree(n)};
  GridOracleTarget target(
      {8, 2}, trees,
      [](std::size_t r, std::size_t c) { return std::size_t{(c == 0 ? r < 6 : r < 2) ? 0u : 1u}; },
      float32_products());
  const OrderMap map = target.truth();
  ASSERT_EQ(map.classes.size(), 2u);
  const Measured shared = together(target, map);
  expect_same(class_by_class(target, map), shared);
  EXPECT_GT(shared.calls, 5u + 2u) << "the sets' calls cannot all be shared";
}

// ---- packed calls (TargetInfo::column_right_factors, src/engine/fingerprint_packing.hpp) --------

// What `check` has when it measures the fingerprints: the confirmation of the map on the target,
// whose stats say which rows and columns computed alike.
RevealStats confirmation(GridOracleTarget& target, const OrderMap& map) { return confirm(target, map, RevealOptions{}); }

Measured packed(GridOracleTarget& target, const OrderMap& map, const RevealStats& evidence) {
  return together(target, map, &evidence);
}

// 64 x 16 elements of one tree (33 leaves, float32 products, right factors per column) whose rows
// 8-11 keep their sums in float64: the same tree, another arithmetic.
GridOracleTarget rows_8_to_11_wider() {
  NumericTraits traits = float32_products();
  traits.exact_arithmetic_model = false;
  GridOracleTarget target({64, 16}, {random_binary_tree(33, 7)}, [](std::size_t, std::size_t) { return std::size_t{0}; },
                          traits);
  target.take_column_factors();
  target.widen_arithmetic([](std::size_t r, std::size_t) { return r >= 8 && r < 12; });
  return target;
}

// Inputs of different right factors share calls, each read where an element computes as the one
// its class's view reads: the fingerprints are the views' own, in fewer calls than with one set of
// right factors a call.
TEST(GridFingerprint, PackedCallsGiveEachClassTheFingerprintOfItsViewInFewerCalls) {
  GridOracleTarget target = three_classes({64, 20}, 32, 16);
  target.take_column_factors();
  const OrderMap map = target.truth();
  const RevealStats evidence = confirmation(target, map);
  ASSERT_EQ(evidence.column_signatures.size(), 20u);
  ASSERT_EQ(evidence.row_signatures.size(), 64u);
  const Measured unpacked = together(target, map);
  const Measured in_packs = packed(target, map, evidence);
  expect_same(class_by_class(target, map), in_packs);
  EXPECT_LT(in_packs.calls, unpacked.calls);
}

// Elements of one tree whose arithmetic differs (a merged class: the odd columns keep their sums in
// float64) give other outputs for the same inputs. The packed calls never read a column whose
// signature differs from the view's, so the fingerprint stays the view's (column 0). The
// uniformity call (every element the same input) names the odd columns and keeps the class's
// reading to the even ones as well: with signatures forged to call every column alike the
// fingerprint is still the view's.
TEST(GridFingerprint, PackedCallsReadNoColumnThatComputedOtherwise) {
  const std::size_t n = 33;
  NumericTraits traits = float32_products();
  traits.exact_arithmetic_model = false;  // the wide columns do not reproduce the tree's float32 sums
  GridOracleTarget target({16, 32}, {random_binary_tree(n, 5)}, [](std::size_t, std::size_t) { return std::size_t{0}; },
                          traits);
  target.take_column_factors();
  target.widen_arithmetic([](std::size_t, std::size_t c) { return c % 2 == 1; });
  const OrderMap map = target.truth();
  ASSERT_EQ(map.classes.size(), 1u);
  // The confirmation's columns add 8 sets of right factors in turn. The even columns reproduce the
  // tree's float32 sums at every row, so they are alike whatever they added; an odd column is
  // compared with the columns c + 8, c + 16, ... that added the same, on the 8 inputs of the rows.
  const RevealStats evidence = confirmation(target, map);
  for (std::size_t c = 1; c < 32; ++c) {
    EXPECT_EQ(evidence.column_signatures[c] == evidence.column_signatures[0], c % 2 == 0) << "column " << c;
    if (c % 2 == 1) {
      EXPECT_EQ(evidence.column_signatures[c] == evidence.column_signatures[1], c % 8 == 1) << "column " << c;
    }
  }
  const Measured view = class_by_class(target, map);
  const Measured in_packs = packed(target, map, evidence);
  expect_same(view, in_packs);
  EXPECT_LT(in_packs.calls, together(target, map).calls);
  // The odd columns are named: one input on every element, compared with element (0, 0).
  IndexRanges odd;
  for (std::size_t c = 1; c < 32; c += 2) odd.push_back({c, c});
  EXPECT_EQ(in_packs.fingerprints[0].facts.at("uniformity"), differs_at(Region{{{0, 15}}, odd}, {16, 32}));

  RevealStats forged = evidence;
  std::fill(forged.column_signatures.begin(), forged.column_signatures.end(), evidence.column_signatures[0]);
  EXPECT_EQ(packed(target, map, forged).fingerprints[0].digest(), view.fingerprints[0].digest());
}

// The same for rows: rows 8-11 keep their sums in float64. A set row belongs on the row its view
// puts it on (rows 0-7 here, for every set); when that row is taken it moves only to a row whose
// signature is its own: one whose every element reproduced the tree's float32 sum (the
// confirmation gives row r input r mod 8, and its columns 8 sets of right factors in turn), or
// one that added the same inputs and gave the same bits. Rows 8-11 never qualify; the others do.
// The uniformity call names rows 8-11, and the class is read without them: its fingerprint is that
// of a class of the other rows (measured here through that class's own view), which the view of the
// whole class is not (it reads facts on rows 8-11 too).
TEST(GridFingerprint, PackedCallsMoveARowOnlyToARowThatComputedAlike) {
  GridOracleTarget target = rows_8_to_11_wider();
  const OrderMap map = target.truth();
  std::vector<std::size_t> wide_rows(64 * 16, 0);
  for (std::size_t e = 8 * 16; e < 12 * 16; ++e) wide_rows[e] = 1;
  Measured view = class_by_class(target, map_of_elements({64, 16}, wide_rows, {map.classes[0].tree, map.classes[0].tree}));
  view.fingerprints.resize(1);  // the class of the rows other than 8-11
  EXPECT_NE(view_facts(view.fingerprints[0].facts), view_facts(class_by_class(target, map).fingerprints[0].facts))
      << "the whole class's view reads facts on rows 8-11 too";

  const RevealStats evidence = confirmation(target, map);
  ASSERT_EQ(evidence.row_signatures.size(), 64u);
  for (std::size_t r = 1; r < 64; ++r)
    EXPECT_EQ(evidence.row_signatures[r] == evidence.row_signatures[0], r < 8 || r >= 12) << "row " << r;
  const Measured moved = packed(target, map, evidence);
  expect_same(view, moved);
  EXPECT_EQ(moved.fingerprints[0].facts.at("uniformity"), differs_at(Region{{{8, 11}}, {{0, 15}}}, {64, 16}));
  RevealStats rows_unknown = evidence;
  rows_unknown.row_signatures.clear();
  const Measured fixed = packed(target, map, rows_unknown);
  expect_same(view, fixed);
  EXPECT_LT(moved.calls, fixed.calls) << "rows moved, so fewer calls";

  RevealStats forged = evidence;
  std::fill(forged.row_signatures.begin(), forged.row_signatures.end(), evidence.row_signatures[0]);
  EXPECT_EQ(packed(target, map, forged).fingerprints[0].digest(), view.fingerprints[0].digest());
}

// A reveal's value partition gives every element the uniformity input too (map_reveal.cpp): rows
// that compute otherwise start as value classes of their own (their tree revealed, then merged:
// the same tree), and the fingerprint compares the class's elements on those outputs instead of
// calling again. The fact is the one a call of its own gives, in one call fewer.
TEST(GridFingerprint, AfterARevealTheElementsAreComparedOnThePartitionsOutputs) {
  GridOracleTarget target = rows_8_to_11_wider();
  const RevealResult revealed = reveal(target);
  ASSERT_TRUE(revealed.map.single_class());
  EXPECT_GE(revealed.stats.value_classes, 2u) << "rows 8-11 start as a class of their own";
  ASSERT_EQ(revealed.stats.uniformity_outputs.size(), 64u * 16u);
  RevealStats no_outputs = revealed.stats;
  no_outputs.uniformity_outputs.clear();
  const Measured read = packed(target, revealed.map, revealed.stats);
  const Measured called = packed(target, revealed.map, no_outputs);
  EXPECT_EQ(read.fingerprints[0].facts.at("uniformity"), differs_at(Region{{{8, 11}}, {{0, 15}}}, {64, 16}));
  EXPECT_EQ(read.fingerprints[0].facts, called.fingerprints[0].facts);
  EXPECT_EQ(read.fingerprints[0].digest(), called.fingerprints[0].digest());
  EXPECT_EQ(read.calls + 1, called.calls);
}

// Without evidence, or from a target whose columns share their right factors, every input is read
// where the view reads it, as before.
TEST(GridFingerprint, WithoutSignaturesOrTheCapabilityNothingIsPacked) {
  const std::size_t n = 33;
  GridOracleTarget shared({64, 16}, {random_binary_tree(n, 11)}, [](std::size_t, std::size_t) { return std::size_t{0}; },
                          float32_products());
  const OrderMap map = shared.truth();
  const RevealStats shared_evidence = confirmation(shared, map);
  EXPECT_TRUE(shared_evidence.row_signatures.empty()) << "every row added one input: no row is called alike";
  EXPECT_EQ(packed(shared, map, shared_evidence).calls, together(shared, map).calls);
  GridOracleTarget capable({64, 16}, {random_binary_tree(n, 11)}, [](std::size_t, std::size_t) { return std::size_t{0}; },
                           float32_products());
  capable.take_column_factors();
  EXPECT_EQ(packed(capable, map, RevealStats{}).calls, together(capable, map).calls);
  EXPECT_LT(packed(capable, map, confirmation(capable, map)).calls, together(capable, map).calls);
}

// Of three classes, the second (rows 0-19 x columns 8-9) holds a block that keeps its sums in
// float64 (rows 4-5 x columns 8-9). Only that class gets the fact, against its own reference
// element (0, 8); it is read without the block, so its fingerprint is that of a class of its other
// elements, measured through that class's own view (a map built here with the block as a class of
// its own); the other classes are read as before. Unpacked and packed alike.
TEST(GridFingerprint, OnlyTheClassWithElementsThatComputeOtherwiseNamesThem) {
  const std::size_t n = 40;
  const std::vector<Tree> trees = {left_deep_tree(n), balanced_tree(n), random_binary_tree(n, 3)};
  const auto tree_at = [](std::size_t r, std::size_t c) { return std::size_t{r >= 20 ? 0u : c >= 8 ? 1u : 2u}; };
  const auto in_block = [](std::size_t r, std::size_t c) { return r >= 4 && r < 6 && c >= 8; };
  NumericTraits traits = float32_products();
  traits.exact_arithmetic_model = false;
  GridOracleTarget target({24, 10}, trees, tree_at, traits);
  target.take_column_factors();
  target.widen_arithmetic(in_block);
  const OrderMap map = target.truth();
  ASSERT_EQ(map.classes.size(), 3u);
  ASSERT_TRUE(map.classes[1].contains(0, 8));
  std::vector<std::size_t> label(24 * 10);
  for (std::size_t r = 0; r < 24; ++r)
    for (std::size_t c = 0; c < 10; ++c) label[r * 10 + c] = in_block(r, c) ? 3 : tree_at(r, c);
  const OrderMap with_block = map_of_elements({24, 10}, label, {trees[0], trees[1], trees[2], trees[1]});
  ASSERT_EQ(with_block.classes.size(), 4u);
  ASSERT_TRUE(with_block.classes[2].contains(4, 8)) << "the block is the third class by its first element";
  const Measured alone = class_by_class(target, with_block);
  Measured expected;
  expected.fingerprints = {alone.fingerprints[0], alone.fingerprints[1], alone.fingerprints[3]};
  for (const Measured& measured : {together(target, map), packed(target, map, confirmation(target, map))}) {
    expect_same(expected, measured);
    EXPECT_FALSE(measured.fingerprints[0].facts.contains("uniformity"));
    EXPECT_EQ(measured.fingerprints[1].facts.at("uniformity"),
              "differs at " + format_region(Region{{{4, 5}}, {{8, 9}}}, {24, 10}) +
                  " (other bits than element (0, 8) on the same input)");
    EXPECT_FALSE(measured.fingerprints[2].facts.contains("uniformity"));
  }
}

// A call also carries inputs turned around: the right factors on a row (of the input's group) and
// the left factors as the right factors of a free column, read where they meet (a product does not
// depend on which factor is on which side). One class of a 64 x 64 grid then reads its inputs in
// fewer calls than one input a row allows, and its fingerprint is still its view's.
TEST(GridFingerprint, TurnedInputsFillTheColumnsToo) {
  const std::size_t n = 33;
  GridOracleTarget target({64, 64}, {random_binary_tree(n, 13)}, [](std::size_t, std::size_t) { return std::size_t{0}; },
                          float32_products());
  target.take_column_factors();
  const OrderMap map = target.truth();
  const RevealStats evidence = confirmation(target, map);
  FingerprintStats stats;
  const std::size_t before = target.calls();
  Measured in_packs;
  in_packs.fingerprints = measure_map_fingerprints(target, map, &stats, &evidence);
  in_packs.calls = stats.target_calls;
  EXPECT_EQ(stats.target_calls, target.calls() - before);
  expect_same(class_by_class(target, map), in_packs);
  EXPECT_GT(stats.turned_inputs, 0u);
  EXPECT_EQ(stats.read_again, 0u) << "the twins agree: products commute here";
  EXPECT_LT(stats.target_calls, (stats.inputs + 63) / 64) << stats.inputs << " inputs, 64 rows";
}

// A target whose products do not commute (it rounds its right factors to bfloat16 and keeps the
// left ones): the turned inputs' twins, read the usual way in the same call, give other bits, so
// every turned input is read again the usual way and the fingerprint is the view's.
TEST(GridFingerprint, TurnedInputsAreReadAgainWhereATwinDisagrees) {
  const std::size_t n = 33;
  GridOracleTarget target({64, 64}, {random_binary_tree(n, 13)}, [](std::size_t, std::size_t) { return std::size_t{0}; },
                          float32_products());
  target.take_column_factors();
  target.round_right_factors(Format::bfloat16);
  const OrderMap map = target.truth();
  const RevealStats evidence = confirmation(target, map);
  FingerprintStats stats;
  Measured in_packs;
  in_packs.fingerprints = measure_map_fingerprints(target, map, &stats, &evidence);
  in_packs.calls = stats.target_calls;
  expect_same(class_by_class(target, map), in_packs);
  EXPECT_GT(stats.turned_inputs, 0u);
  EXPECT_EQ(stats.read_again, stats.turned_inputs);
}

// A target that fails while the classes' facts are measured (their threads wait for the call): the
// failure reaches the caller, every thread ends, nothing hangs.
class FailingAfter : public Target {
 public:
  FailingAfter(GridOracleTarget& inner, std::size_t calls) : inner_(inner), left_(calls) {}
  const TargetInfo& info() const override { return inner_.info(); }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override { inner_.evaluate(batch, outputs); }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    if (left_ == 0) throw TargetError("the library failed");
    --left_;
    inner_.evaluate(batch, outputs);
  }

 private:
  GridOracleTarget& inner_;
  std::size_t left_;
};

TEST(GridFingerprint, ATargetFailureWhileTheFactsAreMeasuredReachesTheCaller) {
  const std::size_t n = 30;
  GridOracleTarget inner({12, 6}, {left_deep_tree(n), balanced_tree(n)},
                         [](std::size_t r, std::size_t) { return std::size_t{r >= 8 ? 1u : 0u}; }, float32_products());
  const OrderMap map = inner.truth();
  // The sets take 8 calls here (class 1's view has 4 rows): fail in them, at the facts' first run,
  // and in the last run of the facts.
  FingerprintStats stats;
  measure_map_fingerprints(inner, map, &stats);
  ASSERT_GT(stats.target_calls, 12u);
  for (std::size_t calls : {std::size_t{0}, std::size_t{8}, stats.target_calls - 1}) {
    FailingAfter target(inner, calls);
    EXPECT_THROW(measure_map_fingerprints(target, map), TargetError) << "after " << calls << " calls";
  }
}

}  // namespace
}  // namespace fprev
