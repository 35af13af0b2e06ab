// The fingerprints of an order map's classes, measured together in shared calls, are exactly those
// measured class by class through each class's ClassView (a single-output target, which the
// fingerprint measures on its own calls), in far fewer calls.
#include <gtest/gtest.h>

#include "fprev/class_view.hpp"
#include "fprev/fingerprint.hpp"
#include "grid_oracle_target.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

NumericTraits float32_products() {
  NumericTraits t;
  t.input = t.accumulator = t.output = Format::float32;
  t.summand = SummandKind::product;
  return t;
}

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

Measured together(GridOracleTarget& target, const OrderMap& map) {
  Measured m;
  FingerprintStats stats;
  const std::size_t before = target.calls();
  m.fingerprints = measure_map_fingerprints(target, map, &stats);
  m.calls = stats.target_calls;
  EXPECT_EQ(m.calls, target.calls() - before) << "every call the target received is counted";
  return m;
}

void expect_same(const Measured& a, const Measured& b) {
  ASSERT_EQ(a.fingerprints.size(), b.fingerprints.size());
  for (std::size_t k = 0; k < a.fingerprints.size(); ++k) {
    EXPECT_EQ(a.fingerprints[k].digest(), b.fingerprints[k].digest()) << "class " << k;
    EXPECT_EQ(a.fingerprints[k].facts, b.fingerprints[k].facts) << "class " << k;
    EXPECT_EQ(a.fingerprints[k].model, b.fingerprints[k].model) << "class " << k;
  }
}

// Three classes: the last rows (an edge kernel), the last columns of the other rows, and the rest,
// each class with another tree; the first class's rows do not start at row 0.
TEST(GridFingerprint, ClassesMeasuredTogetherGiveTheFingerprintsOfEachClassAlone) {
  const std::size_t n = 40;
  const std::vector<Tree> trees = {left_deep_tree(n), balanced_tree(n), random_binary_tree(n, 3)};
  GridOracleTarget target({24, 10}, trees,
                          [](std::size_t r, std::size_t c) { return std::size_t{r >= 20 ? 0u : c >= 8 ? 1u : 2u}; },
                          float32_products());
  const OrderMap map = target.truth();
  ASSERT_EQ(map.classes.size(), 3u);
  const Measured alone = class_by_class(target, map);
  const Measured shared = together(target, map);
  expect_same(alone, shared);
  EXPECT_FALSE(shared.fingerprints[0].facts.empty());
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
  EXPECT_EQ(grid.facts, alone.fingerprints[0].facts);
  EXPECT_EQ(grid.model, alone.fingerprints[0].model);
  EXPECT_LE(stats.target_calls, alone.calls);
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
