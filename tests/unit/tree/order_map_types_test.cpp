// The order-map type: ranges, regions, canonical form, lookup, comparison and one-line summaries.
#include <gtest/gtest.h>

#include "fprev/order_map.hpp"
#include "fprev/sexpr.hpp"
#include "fprev/summary.hpp"

namespace fprev {
namespace {

const Tree kSequential = parse_sexpr("(((0 1) 2) 3)");
const Tree kPairwise = parse_sexpr("((0 1) (2 3))");
const Tree kReverse = parse_sexpr("(0 (1 (2 3)))");

Region region(IndexRanges rows, IndexRanges columns) { return {std::move(rows), std::move(columns)}; }

// A 6 x 5 grid: rows 4-5 pairwise, the rest sequential.
OrderMap edge_rows() {
  OrderMap map;
  map.grid = {6, 5};
  map.classes.push_back({{region({{0, 3}}, {{0, 4}})}, kSequential});
  map.classes.push_back({{region({{4, 5}}, {{0, 4}})}, kPairwise});
  canonicalize(map);
  return map;
}

TEST(OrderMapTypes, RangesAreCanonical) {
  EXPECT_EQ(ranges_of({5, 1, 2, 3, 9, 3}), (IndexRanges{{1, 3}, {5, 5}, {9, 9}}));
  EXPECT_EQ(normalized({{4, 6}, {0, 2}, {3, 3}, {8, 9}}), (IndexRanges{{0, 6}, {8, 9}}));
  EXPECT_TRUE(contains(IndexRanges{{1, 3}, {7, 7}}, 7));
  EXPECT_FALSE(contains(IndexRanges{{1, 3}, {7, 7}}, 5));
  EXPECT_EQ(count_indices({{1, 3}, {7, 7}}), 4u);
}

TEST(OrderMapTypes, RangesAreFormattedCompactly) {
  EXPECT_EQ(format_ranges({{0, 95}}), "0-95");
  EXPECT_EQ(format_ranges({{0, 7}, {88, 95}, {100, 100}}), "0-7, 88-95, 100");
  IndexRanges stripes;
  for (std::size_t s = 0; s < 96; s += 12) stripes.push_back({s, s + 5});
  stripes.push_back({96, 99});
  EXPECT_EQ(format_ranges(stripes), "0-5, 12-17, ..., 84-89 (8 ranges of 6, every 12), 96-99");
  EXPECT_EQ(format_ranges({}), "none");
  EXPECT_EQ(format_region(region({{96, 99}}, {{0, 0}}), {100, 1}), "rows 96-99");
  EXPECT_EQ(format_region(region({{96, 99}}, {{0, 9}}), {100, 10}), "rows 96-99 x columns 0-9");
}

TEST(OrderMapTypes, LookupFindsTheClassOfEveryElement) {
  const OrderMap map = edge_rows();
  ASSERT_EQ(map.classes.size(), 2u);
  EXPECT_EQ(map.class_at(0, 0).tree, kSequential);
  EXPECT_EQ(map.class_at(3, 4).tree, kSequential);
  EXPECT_EQ(map.class_at(4, 0).tree, kPairwise);
  EXPECT_EQ(map.class_index_at(5, 4), 1u);
  EXPECT_THROW(map.class_at(6, 0), std::out_of_range);
  EXPECT_EQ(map.classes[0].size() + map.classes[1].size(), 30u);
  EXPECT_TRUE(OrderMap::uniform({6, 5}, kSequential).single_class());
}

TEST(OrderMapTypes, CanonicalFormDoesNotDependOnHowRegionsWereSplit) {
  OrderMap split;
  split.grid = {6, 5};
  // The same map, the second class first and the first class cut in three pieces.
  split.classes.push_back({{region({{5, 5}, {4, 4}}, {{0, 4}})}, kPairwise});
  split.classes.push_back({{region({{0, 1}}, {{0, 4}}), region({{2, 3}}, {{0, 1}}),
                            region({{2, 3}}, {{2, 4}})},
                           kSequential});
  canonicalize(split);
  const OrderMap expected = edge_rows();
  ASSERT_EQ(split.classes.size(), 2u);
  EXPECT_EQ(split.classes[0].tree, kSequential);  // the class holding (0, 0) comes first
  EXPECT_EQ(split.classes[0].regions, expected.classes[0].regions);
  EXPECT_EQ(split.classes[1].regions, expected.classes[1].regions);
  EXPECT_TRUE(same_orders(split, expected));
}

TEST(OrderMapTypes, CanonicalizeRefusesWhatIsNotAPartition) {
  OrderMap overlap = edge_rows();
  overlap.classes[1].regions[0].rows = {{3, 5}};
  EXPECT_THROW(canonicalize(overlap), OrderMapError);
  OrderMap gap = edge_rows();
  gap.classes[1].regions[0].rows = {{5, 5}};
  EXPECT_THROW(canonicalize(gap), OrderMapError);
  OrderMap outside = edge_rows();
  outside.classes[1].regions[0].rows = {{4, 6}};
  EXPECT_THROW(canonicalize(outside), OrderMapError);
  OrderMap sizes = edge_rows();
  sizes.classes[1].tree = parse_sexpr("(0 1)");
  EXPECT_THROW(canonicalize(sizes), OrderMapError);
  OrderMap empty = edge_rows();
  empty.classes.push_back({{}, kReverse});
  EXPECT_THROW(canonicalize(empty), OrderMapError);
}

TEST(OrderMapTypes, MapsFromElementClassesAreUnionsOfRegions) {
  // A checkerboard of 2 x 2 tiles on a 4 x 6 grid.
  std::vector<std::size_t> element(24);
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t c = 0; c < 6; ++c) element[r * 6 + c] = ((r / 2) + (c / 2)) % 2;
  const OrderMap map = map_of_elements({4, 6}, element, {kSequential, kPairwise});
  ASSERT_EQ(map.classes.size(), 2u);
  EXPECT_EQ(map.classes[0].regions,
            (std::vector<Region>{region({{0, 1}}, {{0, 1}, {4, 5}}), region({{2, 3}}, {{2, 3}})}));
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t c = 0; c < 6; ++c)
      EXPECT_EQ(map.class_at(r, c).tree, element[r * 6 + c] == 0 ? kSequential : kPairwise);
  EXPECT_THROW(map_of_elements({4, 6}, std::vector<std::size_t>(23, 0), {kSequential}), OrderMapError);
  EXPECT_THROW(map_of_elements({4, 6}, std::vector<std::size_t>(24, 1), {kSequential}), OrderMapError);
}

TEST(OrderMapTypes, ComparisonSaysWhichElementsChangedAndHow) {
  const OrderMap before = edge_rows();
  // Afterwards the edge rows are sequential too, and column 4 is reversed everywhere.
  std::vector<std::size_t> element(30, 0);
  for (std::size_t r = 0; r < 6; ++r) element[r * 5 + 4] = 1;
  const OrderMap after = map_of_elements({6, 5}, element, {kSequential, kReverse});
  const std::vector<MapChange> changes = compare_maps(before, after);
  ASSERT_EQ(changes.size(), 3u);
  // (sequential -> reverse) in column 4 of rows 0-3, (pairwise -> sequential) in rows 4-5 columns
  // 0-3, (pairwise -> reverse) at rows 4-5 column 4.
  std::size_t elements = 0;
  for (const MapChange& change : changes) {
    elements += change.region.size();
    EXPECT_FALSE(before.classes[change.before_class].tree == after.classes[change.after_class].tree);
  }
  EXPECT_EQ(elements, 4u + 8u + 2u);
  EXPECT_FALSE(same_orders(before, after));
  EXPECT_TRUE(same_orders(before, before));
  EXPECT_THROW(compare_maps(before, OrderMap::uniform({5, 6}, kSequential)), OrderMapError);
}

TEST(OrderMapTypes, OneLinePerClassWithItsRegionsAndTreeSummary) {
  const std::vector<std::string> lines = describe_map(edge_rows());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "rows 0-3 x columns 0-4: " + format_summary(summarize(kSequential)));
  EXPECT_EQ(lines[1], "rows 4-5 x columns 0-4: " + format_summary(summarize(kPairwise)));
}

}  // namespace
}  // namespace fprev
