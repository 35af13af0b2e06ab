// The impact of a change between two results (fprev/impact.hpp's result_impact): which class
// pairs of an order map changed, the elements they cover, the formats a golden implies, and the
// one-line summary.
#include <gtest/gtest.h>

#include <vector>

#include "fprev/impact.hpp"
#include "fprev/sexpr.hpp"

namespace fprev {
namespace {

const char* kPairwise8 = "(((0 1) (2 3)) ((4 5) (6 7)))";
const char* kSequential8 = "(((((((0 1) 2) 3) 4) 5) 6) 7)";

Golden map_golden(const std::string& case_id, std::vector<std::size_t> class_of_element, std::vector<Tree> trees) {
  Golden golden;
  golden.meta.case_id = case_id;
  golden.map = map_of_elements(OutputGrid{class_of_element.size(), 1}, class_of_element, std::move(trees));
  return golden;
}

TEST(ResultImpact, AnOrderMapReportsEachChangedClassWithItsElements) {
  // A GEMV of 4 rows: rows 2-3 changed from pairwise to sequential, rows 0-1 did not.
  const Golden before = map_golden("gemv-float32-n-m8n4", {0, 0, 0, 0}, {parse_sexpr(kPairwise8)});
  const Golden after = map_golden("gemv-float32-n-m8n4", {0, 0, 1, 1}, {parse_sexpr(kPairwise8), parse_sexpr(kSequential8)});
  const auto impact = result_impact(before, after);
  ASSERT_TRUE(impact);
  ASSERT_EQ(impact->changes.size(), 1u);
  const ClassImpact& change = impact->changes[0];
  EXPECT_EQ(change.element_count, 2u);
  EXPECT_EQ(change.elements, format_region(Region{{{2, 3}}, {{0, 0}}}, after.map.grid));
  // The formats come from the case id: float32 products (a GEMV's summands).
  NumericTraits t;
  t.input = t.accumulator = t.output = Format::float32;
  t.summand = SummandKind::product;
  const TreeImpact direct = tree_impact(parse_sexpr(kPairwise8), {t, {}}, parse_sexpr(kSequential8), {t, {}});
  ASSERT_EQ(change.impact.sets.size(), direct.sets.size());
  for (std::size_t k = 0; k < direct.sets.size(); ++k) {
    EXPECT_EQ(change.impact.sets[k].differing, direct.sets[k].differing);
    EXPECT_EQ(change.impact.sets[k].max_ulp, direct.sets[k].max_ulp);
  }
  // Rounded products add one rounding to every leaf's path: 3 + 1 and 7 + 1.
  EXPECT_EQ(change.impact.old_bound.h, 4.0);
  EXPECT_EQ(change.impact.new_bound.h, 8.0);
  EXPECT_NE(impact_line(*impact).find("worst-case bound 4u -> 8u"), std::string::npos) << impact_line(*impact);
  EXPECT_NE(impact->arithmetic.find("float32 inputs"), std::string::npos);
}

TEST(ResultImpact, FusedMultiplyAddsAsTheFingerprintRecordsThem) {
  // Contracted products are not rounded: the bound has no product rounding.
  NumericTraits t;
  t.input = t.accumulator = t.output = Format::float32;
  t.summand = SummandKind::product;
  const Tree tree = parse_sexpr(kSequential8);
  EXPECT_EQ(worst_case_bound(tree, {t, {{"products", "not rounded (contracted, FMA)"}}}).h, 7.0);
  EXPECT_EQ(worst_case_bound(tree, {t, {{"products", "rounded"}}}).h, 8.0);
  // Same tree, the products now contracted: an arithmetic change with an impact.
  const TreeImpact impact =
      tree_impact(tree, {t, {{"products", "rounded"}}}, tree, {t, {{"products", "not rounded (contracted, FMA)"}}});
  EXPECT_GT(impact.sets[0].differing + impact.sets[1].differing, 0u);
}

TEST(ResultImpact, TheSameTreeWithAnotherFingerprintIsAChange) {
  const Tree tree = parse_sexpr(kSequential8);
  Fingerprint old_fingerprint, new_fingerprint;
  old_fingerprint.facts["partial-sums"] = "float32";
  new_fingerprint.facts["partial-sums"] = "float64";
  new_fingerprint.outputs["normal"] = {1.0};
  GoldenMetadata meta;
  meta.case_id = "sum-float32-sequential-n8";
  const Golden before = Golden::of_tree(meta, tree, old_fingerprint);
  const Golden after = Golden::of_tree(meta, tree, new_fingerprint);
  const auto impact = result_impact(before, after);
  ASSERT_TRUE(impact);
  EXPECT_EQ(impact->changes.front().impact.old_bound.h, 7.0);
  EXPECT_LT(impact->changes.front().impact.new_bound.h, 1.0);
  // Nothing changed: no impact.
  EXPECT_FALSE(result_impact(before, before));
}

TEST(ResultImpact, FindingsAndIncomparableTreesHaveNone) {
  GoldenMetadata meta;
  Golden finding;
  finding.finding = RecordedFinding{};
  const Golden tree = Golden::of_tree(meta, parse_sexpr(kPairwise8));
  EXPECT_FALSE(result_impact(finding, tree));
  EXPECT_FALSE(result_impact(tree, finding));
  EXPECT_FALSE(result_impact(tree, Golden::of_tree(meta, parse_sexpr("((0 1) 2)"))));
}

}  // namespace
}  // namespace fprev
