#include <gtest/gtest.h>

#include <random>
#include <string>

#include "fprev/golden.hpp"
#include "fprev/sexpr.hpp"
#include "line_diff.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

GoldenMetadata sample_metadata() {
  GoldenMetadata meta;
  meta.suite = "blas-cpu";
  meta.case_id = "dot-float32-n4";
  meta.backend = "openblas";
  meta.platform_key = "haswell-t1";
  meta.library = "OpenBLAS";
  meta.library_version = "0.3.21";
  meta.library_configuration = "DYNAMIC_ARCH Haswell";
  meta.tool_version = "0.1.0";
  meta.created = "2024-05-01T12:00:00Z";
  meta.extra["path"] = "/usr/lib/libopenblas.so.0";
  return meta;
}

Golden make_golden(Tree tree) { return Golden::of_tree(sample_metadata(), std::move(tree)); }

// The format as documented in golden.hpp, written out by hand: version 2, which is written.
constexpr const char* kFourLeafText =
    "# fprev-golden tree v2\n"
    "suite: blas-cpu\n"
    "case: dot-float32-n4\n"
    "backend: openblas\n"
    "platform: haswell-t1\n"
    "library: OpenBLAS\n"
    "library-version: 0.3.21\n"
    "library-configuration: DYNAMIC_ARCH Haswell\n"
    "tool-version: 0.1.0\n"
    "created: 2024-05-01T12:00:00Z\n"
    "extra.path: /usr/lib/libopenblas.so.0\n"
    "result: tree\n"
    "grid: 1 x 1\n"
    "leaves: 4\n"
    "inner-nodes: 3\n"
    "depth: 2\n"
    "arity: 2:3\n"
    "sexpr: ((0 1) (2 3))\n"
    "# nodes: n<a>.<k> is the inner node whose smallest leaf is a and which has k leaves\n"
    "n0.2 = (0 1)\n"
    "n2.2 = (2 3)\n"
    "n0.4 = (n0.2 n2.2)\n"
    "# end\n";

// Version 1, as older fprev-golden wrote it: still read (the strict-parsing tests below use it, so
// the line numbers of version 1 stay covered).
constexpr const char* kFourLeafTextV1 =
    "# fprev-golden tree v1\n"
    "suite: blas-cpu\n"
    "case: dot-float32-n4\n"
    "backend: openblas\n"
    "platform: haswell-t1\n"
    "library: OpenBLAS\n"
    "library-version: 0.3.21\n"
    "library-configuration: DYNAMIC_ARCH Haswell\n"
    "tool-version: 0.1.0\n"
    "created: 2024-05-01T12:00:00Z\n"
    "extra.path: /usr/lib/libopenblas.so.0\n"
    "leaves: 4\n"
    "inner-nodes: 3\n"
    "depth: 2\n"
    "arity: 2:3\n"
    "sexpr: ((0 1) (2 3))\n"
    "# nodes: n<a>.<k> is the inner node whose smallest leaf is a and which has k leaves\n"
    "n0.2 = (0 1)\n"
    "n2.2 = (2 3)\n"
    "n0.4 = (n0.2 n2.2)\n"
    "# end\n";

TEST(GoldenText, WritesTheDocumentedFormat) {
  EXPECT_EQ(write_golden_text(make_golden(parse_sexpr("((0 1) (2 3))"))), kFourLeafText);
}

TEST(GoldenText, WritesMultiwayAndSingleLeafTrees) {
  Golden golden = make_golden(parse_sexpr("((0 1 2) 3 4)"));
  golden.meta.extra.clear();
  golden.meta.library_version.clear();
  const std::string text = write_golden_text(golden);
  EXPECT_NE(text.find("\nlibrary-version:\n"), std::string::npos);
  EXPECT_NE(text.find("\narity: 3:2\n"), std::string::npos);
  EXPECT_NE(text.find("\nn0.3 = (0 1 2)\nn0.5 = (n0.3 3 4)\n# end\n"), std::string::npos);

  TreeBuilder single(1);
  const std::string one = write_golden_text(make_golden(single.build()));
  EXPECT_NE(one.find("\nleaves: 1\ninner-nodes: 0\ndepth: 0\narity: none\nsexpr: 0\n# nodes"),
            std::string::npos);
  EXPECT_TRUE(one.ends_with("leaves\n# end\n"));
  EXPECT_EQ(parse_golden_text(one).tree().leaf_count(), 1u);
}

void expect_round_trip(const Golden& golden) {
  const std::string text = write_golden_text(golden);
  const Golden back = parse_golden_text(text, "roundtrip.golden");
  EXPECT_TRUE(back.tree() == golden.tree());
  EXPECT_EQ(back.meta, golden.meta);
  EXPECT_EQ(write_golden_text(back), text);  // byte-identical on re-write
}

TEST(GoldenText, RoundTripsRandomBinaryAndMultiwayTrees) {
  std::mt19937_64 rng(12345);
  for (std::size_t n : {1u, 2u, 3u, 5u, 17u, 64u, 250u, 1000u, 3000u}) {
    for (std::size_t max_arity : {2u, 3u, 17u}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " max_arity=" + std::to_string(max_arity));
      expect_round_trip(make_golden(random_multiway_tree(n, max_arity, rng)));
    }
  }
}

// A regular big tree is written as its structural description: a sequential sum is one template.
TEST(GoldenText, RoundTripsAHundredThousandLeafLeftDeepTree) {
  const Tree tree = left_deep_tree(100000);
  const std::string text = write_golden_text(make_golden(tree));
  EXPECT_NE(text.find("\n# structure: "), std::string::npos);
  EXPECT_NE(text.find("\nT1 = chain(0..99999)\n# end\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("sexpr:"), std::string::npos);
  const Golden back = parse_golden_text(text);
  EXPECT_TRUE(back.tree() == tree);
  EXPECT_EQ(back.tree().depth(), 99999u);
  EXPECT_EQ(write_golden_text(back), text);
}

TEST(GoldenText, EscapesValuesSoTheyRoundTrip) {
  Golden golden = make_golden(parse_sexpr("(0 1)"));
  golden.meta.library_configuration = " leading, trailing \n\ttab\\back\x01\x7f caf\xc3\xa9 ";
  golden.meta.extra["empty"] = "";
  golden.meta.extra["a.b_c-d"] = "x: y";
  const std::string text = write_golden_text(golden);
  EXPECT_NE(text.find("library-configuration: \\x20leading, trailing \\n\\ttab\\\\back\\x01\\x7f "
                      "caf\xc3\xa9\\x20\n"),
            std::string::npos);
  EXPECT_NE(text.find("\nextra.empty:\n"), std::string::npos);
  expect_round_trip(golden);
}

TEST(GoldenText, RejectsMetadataItCannotWrite) {
  Golden golden = make_golden(parse_sexpr("(0 1)"));
  golden.meta.case_id = "bad/case";
  EXPECT_THROW(write_golden_text(golden), GoldenIoError);
  golden = make_golden(parse_sexpr("(0 1)"));
  golden.meta.created = "yesterday";
  EXPECT_THROW(write_golden_text(golden), GoldenIoError);
  golden = make_golden(parse_sexpr("(0 1)"));
  golden.meta.extra["bad key"] = "v";
  EXPECT_THROW(write_golden_text(golden), GoldenIoError);
  golden = make_golden(Tree());
  EXPECT_THROW(write_golden_text(golden), GoldenIoError);
}

// A tree of `blocks` blocks of `width` leaves, each block summed left to right, block sums combined
// pairwise level by level; `reversed_block` (if any) sums its leaves right to left instead.
Tree blocked_tree(NodeId blocks, NodeId width, NodeId reversed_block) {
  TreeBuilder builder(blocks * width);
  std::vector<NodeId> sums;
  for (NodeId b = 0; b < blocks; ++b) {
    const NodeId first = b * width;
    NodeId acc = kNoNode;
    if (b == reversed_block) {
      acc = first + width - 1;
      for (NodeId i = width - 1; i-- > 0;) acc = builder.add_node({acc, first + i});
    } else {
      acc = first;
      for (NodeId i = 1; i < width; ++i) acc = builder.add_node({acc, first + i});
    }
    sums.push_back(acc);
  }
  std::vector<NodeId> level = sums;
  while (level.size() > 1) {
    std::vector<NodeId> next;
    for (std::size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(builder.add_node({level[i], level[i + 1]}));
    if (level.size() % 2 == 1) next.push_back(level.back());
    level = std::move(next);
  }
  return builder.build();
}

// Node lines (trees of up to 64 inner nodes): 6 blocks of 10 (59 inner nodes), block 3 reversed.
TEST(GoldenText, ChangingOneSubtreeChangesOnlyItsNodeLines) {
  const std::string before = write_golden_text(make_golden(blocked_tree(6, 10, kNoNode)));
  const std::string after = write_golden_text(make_golden(blocked_tree(6, 10, 3)));
  ASSERT_NE(before.find("# nodes: "), std::string::npos);
  // The block's 9 inner node lines are replaced by 9 new ones; nothing else changes (the block
  // keeps its leaf set, so its parent's line is the same; the depth stays the same).
  EXPECT_EQ(testing::changed_line_count(before, after), 18u);
}

// A structural description (large regular trees): 100 blocks of 10 is a handful of lines, and one
// reversed block changes a handful of them, not the file.
TEST(GoldenText, ChangingOneSubtreeChangesAFewStructureLines) {
  const std::string before = write_golden_text(make_golden(blocked_tree(100, 10, kNoNode)));
  const std::string after = write_golden_text(make_golden(blocked_tree(100, 10, 37)));
  ASSERT_NE(before.find("# structure: "), std::string::npos);
  EXPECT_LT(std::count(before.begin(), before.end(), '\n'), 40);
  EXPECT_LT(testing::changed_line_count(before, after), 20u);
  EXPECT_TRUE(parse_golden_text(after).tree() == blocked_tree(100, 10, 37));
}

// ---- strict parsing ------------------------------------------------------------------------------

std::string replace_line(std::string text, std::size_t line_number, const std::string& line) {
  std::size_t start = 0;
  for (std::size_t i = 1; i < line_number; ++i) start = text.find('\n', start) + 1;
  const std::size_t end = text.find('\n', start);
  return text.replace(start, end - start, line);
}

std::string insert_line(std::string text, std::size_t line_number, const std::string& line) {
  std::size_t start = 0;
  for (std::size_t i = 1; i < line_number; ++i) start = text.find('\n', start) + 1;
  return text.insert(start, line + "\n");
}

// Parses `text` expecting an error on `line` whose message contains `fragment`.
void expect_error(const std::string& text, std::size_t line, const std::string& fragment) {
  try {
    parse_golden_text(text, "golden/x/y/z/case.golden");
    ADD_FAILURE() << "parsed without error; expected line " << line << ": " << fragment;
  } catch (const GoldenParseError& error) {
    EXPECT_EQ(error.line(), line) << error.what();
    EXPECT_NE(error.message().find(fragment), std::string::npos) << error.what();
    EXPECT_EQ(error.path(), "golden/x/y/z/case.golden");
    EXPECT_EQ(std::string(error.what()).rfind("golden/x/y/z/case.golden:" + std::to_string(line) + ": ", 0),
              0u)
        << error.what();
  }
}

TEST(GoldenParse, AcceptsTheDocumentedText) {
  const Golden golden = parse_golden_text(kFourLeafText);
  EXPECT_TRUE(golden.tree() == parse_sexpr("((0 1) (2 3))"));
  EXPECT_EQ(golden.meta, sample_metadata());
  EXPECT_EQ(golden.map.grid, (OutputGrid{1, 1}));
}

TEST(GoldenParse, ReadsVersion1) {
  const Golden golden = parse_golden_text(kFourLeafTextV1);
  EXPECT_TRUE(golden.tree() == parse_sexpr("((0 1) (2 3))"));
  GoldenMetadata expected = sample_metadata();
  expected.format_version = 1;
  EXPECT_EQ(golden.meta, expected);
  // Re-written, it is the current version with the same content.
  EXPECT_EQ(write_golden_text(golden), kFourLeafText);
}

TEST(GoldenParse, TruncatedFiles) {
  const std::string text = kFourLeafTextV1;
  // Cut at the end of a node line: the end marker is missing (error on the line after the last).
  const std::size_t cut = text.find("n2.2 = (2 3)\n") + std::string("n2.2 = (2 3)\n").size();
  expect_error(text.substr(0, cut), 20, "missing '# end' line");
  // Cut inside a line: that line has no newline.
  expect_error(text.substr(0, cut - 3), 19, "truncated");
  // Cut inside the header.
  expect_error(text.substr(0, text.find("leaves: 4")), 12, "truncated");
  // The end marker without its newline.
  expect_error(text.substr(0, text.size() - 1), 21, "truncated");
  expect_error("", 1, "empty file");
}

TEST(GoldenParse, CorruptedNodeLines) {
  const std::string text = kFourLeafTextV1;
  expect_error(replace_line(text, 19, "n2.2 = (2 x)"), 19, "malformed child 'x'");
  expect_error(replace_line(text, 19, "n2.2 = (2  3)"), 19, "single spaces");
  expect_error(replace_line(text, 19, "n2.2 = (2 3"), 19, "malformed node line");
  expect_error(replace_line(text, 19, "n2.2=(2 3)"), 19, "malformed node line");
  expect_error(replace_line(text, 19, "n2.3 = (2 3)"), 19, "does not match its children");
  expect_error(replace_line(text, 19, "n2.2 = (3 2)"), 19, "not ordered by their smallest leaf");
  expect_error(replace_line(text, 19, "n2.2 = (2 03)"), 19, "malformed child '03'");
  expect_error(replace_line(text, 19, "n2.2 = (2 4)"), 19, "out of range");
  expect_error(replace_line(text, 19, "n1.2 = (1 3)"), 19, "leaf 1 is a child of two nodes");
  expect_error(replace_line(text, 19, "n2.1 = (2)"), 19, "fewer than two children");
  expect_error(replace_line(text, 20, "n0.4 = (n0.2 n2.2 n9.2)"), 20, "not defined on an earlier line");
  expect_error(replace_line(text, 18, "n0.2 = (0 1 2)"), 18, "does not match");
}

TEST(GoldenParse, StructuralErrors) {
  const std::string text = kFourLeafTextV1;
  // Lines out of canonical order: the tree is valid but would not re-write to the same bytes.
  std::string swapped = replace_line(text, 18, "n2.2 = (2 3)");
  swapped = replace_line(swapped, 19, "n0.2 = (0 1)");
  expect_error(swapped, 18, "canonical order");
  // A leaf missing: two nodes only, n0.2 and n2.2, form two trees.
  std::string forest = replace_line(text, 20, "# end");
  forest = forest.substr(0, forest.find("# end\n") + 6);
  expect_error(forest, 20, "2 separate trees");
  std::string missing_leaf = replace_line(text, 19, "n0.3 = (n0.2 2)");
  missing_leaf = replace_line(missing_leaf, 20, "# end");
  missing_leaf = missing_leaf.substr(0, missing_leaf.find("# end\n") + 6);
  expect_error(missing_leaf, 20, "leaf 3 is not a child of any node");
  // Derived lines that disagree with the nodes.
  expect_error(replace_line(text, 14, "depth: 3"), 14, "depth is '3' but the nodes give '2'");
  expect_error(replace_line(text, 13, "inner-nodes: 2"), 13, "inner-nodes");
  expect_error(replace_line(text, 15, "arity: 2:2"), 15, "arity");
  expect_error(replace_line(text, 16, "sexpr: ((0 2) (1 3))"), 16, "sexpr");
  // Too many nodes for the leaf count.
  expect_error(insert_line(text, 20, "n0.4 = (n0.2 n2.2)"), 21, "defined twice (first on line 20)");
  expect_error(insert_line(text, 21, "n1.2 = (1 3)"), 21, "more inner nodes than a tree with 4 leaves");
  expect_error(replace_line(text, 12, "leaves: 3"), 19, "out of range");
  expect_error(replace_line(text, 12, "leaves: 0"), 12, "positive whole number");
  expect_error(replace_line(text, 12, "leaves: 4000000000"), 12,
               "leaves is 4000000000, more than the 2,147,483,647 leaves a tree can have");
  expect_error(replace_line(text, 12, "leaves: 7"), 12,
               "leaves is 7 but the node lines name at most 6 children (file truncated?)");
  expect_error(text + "n0.2 = (0 1)\n", 22, "after the '# end' line");
}

TEST(GoldenParse, HeaderErrors) {
  const std::string text = kFourLeafTextV1;
  expect_error(replace_line(text, 1, "# fprev-golden tree v3"), 1,
               "unsupported golden format version 3");
  expect_error(replace_line(text, 1, "hello"), 1, "not a fprev-golden file");
  expect_error(insert_line(text, 5, "suite: other"), 5, "duplicated key 'suite' (first on line 2)");
  expect_error(insert_line(text, 5, "colour: blue"), 5, "unknown key 'colour'");
  expect_error(replace_line(text, 3, "kase: dot-float32-n4"), 3, "unknown key 'kase'");
  expect_error(replace_line(text, 2, "# suite: x"), 2, "unexpected comment line");
  expect_error(replace_line(text, 2, ""), 2, "unexpected empty line");
  expect_error(replace_line(text, 2, "suite:blas"), 2, "expected a space");
  expect_error(replace_line(text, 2, "suite:"), 2, "empty value");
  expect_error(replace_line(text, 2, "suite: a/b"), 2, "not file-name safe");
  expect_error(replace_line(text, 10, "created: 2024-13-01"), 10, "ISO-8601");
  expect_error(replace_line(text, 8, "library-configuration: a\\qb"), 8, "unknown escape");
  expect_error(replace_line(text, 8, "library-configuration: ab "), 8, "trailing space");
  expect_error(replace_line(text, 11, "extra.: x"), 11, "malformed extra key");
  // A required key missing: reported at the '# nodes' line.
  std::string no_tool = replace_line(text, 9, "extra.tool: x");
  expect_error(no_tool, 17, "missing key 'tool-version'");
  std::string no_sexpr = replace_line(text, 16, "extra.s: x");
  expect_error(no_sexpr, 17, "missing key 'sexpr'");
  // Windows line endings.
  std::string crlf = text;
  crlf.insert(crlf.find('\n'), "\r");
  expect_error(crlf, 1, "LF line endings");
}

TEST(GoldenParse, AcceptsKeysInAnyOrderAndADateWithoutTime) {
  std::string text = replace_line(kFourLeafTextV1, 2, "case: dot-float32-n4");
  text = replace_line(text, 3, "suite: blas-cpu");
  text = replace_line(text, 10, "created: 2024-05-01");
  const Golden golden = parse_golden_text(text);
  EXPECT_EQ(golden.meta.suite, "blas-cpu");
  EXPECT_EQ(golden.meta.case_id, "dot-float32-n4");
  EXPECT_EQ(golden.meta.created, "2024-05-01");
}

}  // namespace
}  // namespace fprev
