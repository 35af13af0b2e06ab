// Version 2 golden texts beyond a single tree: order maps (classes, regions, per-class
// fingerprints), recorded findings, structural descriptions, and the strict refusals of each.
#include <gtest/gtest.h>

#include <string>

#include "fprev/golden.hpp"
#include "fprev/sexpr.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

GoldenMetadata metadata() {
  GoldenMetadata meta;
  meta.suite = "blas-cpu";
  meta.case_id = "gemv-float32-m4n3";
  meta.backend = "openblas";
  meta.platform_key = "haswell-t1";
  meta.library = "OpenBLAS";
  meta.tool_version = "0.1.0";
  meta.created = "2026-11-24";
  return meta;
}

Fingerprint fingerprint(double value) {
  Fingerprint f;
  f.outputs["normal"] = {value, -0.0};
  f.facts["rounding"] = "nearest-even";
  f.model = "reproduced";
  return f;
}

// A 4 x 2 grid: class 0 holds rows 0-1 and (2, 0), class 1 the rest: (2, 1) and row 3. Written in
// canonical form: per class, one region per distinct set of rows (column 0: rows 0-2, column 1:
// rows 0-1), regions and classes ordered by their first element.
Golden map_golden() {
  Golden golden;
  golden.meta = metadata();
  golden.map.grid = {4, 2};
  OrderClass first, second;
  first.tree = parse_sexpr("((0 1) 2)");
  first.regions = {{{{0, 1}}, {{0, 1}}}, {{{2, 2}}, {{0, 0}}}};
  second.tree = parse_sexpr("(0 (1 2))");
  second.regions = {{{{2, 3}}, {{1, 1}}}, {{{3, 3}}, {{0, 0}}}};
  golden.map.classes = {first, second};
  canonicalize(golden.map);
  golden.fingerprints = {fingerprint(1.5), fingerprint(2.5)};
  return golden;
}

// The map golden as written, by hand (docs/golden-format.md).
const std::string kMapText =
    "# fprev-golden tree v2\n"
    "suite: blas-cpu\n"
    "case: gemv-float32-m4n3\n"
    "backend: openblas\n"
    "platform: haswell-t1\n"
    "library: OpenBLAS\n"
    "library-version:\n"
    "library-configuration:\n"
    "tool-version: 0.1.0\n"
    "created: 2026-11-24\n"
    "result: map\n"
    "grid: 4 x 2\n"
    "classes: 2\n"
    "# class 0\n"
    "region: rows 0-2 x columns 0\n"
    "region: rows 0-1 x columns 1\n"
    "fingerprint.digest: " + fingerprint(1.5).digest() + "\n"
    "fingerprint.fact.rounding: nearest-even\n"
    "fingerprint.model: reproduced\n"
    "fingerprint.outputs.normal: 0x1.8p+0 -0x0p+0\n"
    "leaves: 3\n"
    "inner-nodes: 2\n"
    "depth: 2\n"
    "arity: 2:2\n"
    "sexpr: ((0 1) 2)\n"
    "# nodes: n<a>.<k> is the inner node whose smallest leaf is a and which has k leaves\n"
    "n0.2 = (0 1)\n"
    "n0.3 = (n0.2 2)\n"
    "# class 1\n"
    "region: rows 2-3 x columns 1\n"
    "region: rows 3 x columns 0\n"
    "fingerprint.digest: " + fingerprint(2.5).digest() + "\n"
    "fingerprint.fact.rounding: nearest-even\n"
    "fingerprint.model: reproduced\n"
    "fingerprint.outputs.normal: 0x1.4p+1 -0x0p+0\n"
    "leaves: 3\n"
    "inner-nodes: 2\n"
    "depth: 2\n"
    "arity: 2:2\n"
    "sexpr: (0 (1 2))\n"
    "# nodes: n<a>.<k> is the inner node whose smallest leaf is a and which has k leaves\n"
    "n1.2 = (1 2)\n"
    "n0.3 = (0 n1.2)\n"
    "# end\n";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// Parses `text` expecting an error on `line` whose message contains `fragment`.
void expect_error(const std::string& text, std::size_t line, const std::string& fragment) {
  try {
    parse_golden_text(text, "m.golden");
    ADD_FAILURE() << "parsed without error; expected line " << line << ": " << fragment;
  } catch (const GoldenParseError& error) {
    EXPECT_EQ(error.line(), line) << error.what();
    EXPECT_NE(error.message().find(fragment), std::string::npos) << error.what();
  }
}

TEST(GoldenMaps, WritesTheDocumentedFormat) { EXPECT_EQ(write_golden_text(map_golden()), kMapText); }

TEST(GoldenMaps, ReadsBackTheSameMapAndFingerprints) {
  const Golden back = parse_golden_text(kMapText);
  const Golden golden = map_golden();
  EXPECT_FALSE(back.is_single_tree());
  EXPECT_FALSE(back.is_finding());
  EXPECT_EQ(back.map.grid, (OutputGrid{4, 2}));
  ASSERT_EQ(back.map.classes.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(back.map.classes[k].regions, golden.map.classes[k].regions);
    EXPECT_EQ(back.map.classes[k].tree, golden.map.classes[k].tree);
  }
  EXPECT_EQ(back.fingerprints, golden.fingerprints);
  EXPECT_TRUE(same_result(back, golden));
  EXPECT_EQ(back.map.class_at(2, 1).tree, parse_sexpr("(0 (1 2))"));
  EXPECT_THROW((void)back.tree(), std::logic_error);
}

TEST(GoldenMaps, RefusesWhatIsNotAPartitionOfTheGrid) {
  // (3, 0) in no class.
  expect_error(replaced(kMapText, "region: rows 3 x columns 0\n", ""), 13, "belongs to no class");
  // (2, 1) in both classes.
  expect_error(replaced(kMapText, "region: rows 0-1 x columns 1", "region: rows 0-2 x columns 1"), 13,
               "belongs to classes 0 and 1");
  expect_error(replaced(kMapText, "region: rows 2-3 x columns 1", "region: rows 2-4 x columns 1"), 30,
               "rows range '2-4' is outside the grid (4 rows)");
  expect_error(replaced(kMapText, "region: rows 0-2 x columns 0", "region: rows 0-1,1 x columns 0"), 15,
               "overlaps or touches the one before it");
  expect_error(replaced(kMapText, "region: rows 0-2 x columns 0", "region: rows 2-0 x columns 0"), 15,
               "malformed rows range '2-0'");
  expect_error(replaced(kMapText, "region: rows 0-2 x columns 0", "region: 0-2 x 0"), 15,
               "is not 'rows <ranges> x columns <ranges>'");
  // The same elements split into other regions: a valid partition, but not the canonical form.
  std::string split = replaced(kMapText, "region: rows 0-2 x columns 0\nregion: rows 0-1 x columns 1\n",
                               "region: rows 0-1 x columns 0-1\nregion: rows 2 x columns 0\n");
  expect_error(split, 13, "not in canonical form");
  // Classes swapped (class 0 must hold element (0, 0)).
  std::string swapped = replaced(kMapText, "region: rows 0-2 x columns 0\nregion: rows 0-1 x columns 1\n", "@A");
  swapped = replaced(swapped, "region: rows 2-3 x columns 1\nregion: rows 3 x columns 0\n",
                     "region: rows 0-2 x columns 0\nregion: rows 0-1 x columns 1\n");
  swapped = replaced(swapped, "@A", "region: rows 2-3 x columns 1\nregion: rows 3 x columns 0\n");
  expect_error(swapped, 13, "not in canonical form");
}

TEST(GoldenMaps, RefusesMalformedClassLists) {
  expect_error(replaced(kMapText, "classes: 2", "classes: 1"), 13, "a map has 2 to 4096 classes");
  expect_error(replaced(kMapText, "classes: 2", "classes: 3"), 44, "expected '# class 2'");
  expect_error(replaced(kMapText, "# class 1", "# class 7"), 29, "expected '# class 1'");
  expect_error(replaced(kMapText, "sexpr: (0 (1 2))\n# nodes: n<a>.<k> is the inner node whose smallest leaf is a and which has k leaves\nn1.2 = (1 2)\nn0.3 = (0 n1.2)",
                        "sexpr: ((0 1) 2)\n# nodes: n<a>.<k> is the inner node whose smallest leaf is a and which has k leaves\nn0.2 = (0 1)\nn0.3 = (n0.2 2)"),
               29, "classes 0 and 1 hold the same tree");
  expect_error(replaced(kMapText, "region: rows 2-3 x columns 1\n", "region: rows 2-3 x columns 1\nshape: odd\n"), 31,
               "unknown key 'shape' in a class");
  // A fingerprint in one class only.
  const std::string digest = "fingerprint.digest: " + fingerprint(2.5).digest() + "\n";
  std::string half = replaced(kMapText, digest, "");
  half = replaced(half, "fingerprint.fact.rounding: nearest-even\nfingerprint.model: reproduced\nfingerprint.outputs.normal: 0x1.4p+1 -0x0p+0\n", "");
  expect_error(half, 37, "either every class of a map has fingerprint lines or none has");
  expect_error(replaced(kMapText, "classes: 2\n", "classes: 2\nleaves: 3\n"), 14,
               "key 'leaves' does not belong to a golden whose result is map");
}

Golden finding_golden() {
  Golden golden;
  golden.meta = metadata();
  golden.finding = RecordedFinding{Finding::batch_inconsistent, "element 3 changed\nbetween calls", "", "an edge kernel"};
  return golden;
}

TEST(GoldenFindings, RoundTripWithEscapedText) {
  const std::string text = write_golden_text(finding_golden());
  EXPECT_NE(text.find("\nresult: finding\nfinding: batch_inconsistent\nfinding.message: element 3 changed\\nbetween "
                      "calls\nfinding.likely-cause: an edge kernel\n# end\n"),
            std::string::npos)
      << text;
  const Golden back = parse_golden_text(text);
  ASSERT_TRUE(back.finding);
  EXPECT_EQ(*back.finding, *finding_golden().finding);
  EXPECT_TRUE(back.map.classes.empty());
  EXPECT_TRUE(same_result(back, finding_golden()));
  EXPECT_EQ(write_golden_text(back), text);
}

TEST(GoldenFindings, OnlyFindingsAboutTheTargetAreRecorded) {
  Golden golden = finding_golden();
  golden.finding->finding = Finding::target_error;
  EXPECT_THROW(write_golden_text(golden), GoldenIoError);
  const std::string text = write_golden_text(finding_golden());
  expect_error(replaced(text, "finding: batch_inconsistent", "finding: target_error"), 12, "is not a recorded finding");
  expect_error(replaced(text, "finding: batch_inconsistent", "finding: flaky"), 12, "is not a recorded finding");
  expect_error(replaced(text, "finding.message: ", "finding.mesage: "), 13, "unknown key 'finding.mesage'");
  expect_error(replaced(text, "# end\n", "leaves: 3\n# end\n"), 15, "does not belong to a golden whose result is finding");
}

TEST(GoldenFindings, TheSameFindingWithAnotherMessageIsTheSameResult) {
  Golden other = finding_golden();
  other.finding->message = "element 5 changed";
  EXPECT_TRUE(same_result(other, finding_golden()));
  other.finding->finding = Finding::nondeterministic;
  EXPECT_FALSE(same_result(other, finding_golden()));
  EXPECT_FALSE(same_result(other, map_golden()));
}

TEST(GoldenResults, ASingleTreeComparesByItsTreeWhateverTheGrid) {
  const Golden v1_style = Golden::of_tree(metadata(), parse_sexpr("((0 1) 2)"));
  const Golden grid = Golden::of_tree(metadata(), parse_sexpr("((0 1) 2)"), std::nullopt, {4, 2});
  EXPECT_TRUE(same_orders(v1_style, grid));   // check passes
  EXPECT_FALSE(same_result(v1_style, grid));  // update records the grid
  // Spread over the map's grid, the single tree differs from the map in class 1's elements.
  EXPECT_FALSE(same_orders(v1_style, map_golden()));
}

// Large regular trees are written as a structural description, checked when read.
TEST(GoldenStructure, ABadTemplateLineIsRefusedWithItsPositionAndABigClaimBeforeAllocating) {
  Golden golden = Golden::of_tree(metadata(), left_deep_tree(1000));
  const std::string text = write_golden_text(golden);
  const std::size_t marker = static_cast<std::size_t>(
      std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(text.find("# structure: ")), '\n')) + 1;
  ASSERT_NE(text.find("T1 = chain(0..999)\n"), std::string::npos) << text;
  expect_error(replaced(text, "T1 = chain(0..999)", "T1 = chain(0..998)"), marker + 1, "");
  expect_error(replaced(text, "T1 = chain(0..999)", "T1 = chain(0..999:x)"), marker + 1, "column ");
  // Not the canonical description of its tree (the same tree, spelled as two chains).
  expect_error(replaced(text, "T1 = chain(0..999)", "T1 = chain(0..499)\nT2 = chain(T1 500..999)"), marker + 2,
               "not the canonical description");
  // 2^24 + 1 leaves claimed by a one-line description: refused before anything is built.
  std::string huge = replaced(text, "leaves: 1000", "leaves: 16777217");
  huge = replaced(huge, "T1 = chain(0..999)", "T1 = chain(0..16777216)");
  expect_error(huge, marker - 4, "a golden holds at most 16,777,216 leaves in all its trees together");
}

}  // namespace
}  // namespace fprev
