// S-expressions from people and files: deep nesting, enormous numbers and texts beyond the limit
// are handled within bounded memory and CPU time (each case in a child process under limits,
// bounded_child.hpp), and errors quote bounded excerpts.
#include <gtest/gtest.h>

#include <string>

#include "bounded_child.hpp"
#include "fprev/sexpr.hpp"

namespace fprev {
namespace {

using test_support::ChildOutcome;
using test_support::run_bounded;

std::string parse_outcome(std::string_view text) {
  try {
    return "parsed " + std::to_string(parse_sexpr(text).leaf_count()) + " leaves";
  } catch (const SexprError& error) {
    return error.what();
  }
}

ChildOutcome parse_bounded(const std::string& text) {
  return run_bounded([&] { return parse_outcome(text); });
}

TEST(HostileSexpr, AMillionLevelsDeepParsesWithoutRecursion) {
  // (0 (1 (2 ... (999998 999999)))): a reverse sequential sum.
  std::string text;
  for (int i = 0; i < 999999; ++i) text += "(" + std::to_string(i) + " ";
  text += "999999" + std::string(999999, ')');
  const ChildOutcome outcome = parse_bounded(text);
  ASSERT_TRUE(outcome.within_limits()) << outcome.describe();
  EXPECT_EQ(outcome.output, "parsed 1000000 leaves");
}

TEST(HostileSexpr, AMillionUnclosedParenthesesAreOneError) {
  const ChildOutcome outcome = parse_bounded(std::string(1000000, '('));
  ASSERT_TRUE(outcome.within_limits()) << outcome.describe();
  EXPECT_EQ(outcome.output,
            "S-expression, position 1000000: expected a leaf index or '(' but found the end of "
            "the text");
}

TEST(HostileSexpr, AMillionDigitLeafIsQuotedShort) {
  const ChildOutcome outcome = parse_bounded("(0 " + std::string(1000000, '7') + ")");
  ASSERT_TRUE(outcome.within_limits()) << outcome.describe();
  EXPECT_EQ(outcome.output, "S-expression, position 3: leaf index " + std::string(32, '7') +
                                "... (1,000,000 digits) is out of range: the text has 2 leaves, "
                                "so the indices must be 0..1");
}

TEST(HostileSexpr, TextBeyondTheLimitIsRefusedBeforeParsing) {
  std::string text = "(0 1)";
  text.resize(kMaxSexprBytes + 1, ' ');
  const ChildOutcome outcome = run_bounded([&] { return parse_outcome(text); },
                                           {.max_memory_mb = 16, .max_cpu_seconds = 10});
  ASSERT_TRUE(outcome.within_limits()) << outcome.describe();
  EXPECT_EQ(outcome.output, "S-expression, position 16777216: the text has 16,777,217 bytes, more "
                            "than the 16,777,216 an S-expression may have");
}

TEST(HostileSexpr, ErrorPositionsUseTheSharedFormat) {
  try {
    parse_sexpr("(0 x)");
    FAIL() << "parsed";
  } catch (const SexprError& error) {
    EXPECT_EQ(error.where(), SourcePosition::at_offset("S-expression", 3));
    EXPECT_EQ(std::string(error.what()),
              format_position(error.where()) + ": expected a leaf index or '(' but found 'x'");
  }
}

}  // namespace
}  // namespace fprev
