// Goldens that used to flood stderr or reserve memory for what they merely declared (the
// reproducers of the "hostile input" issue) are refused with a short, exact error. Each parse runs
// in a child process under a memory and CPU-time limit (bounded_child.hpp): a 50 MB line must not
// be echoed, and a declared leaf count must not be allocated before the node lines confirm it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "bounded_child.hpp"
#include "fprev/golden.hpp"
#include "fprev/sexpr.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

using test_support::ChildLimits;
using test_support::ChildOutcome;
using test_support::LargeTemporaryFile;
using test_support::run_bounded;

Golden sample_golden(Tree tree) {
  Golden golden;
  golden.meta.suite = "blas-cpu";
  golden.meta.case_id = "dot-float32-n4";
  golden.meta.backend = "openblas";
  golden.meta.platform_key = "haswell-t1";
  golden.meta.library = "OpenBLAS";
  golden.meta.tool_version = "0.1.0";
  golden.meta.created = "2024-05-01";
  golden.map = OrderMap::uniform({}, std::move(tree));
  return golden;
}

// The error of parsing `text`, or "parsed".
std::string parse_error(std::string_view text) {
  try {
    parse_golden_text(text, "g.golden");
    return "parsed";
  } catch (const GoldenParseError& error) {
    return error.what();
  }
}

ChildOutcome parse_bounded(const std::string& text, ChildLimits limits = {}) {
  return run_bounded([&] { return parse_error(text); }, limits);
}

// The line number of the line starting with `prefix` in `text`.
std::size_t line_of(const std::string& text, const std::string& prefix) {
  const std::size_t at = text.find("\n" + prefix);
  return static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')) + 2;
}

const std::string kFourLeaves = write_golden_text(sample_golden(parse_sexpr("((0 1) (2 3))")));

TEST(HostileGoldens, AFiftyMegabyteLineIsQuotedAsAnExcerpt) {
  // 50 MB without a newline: refused by its length (8 + 52,428,800 + 1 bytes), quoting 48 bytes.
  std::string text = kFourLeaves;
  const std::size_t nodes = text.find("n0.2 = (0 1)\n");
  text.insert(nodes, "n0.2 = (" + std::string(50u << 20, '7') + ")\n");
  const std::size_t line = line_of(kFourLeaves, "n0.2 = ");
  const ChildOutcome outcome = parse_bounded(text);
  ASSERT_TRUE(outcome.within_limits()) << outcome.describe();
  EXPECT_EQ(outcome.output, "g.golden:" + std::to_string(line) +
                                ": the line is longer than 1,048,576 bytes, the most a golden line "
                                "may have: 'n0.2 = (" +
                                std::string(40, '7') + "...' (52,428,809 bytes)");
}

TEST(HostileGoldens, ALongLineWithinTheLimitIsQuotedAsAnExcerpt) {
  std::string text = kFourLeaves;
  const std::size_t nodes = text.find("n0.2 = (0 1)\n");
  text.insert(nodes, "n0.2 = (0 x" + std::string(500000, 'y') + ")\n");
  const std::string error = parse_error(text);
  EXPECT_EQ(error, "g.golden:" + std::to_string(line_of(kFourLeaves, "n0.2 = ")) +
                       ": malformed child 'x" + std::string(47, 'y') + "...' (500,001 bytes)");
}

TEST(HostileGoldens, DeclaredLeafCountsAreCheckedBeforeAnythingIsAllocated) {
  const std::size_t leaves_line = line_of(kFourLeaves, "leaves: ");
  const auto with_leaves = [&](const std::string& value) {
    std::string text = kFourLeaves;
    const std::size_t at = text.find("\nleaves: 4\n") + 1;
    text.replace(at, 9, "leaves: " + value);
    return text;
  };
  // 16 MB of memory is far less than 8 bytes per declared leaf.
  const ChildLimits small{.max_memory_mb = 16, .max_cpu_seconds = 10};
  const std::pair<std::string, std::string> cases[] = {
      {"4294967295",
       "leaves is 4294967295, more than the 2,147,483,647 leaves a tree can have (its node ids "
       "are 32-bit)"},
      {"2147483647", "leaves is 2147483647 but the node lines name at most 6 children (file "
                     "truncated?)"},
      {std::string(1000, '9'), "leaves is " + std::string(32, '9') +
                                   "... (1,000 digits), more than the 2,147,483,647 leaves a "
                                   "tree can have (its node ids are 32-bit)"},
      {"0", "leaves must be a positive whole number, got '0'"},
  };
  for (const auto& [value, message] : cases) {
    const ChildOutcome outcome = parse_bounded(with_leaves(value), small);
    ASSERT_TRUE(outcome.within_limits()) << value.substr(0, 20) << ": " << outcome.describe();
    EXPECT_EQ(outcome.output, "g.golden:" + std::to_string(leaves_line) + ": " + message);
  }
}

// Issue 34: a few lines of structural description can claim a chain of 16,777,216 leaves (the
// most a golden may hold), which took minutes and gigabytes to expand for a case of 7 summands.
// Read for a case, a golden's trees must have that case's size, checked before anything is built.
TEST(HostileGoldens, AGoldenIsBoundedByTheSizeOfItsCase) {
  std::string huge = kFourLeaves;
  const std::size_t from = huge.find("\nleaves: 4\n") + 1;
  huge.replace(from, huge.find("# end") - from,
               "leaves: 16777216\ninner-nodes: 16777215\ndepth: 16777215\narity: 2:16777215\n"
               "# structure: T<k> = <expression>; each template uses earlier ones, the last is the root\n"
               "T1 = chain(0..16777215)\n");
  const std::size_t leaves_line = line_of(huge, "leaves: ");
  const ChildLimits small{.max_memory_mb = 16, .max_cpu_seconds = 10};
  const ChildOutcome outcome = run_bounded(
      [&] {
        try {
          parse_golden_text(huge, "g.golden", 4);
          return std::string("parsed");
        } catch (const GoldenParseError& error) {
          return std::string(error.what());
        }
      },
      small);
  ASSERT_TRUE(outcome.within_limits()) << outcome.describe();
  EXPECT_EQ(outcome.output, "g.golden:" + std::to_string(leaves_line) +
                                ": leaves is 16,777,216, but the case has 4 summands: this tree belongs to a "
                                "case of another size");
  // Node lines are held to the same size; the right size reads as before.
  EXPECT_THROW(parse_golden_text(kFourLeaves, "g.golden", 5), GoldenParseError);
  EXPECT_EQ(parse_golden_text(kFourLeaves, "g.golden", 4).tree().leaf_count(), 4u);
}

TEST(HostileGoldens, ADeepTreeParsesWithinTheLimits) {
  // A sequential sum of 100,000 summands: 99,999 nested node lines.
  const std::string text = write_golden_text(sample_golden(left_deep_tree(100000)));
  const ChildOutcome outcome = run_bounded([&] {
    const Golden golden = parse_golden_text(text, "g.golden");
    return std::to_string(golden.tree().depth());
  });
  ASSERT_TRUE(outcome.within_limits()) << outcome.describe();
  EXPECT_EQ(outcome.output, "99999");
}

TEST(HostileGoldens, InvalidUtf8IsRefusedOnItsLine) {
  std::string text = kFourLeaves;
  text.replace(text.find("OpenBLAS"), 8, "Open\xff\xfe");
  EXPECT_EQ(parse_error(text), "g.golden:" + std::to_string(line_of(kFourLeaves, "library: ")) +
                                   ": byte 14 of the line is not valid UTF-8: 'library: "
                                   "Open\\xff\\xfe'");
}

TEST(HostileGoldens, ValuesThatAreNotUtf8AreWrittenEscaped) {
  // A library string from a backend may hold any bytes; the file stays UTF-8 and reads back.
  Golden golden = sample_golden(parse_sexpr("(0 1)"));
  golden.meta.library_configuration = "caf\xc3\xa9 \xff\x80 \x7f";
  const std::string text = write_golden_text(golden);
  EXPECT_NE(text.find("\nlibrary-configuration: caf\xc3\xa9 \\xff\\x80 \\x7f\n"), std::string::npos)
      << text;
  EXPECT_EQ(parse_golden_text(text).meta, golden.meta);
}

TEST(HostileGoldens, AFileLargerThanTheLimitIsNotReadIntoMemory) {
  const LargeTemporaryFile file("fprev-hostile.golden", kFourLeaves, std::uintmax_t{1} << 30);
  const ChildOutcome outcome = run_bounded(
      [&] {
        try {
          read_golden(file.path());
          return std::string("parsed");
        } catch (const GoldenParseError& error) {
          return std::string(error.what());
        }
      },
      {.max_memory_mb = 16, .max_cpu_seconds = 10});
  ASSERT_TRUE(outcome.within_limits()) << outcome.describe();
  EXPECT_EQ(outcome.output, file.path().string() + ": the file is larger than 33,554,432 bytes, "
                                                   "the most a golden may have");
}

}  // namespace
}  // namespace fprev
