#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "fprev/render.hpp"
#include "fprev/sexpr.hpp"
#include "fprev/summary.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

TEST(Render, Sexpr) {
  EXPECT_EQ(render_sexpr(parse_sexpr("((2 3) (0 1))")), "((0 1) (2 3))");
}

TEST(Render, IndentedText) {
  EXPECT_EQ(render_text(parse_sexpr("(((0 1) 2 3 4) 5)")),
            "+\n"
            "  + fused 4\n"
            "    +\n"
            "      x0\n"
            "      x1\n"
            "    x2\n"
            "    x3\n"
            "    x4\n"
            "  x5\n");
  TreeBuilder single(1);
  EXPECT_EQ(render_text(single.build()), "x0\n");
}

TEST(Render, IndentedTextOfADeepTreeStaysLinear) {
  const std::string text = render_text(right_deep_tree(2000));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2000 + 1999);
  EXPECT_LT(text.size(), 4000u * (128 + 20));  // indentation capped at 64 levels
  EXPECT_NE(text.find("\n" + std::string(128, ' ') + "[depth 65] +\n"), std::string::npos);
  EXPECT_NE(text.find(std::string(128, ' ') + "[depth 1999] x1999\n"), std::string::npos);
}

TEST(Render, DotOfASmallTree) {
  const std::string dot = render_dot(parse_sexpr("((0 1 2) 3)"), "case \"x\"");
  EXPECT_EQ(dot.rfind("digraph summation_trees {\n", 0), 0u) << dot;
  EXPECT_NE(dot.find("label=\"case \\\"x\\\"\\l\""), std::string::npos) << dot;  // escaped, left-justified
  // Nodes 0..3 are the leaves, 4 the fused sum, 5 the root; edges are written from the sum to its
  // operands in order and drawn backwards (dir=back), so the arrows point into the sums.
  EXPECT_NE(dot.find("p0_4 [label=\"+ fused 3\", shape=box, style=\"filled\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("p0_5 [label=\"+\", shape=circle"), std::string::npos) << dot;
  EXPECT_NE(dot.find("p0_4 -> p0_0;\n    p0_4 -> p0_1;\n    p0_4 -> p0_2;\n    p0_5 -> p0_4;\n    p0_5 -> p0_3;\n"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("edge [dir=back"), std::string::npos) << dot;
  EXPECT_NE(dot.find("ordering=out"), std::string::npos) << dot;
  EXPECT_NE(dot.find("every node drawn"), std::string::npos) << dot;
}

TEST(Render, DotHasOneEdgePerOperandAndIsDeterministic) {
  const Tree tree = random_multiway_tree(40, 4, std::uint64_t{17});
  const std::string dot = render_dot(tree);
  const auto occurrences = [&](const std::string& needle) {
    std::size_t count = 0;
    for (std::size_t at = dot.find(needle); at != std::string::npos; at = dot.find(needle, at + 1)) ++count;
    return count;
  };
  // One edge per operand, invisible ones keeping the summands in order on their row, and the one
  // that puts the title above the picture.
  EXPECT_EQ(occurrences(" -> "), tree.node_count() - 1 + tree.leaf_count() - 1 + 1);
  EXPECT_EQ(occurrences("[style=invis]"), tree.leaf_count() - 1);
  EXPECT_EQ(render_dot(parse_sexpr(to_sexpr(tree))), dot);
}

TEST(Render, DotOfAHugeTreeStaysSmall) {
  const std::string dot = render_dot(left_deep_tree(1000000));
  EXPECT_LT(dot.size(), 10000u);
  EXPECT_NE(dot.find("… 999996 additions"), std::string::npos) << dot;
}

TEST(Render, Svg) {
  if (!find_program("dot")) GTEST_SKIP() << "Graphviz 'dot' is not installed";
  const SvgResult svg = render_svg(parse_sexpr("((0 1) (2 3 4))"), "t");
  ASSERT_TRUE(svg.ok) << svg.error;
  EXPECT_NE(svg.svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.svg.find(">x4<"), std::string::npos);
  EXPECT_NE(svg.svg.find(">+ fused 3<"), std::string::npos);
  // Invalid DOT: dot's own message comes back.
  const SvgResult bad = render_svg_from_dot("digraph {");
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("failed"), std::string::npos) << bad.error;
}

TEST(Render, SvgReportsAMissingDot) {
  const char* saved = std::getenv("PATH");
  const std::string path = saved ? saved : "";
  ::setenv("PATH", "/nonexistent-fprev-dir", 1);
  const SvgResult missing = render_svg(parse_sexpr("(0 1)"));
  ::setenv("PATH", path.c_str(), 1);
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.error.find("not found on PATH"), std::string::npos) << missing.error;
}

TEST(Render, DescribeGolden) {
  Golden golden;
  golden.meta.suite = "s";
  golden.meta.case_id = "c";
  golden.meta.backend = "b";
  golden.meta.platform_key = "p";
  golden.meta.library = "OpenBLAS";
  golden.meta.library_version = "0.3.21";
  golden.meta.tool_version = "0.1.0";
  golden.meta.created = "2024-01-01";
  golden.meta.extra["threads"] = "1";
  golden.map = OrderMap::uniform({}, parse_sexpr("((0 1) 2)"));
  const std::string text = describe_golden(golden);
  EXPECT_NE(text.find("library:                OpenBLAS 0.3.21\n"), std::string::npos) << text;
  EXPECT_NE(text.find("extra.threads:          1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("tree:                   3 leaves, depth 2, arity {2: 2}, sequential\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace fprev

namespace fprev {
namespace {

// x of every summand label of panel `p` in Graphviz's SVG, in the order drawn left to right.
std::vector<std::string> summands_left_to_right(const std::string& svg, int p) {
  std::vector<std::pair<double, std::string>> found;
  const std::string title = "<title>p" + std::to_string(p) + "_";
  for (std::size_t at = svg.find(title); at != std::string::npos; at = svg.find(title, at + 1)) {
    const std::size_t digits = svg.find_first_not_of("0123456789", at + title.size());
    if (svg.compare(digits, 8, "</title>") != 0) continue;  // an edge's title ("p0_16->p0_0")
    const std::size_t text = svg.find("<text", at), x = svg.find(" x=\"", text), end = svg.find("</text>", text);
    const std::string label = svg.substr(svg.find('>', text) + 1, end - svg.find('>', text) - 1);
    if (label.empty() || label[0] != 'x') continue;
    found.emplace_back(std::stod(svg.substr(x + 4)), label);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> labels;
  for (const auto& [x, label] : found) labels.push_back(label);
  return labels;
}

// The y of panel `p`'s title (its first line) in the SVG.
double title_top(const std::string& svg, int p) {
  const std::size_t at = svg.find("<title>top_" + std::to_string(p) + "</title>");
  const std::size_t y = svg.find(" y=\"", svg.find("<text", at));
  return std::stod(svg.substr(y + 4));
}

TEST(Render, DiffPicturesKeepSummandsInOrderAndPanelsTopAligned) {
  const Tree pairwise = patterns::pairwise(15), sequential = left_deep_tree(15);
  DiffLabels labels;
  labels.old_name = "old";
  labels.new_name = "new";
  const std::string dot = render_diff_dot(pairwise, sequential, labels, kDefaultDrawnNodes);
  EXPECT_NE(dot.find("newrank=true"), std::string::npos) << dot;
  EXPECT_NE(dot.find("{ rank=same; top_0; top_1; }"), std::string::npos) << dot;
  if (!find_program("dot")) GTEST_SKIP() << "Graphviz 'dot' is not installed";
  const SvgResult svg = render_svg_from_dot(dot);
  ASSERT_TRUE(svg.ok) << svg.error;
  std::vector<std::string> in_order;
  for (int i = 0; i < 15; ++i) in_order.push_back("x" + std::to_string(i));
  EXPECT_EQ(summands_left_to_right(svg.svg, 0), in_order);
  EXPECT_EQ(summands_left_to_right(svg.svg, 1), in_order);  // the sequential tree's too
  // Depth 4 beside depth 14: both frames start at the same height, no blank area above one.
  EXPECT_NEAR(title_top(svg.svg, 0), title_top(svg.svg, 1), 1.0);
}

// 33 summands in 4 strided lanes beside a sequential sum: the trees cannot both be drawn without
// crossings with their summands in index order, and the summands stay in order all the same.
TEST(Render, DiffPicturesKeepStridedSummandsInOrder) {
  const Tree strided = patterns::strided(33, 4, patterns::LaneCombine::pairwise), sequential = left_deep_tree(33);
  DiffLabels labels;
  labels.old_name = "old";
  labels.new_name = "new";
  const std::string dot = render_diff_dot(strided, sequential, labels, kDefaultDrawnNodes);
  if (!find_program("dot")) GTEST_SKIP() << "Graphviz 'dot' is not installed";
  const SvgResult svg = render_svg_from_dot(dot);
  ASSERT_TRUE(svg.ok) << svg.error;
  std::vector<std::string> in_order;
  for (int i = 0; i < 33; ++i) in_order.push_back("x" + std::to_string(i));
  EXPECT_EQ(summands_left_to_right(svg.svg, 0), in_order);
  EXPECT_EQ(summands_left_to_right(svg.svg, 1), in_order);
  // and the panels in their order: old left of new
  const std::size_t old_title = svg.svg.find("<title>top_0</title>"), new_title = svg.svg.find("<title>top_1</title>");
  const auto x_of = [&](std::size_t at) { return std::stod(svg.svg.substr(svg.svg.find(" x=\"", svg.svg.find("<text", at)) + 4)); };
  EXPECT_LT(x_of(old_title), x_of(new_title));
}

}  // namespace
}  // namespace fprev
