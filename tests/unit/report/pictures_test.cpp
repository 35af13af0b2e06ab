// Pictures of the shipped goldens and of a real change of order: the largest goldens draw small,
// and a diff picture marks exactly the additions the other tree does not have.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "fprev/diff.hpp"
#include "fprev/golden.hpp"
#include "fprev/render.hpp"

namespace fprev {
namespace {

namespace fs = std::filesystem;

const fs::path kGolden = FPREV_SHIPPED_GOLDEN_DIR;

std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

TEST(Pictures, The4096LeafSequentialAndPairwiseGoldensDrawSmall) {
  for (const char* name : {"sum-float32-sequential-n4096", "sum-float32-pairwise-n4096", "sum-float64-reverse-n4096"}) {
    SCOPED_TRACE(name);
    const Golden golden = read_golden(kGolden / "any/reference/reference" / (std::string(name) + ".golden"));
    ASSERT_EQ(golden.tree().leaf_count(), 4096u);
    const Drawing drawing = draw_tree(golden.tree());
    EXPECT_LE(drawing.nodes.size(), 25u);  // sequential 9, pairwise 25 (one level per line)
    const std::string dot = render_dot(golden.tree(), golden.meta.case_id);
    EXPECT_LT(dot.size(), 8000u);
    if (!find_program("dot")) continue;
    const SvgResult svg = render_svg(golden.tree(), golden.meta.case_id);
    ASSERT_TRUE(svg.ok) << svg.error;
    EXPECT_LT(svg.svg.size(), 64u * 1024);
  }
}

// Every shipped golden, the largest (16384 leaves) included, draws within the default budget.
TEST(Pictures, EveryShippedGoldenDrawsWithinTheBudget) {
  const GoldenListing listing = list_goldens(kGolden);
  ASSERT_GT(listing.goldens.size(), 100u);
  std::size_t largest = 0;
  for (const GoldenLocation& location : listing.goldens) {
    const Golden golden = read_golden(location.path);
    for (const OrderClass& c : golden.map.classes) {  // none for a recorded finding
      largest = std::max(largest, c.tree.leaf_count());
      const std::string dot = render_dot(c.tree);
      EXPECT_LE(occurrences(dot, ", shape="), kDefaultDrawnNodes) << location.path;  // one per node
      EXPECT_LT(dot.size(), 64u * 1024) << location.path;
    }
  }
  EXPECT_GE(largest, 16384u);
}

// The leaf sets of a tree's inner nodes, computed the slow and obvious way.
std::set<std::vector<NodeId>> clusters(const Tree& tree) {
  std::vector<std::vector<NodeId>> leaves(tree.node_count());
  for (NodeId node = 0; node < tree.node_count(); ++node) {
    if (tree.is_leaf(node)) {
      leaves[node] = {node};
      continue;
    }
    for (NodeId child : tree.children(node)) leaves[node].insert(leaves[node].end(), leaves[child].begin(), leaves[child].end());
    std::sort(leaves[node].begin(), leaves[node].end());
  }
  return {leaves.begin() + static_cast<std::ptrdiff_t>(tree.leaf_count()), leaves.end()};
}

std::vector<NodeId> cluster_of(const Tree& tree, NodeId node) {
  std::vector<NodeId> leaves, stack{node};
  while (!stack.empty()) {
    const NodeId v = stack.back();
    stack.pop_back();
    if (tree.is_leaf(v)) leaves.push_back(v);
    for (NodeId c : tree.children(v)) stack.push_back(c);
  }
  std::sort(leaves.begin(), leaves.end());
  return leaves;
}

// OpenBLAS dgemm with k = 1001 under the Sandybridge and the Haswell kernels (both forced, both
// shipped): the blocks of k are cut at different places.
TEST(Pictures, ADiffOfTwoKernelFamiliesMarksExactlyWhatDiffers) {
  const std::string c = "gemm-float64-beta0-nn-m64n64k1001.golden";
  const Golden sandybridge = read_golden(kGolden / "sandybridge-t1/blas-cpu/openblas-sandybridge" / c);
  const Golden haswell = read_golden(kGolden / "haswell-t1/blas-cpu/openblas-haswell" / c);
  ASSERT_FALSE(sandybridge.tree() == haswell.tree());
  DiffLabels labels;
  labels.old_name = "sandybridge";
  labels.new_name = "haswell";
  const std::vector<DrawingPanel> panels = diff_panels(sandybridge.tree(), haswell.tree(), labels);
  ASSERT_EQ(panels.size(), 2u);
  const Tree* trees[] = {&sandybridge.tree(), &haswell.tree()};
  for (int side = 0; side < 2; ++side) {
    const Tree& tree = *trees[side];
    const auto other = clusters(*trees[1 - side]);
    const Drawing& drawing = panels[side].drawing;
    EXPECT_LE(drawing.nodes.size(), kDefaultDrawnNodes);
    std::size_t marked_drawn = 0, marked_total = 0;
    for (const DrawnNode& node : drawing.nodes) {
      marked_total += node.marked;
      if (node.kind != DrawnKind::addition) continue;
      const bool differs = other.count(cluster_of(tree, node.node)) == 0;
      EXPECT_EQ(node.marked == 1, differs) << panels[side].title;
      marked_drawn += node.marked;
    }
    EXPECT_GT(marked_drawn, 0u) << "the drawing reaches the differences";
    std::size_t differing = 0;
    for (const auto& cluster : clusters(tree)) differing += other.count(cluster) == 0;
    EXPECT_EQ(marked_total, differing);
  }
  const std::string dot = render_diff_dot(sandybridge.tree(), haswell.tree(), labels);
  EXPECT_EQ(occurrences(dot, "subgraph panel_"), 2u);
  EXPECT_NE(dot.find("label=\"sandybridge\\l"), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"haswell\\l"), std::string::npos) << dot;
  if (!find_program("dot")) return;
  const SvgResult svg = render_svg_from_dot(dot);
  ASSERT_TRUE(svg.ok) << svg.error;
  EXPECT_NE(svg.svg.find("#f4cccc"), std::string::npos);  // red marks reach the SVG
}

TEST(Pictures, IdenticalAndIncomparableTreesSaySo) {
  const Golden golden = read_golden(kGolden / "any/reference/reference/sum-float32-pairwise-n64.golden");
  EXPECT_NE(render_diff_dot(golden.tree(), golden.tree()).find("the trees are identical"), std::string::npos);
  const Golden other = read_golden(kGolden / "any/reference/reference/sum-float32-pairwise-n7.golden");
  EXPECT_NE(render_diff_dot(golden.tree(), other.tree()).find("not comparable: 64 and 7 leaves"), std::string::npos);
}

}  // namespace
}  // namespace fprev
