// The golden's alignment lines (fprev/alignment.hpp, docs/golden-format.md): written canonically,
// read back to the same result, refused when malformed; a golden without the line (written before
// the alignment check) reads as "not recorded".
#include <gtest/gtest.h>

#include <string>

#include "fprev/golden.hpp"
#include "fprev/sexpr.hpp"

namespace fprev {
namespace {

GoldenMetadata metadata() {
  GoldenMetadata meta;
  meta.suite = "eigen";
  meta.case_id = "sum-float64-n4";
  meta.backend = "eigen";
  meta.platform_key = "x86-64";
  meta.library = "Eigen";
  meta.tool_version = "0.1.0";
  meta.created = "2026-11-26";
  return meta;
}

// Offsets 0, 2, 4, 6 follow ((0 1) (2 3)); 1, 3, 5, 7 follow (0 ((1 2) 3)).
Golden dependent_golden() {
  Golden golden = Golden::of_tree(metadata(), parse_sexpr("((0 1) (2 3))"));
  AlignmentResult a;
  a.verdict = AlignmentVerdict::dependent;
  a.offsets = 8;
  a.classes = {{Placements{{0, 2, 4, 6}, false}, golden.map},
               {Placements{{1, 3, 5, 7}, false}, OrderMap::uniform({1, 1}, parse_sexpr("(0 ((1 2) 3))"))}};
  golden.alignment = a;
  return golden;
}

const std::string kHeader =
    "# fprev-golden tree v2\n"
    "suite: eigen\n"
    "case: sum-float64-n4\n"
    "backend: eigen\n"
    "platform: x86-64\n"
    "library: Eigen\n"
    "library-version:\n"
    "library-configuration:\n"
    "tool-version: 0.1.0\n"
    "created: 2026-11-26\n"
    "result: tree\n"
    "grid: 1 x 1\n";

// Written by hand from docs/golden-format.md.
const std::string kDependentText = kHeader +
    "alignment: dependent (offsets 0-7 checked, 2 classes)\n"
    "alignment.offsets: 0,2,4,6\n"
    "leaves: 4\n"
    "inner-nodes: 3\n"
    "depth: 2\n"
    "arity: 2:3\n"
    "sexpr: ((0 1) (2 3))\n"
    "# nodes: n<a>.<k> is the inner node whose smallest leaf is a and which has k leaves\n"
    "n0.2 = (0 1)\n"
    "n2.2 = (2 3)\n"
    "n0.4 = (n0.2 n2.2)\n"
    "# alignment class 1\n"
    "offsets: 1,3,5,7\n"
    "result: tree\n"
    "leaves: 4\n"
    "inner-nodes: 3\n"
    "depth: 3\n"
    "arity: 2:3\n"
    "sexpr: (0 ((1 2) 3))\n"
    "# nodes: n<a>.<k> is the inner node whose smallest leaf is a and which has k leaves\n"
    "n1.2 = (1 2)\n"
    "n1.3 = (n1.2 3)\n"
    "n0.4 = (0 n1.3)\n"
    "# end\n";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

void expect_error(const std::string& text, std::size_t line, const std::string& fragment) {
  try {
    parse_golden_text(text, "a.golden");
    ADD_FAILURE() << "parsed without error; expected line " << line << ": " << fragment;
  } catch (const GoldenParseError& error) {
    EXPECT_EQ(error.line(), line) << error.what();
    EXPECT_NE(error.message().find(fragment), std::string::npos) << error.what();
  }
}

TEST(GoldenAlignment, WritesTheDocumentedFormat) { EXPECT_EQ(write_golden_text(dependent_golden()), kDependentText); }

TEST(GoldenAlignment, ReadsBackTheOrderMapOverOffsets) {
  const Golden back = parse_golden_text(kDependentText);
  ASSERT_TRUE(back.alignment);
  EXPECT_TRUE(same_alignment(*back.alignment, *dependent_golden().alignment));
  EXPECT_TRUE(same_result(back, dependent_golden()));
  EXPECT_EQ(back.alignment->classes[1].map.classes[0].tree, parse_sexpr("(0 ((1 2) 3))"));
  EXPECT_EQ(back.alignment->classes[0].placements.offsets, (std::vector<std::size_t>{0, 2, 4, 6}));
}

TEST(GoldenAlignment, IndependentAndNotApplicableAreOneLine) {
  Golden golden = Golden::of_tree(metadata(), parse_sexpr("((0 1) (2 3))"));
  AlignmentResult a;
  a.verdict = AlignmentVerdict::independent;
  a.offsets = 16;
  a.padded = true;
  golden.alignment = a;
  const std::string text = write_golden_text(golden);
  EXPECT_NE(text.find("\nalignment: independent (offsets 0-15 and ld+1 checked)\n"), std::string::npos) << text;
  EXPECT_TRUE(same_result(parse_golden_text(text), golden));
  golden.alignment = AlignmentResult{AlignmentVerdict::not_applicable, 0, false, {}};
  EXPECT_NE(write_golden_text(golden).find("\nalignment: not applicable\n"), std::string::npos);
  EXPECT_EQ(parse_golden_text(write_golden_text(golden)).alignment->verdict, AlignmentVerdict::not_applicable);
}

// Goldens written before the alignment check keep reading, as "not recorded"; a recorded result is
// another result than none (update rewrites such a golden once it has checked).
TEST(GoldenAlignment, AGoldenWithoutTheLineIsNotRecorded) {
  const std::size_t body = kDependentText.find("leaves: 4\n");
  const std::size_t others = kDependentText.find("# alignment class 1\n");
  const Golden old = parse_golden_text(kHeader + kDependentText.substr(body, others - body) + "# end\n");
  EXPECT_FALSE(old.alignment.has_value());
  EXPECT_TRUE(same_orders(old, dependent_golden()));
  EXPECT_FALSE(same_result(old, dependent_golden()));
}

TEST(GoldenAlignment, RefusesMalformedAlignment) {
  expect_error(replaced(kDependentText, "offsets 0-7 checked, 2", "offsets 0-6 checked, 2"), 13, "one of 8, 16, 32, 64");
  expect_error(replaced(kDependentText, "alignment: dependent", "alignment: maybe"), 13, "expected 'independent");
  // Offset 2 in both classes; offset 8 beyond those checked; not ascending; a missing class.
  expect_error(replaced(kDependentText, "offsets: 1,3,5,7", "offsets: 1-3,5,7"), 25, "belongs to two classes");
  expect_error(replaced(kDependentText, "offsets: 1,3,5,7", "offsets: 1,3,5,8"), 25, "malformed placements");
  expect_error(replaced(kDependentText, "offsets: 1,3,5,7", "offsets: 3,1,5,7"), 25, "malformed placements");
  expect_error(replaced(kDependentText, "offsets: 1,3,5,7", "offsets: 1,3,5"), 13, "hold 7 placements");
  expect_error(replaced(kDependentText, "2 classes", "3 classes"), 36, "expected '# alignment class 2'");
  expect_error(replaced(kDependentText, "alignment.offsets: 0,2,4,6", "alignment.offsets: 2,4,6"), 14, "offset 0 first");
  // ld+1 where no padded leading dimension was checked.
  expect_error(replaced(kDependentText, "offsets: 1,3,5,7", "offsets: 1,3,5,7,ld+1"), 25, "ld+1");
  // The same order twice.
  expect_error(replaced(replaced(replaced(kDependentText, "sexpr: (0 ((1 2) 3))", "sexpr: ((0 1) (2 3))"), "depth: 3\n",
                                 "depth: 2\n"),
                        "n1.2 = (1 2)\nn1.3 = (n1.2 3)\nn0.4 = (0 n1.3)", "n0.2 = (0 1)\nn2.2 = (2 3)\nn0.4 = (n0.2 n2.2)"),
               24, "same order");
  // A finding has no alignment.
  Golden finding;
  finding.meta = metadata();
  finding.finding = RecordedFinding{Finding::nondeterministic, "varies", "", ""};
  std::string text = write_golden_text(finding);
  expect_error(replaced(text, "result: finding\n", "result: finding\nalignment: not applicable\n"), 12,
               "does not belong to a golden whose result is a finding");
}

}  // namespace
}  // namespace fprev
