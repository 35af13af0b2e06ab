// The golden's invariance lines (fprev/invariance.hpp, docs/golden-format.md): written in parameter
// order after the alignment line, read back to the same verdicts, refused when malformed; a golden
// without them reads as before (nothing recorded), and recorded verdicts are part of the result.
#include <gtest/gtest.h>

#include <string>

#include "fprev/golden.hpp"
#include "fprev/sexpr.hpp"

namespace fprev {
namespace {

Golden golden_with_verdicts() {
  GoldenMetadata meta;
  meta.suite = "inv";
  meta.case_id = "decode";
  meta.backend = "ref";
  meta.platform_key = "any";
  meta.library = "reference";
  meta.tool_version = "0.1.0";
  meta.created = "2026-11-27";
  Golden golden = Golden::of_tree(meta, parse_sexpr("((0 1) 2)"), std::nullopt, {4, 1});
  InvarianceResult batch;
  batch.parameter = "m";
  batch.values = {"4", "1"};
  batch.counterexample = InvarianceCounterexample{"1", "4", 0, 0, false, "{0..2}", "((0 1) 2)", "(0 (1 2))"};
  InvarianceResult threads;
  threads.parameter = "threads";
  threads.values = {"1", "2"};
  threads.invariant = true;
  golden.invariance = {batch, threads};
  return golden;
}

const std::string kLines =
    "grid: 4 x 1\n"
    "invariance.m: not batch-invariant (m = 4, 1): at m=1 element (0,0) adds its summands in another order than at m=4\n"
    "invariance.threads: thread-invariant (threads = 1, 2)\n"
    "leaves: 3\n";

TEST(GoldenInvariance, WritesOneLinePerParameterInOrder) {
  const std::string text = write_golden_text(golden_with_verdicts());
  EXPECT_NE(text.find(kLines), std::string::npos) << text;
}

TEST(GoldenInvariance, ReadsBackTheVerdicts) {
  const Golden back = parse_golden_text(write_golden_text(golden_with_verdicts()));
  ASSERT_EQ(back.invariance.size(), 2u);
  EXPECT_EQ(back.invariance, golden_with_verdicts().invariance);  // the position, not the subtrees
  EXPECT_TRUE(back.invariance[0].counterexample->leaves.empty());
  EXPECT_TRUE(same_result(back, golden_with_verdicts()));
}

TEST(GoldenInvariance, VerdictsArePartOfTheResult) {
  Golden gained = golden_with_verdicts();
  gained.invariance[0].invariant = true;
  gained.invariance[0].counterexample.reset();
  EXPECT_TRUE(same_orders(gained, golden_with_verdicts()));
  EXPECT_FALSE(same_result(gained, golden_with_verdicts()));
  bool lost = false;
  const auto changes = compare_invariance(gained.invariance, golden_with_verdicts().invariance, &lost);
  EXPECT_TRUE(lost);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0], "no longer batch-invariant: at m=1 element (0,0) adds its summands in another order than at m=4");
  const auto back = compare_invariance(golden_with_verdicts().invariance, gained.invariance, &lost);
  EXPECT_FALSE(lost);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].rfind("now batch-invariant (m = 4, 1), a change to review", 0), 0u) << back[0];
}

TEST(GoldenInvariance, AGoldenWithoutTheLinesRecordsNone) {
  Golden old = golden_with_verdicts();
  old.invariance.clear();
  const Golden back = parse_golden_text(write_golden_text(old));
  EXPECT_TRUE(back.invariance.empty());
  EXPECT_TRUE(same_orders(back, golden_with_verdicts()));
}

TEST(GoldenInvariance, RefusesMalformedLines) {
  const std::string text = write_golden_text(golden_with_verdicts());
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  for (const std::string& bad :
       {with("thread-invariant (threads = 1, 2)", "thread-invariant (threads = 1)"),
        with("thread-invariant (threads = 1, 2)", "batch-invariant (threads = 1, 2)"),
        with("element (0,0)", "element (0, 0)"), with("than at m=4", "than at m=1"),
        with("invariance.threads:", "invariance.th reads:")}) {
    EXPECT_THROW(parse_golden_text(bad, "a.golden"), GoldenParseError) << bad;
  }
  try {
    parse_golden_text(with("(threads = 1, 2)", "(threads = 1,2)"), "a.golden");
    ADD_FAILURE();
  } catch (const GoldenParseError& e) {
    EXPECT_EQ(e.line(), 14u) << e.what();
    EXPECT_NE(e.message().find("expected 'thread-invariant (threads = <v1>, <v2>, ...)'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fprev
