// Suites that used to exhaust memory or time (the reproducers of the "hostile input" issue, with
// the shipped backends registered) are refused with one clear error at a position. Each load runs
// in a child process under a memory and CPU-time limit (bounded_child.hpp), so "finishes quickly
// and small" is asserted without a wall clock, and a regression fails the test instead of the
// machine. The expected messages are written from the limits' definitions (suite.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "bounded_child.hpp"
#include "fprev/backend.hpp"
#include "fprev/suite.hpp"

namespace fprev {
namespace {

using test_support::ChildOutcome;
using test_support::LargeTemporaryFile;
using test_support::run_bounded;

// What loading `text` says: "loaded N cases", or the SuiteError's text.
std::string load(const std::string& text) {
  try {
    return "loaded " + std::to_string(parse_suite(text, "t.yaml", builtin_backends()).cases.size()) +
           " cases";
  } catch (const SuiteError& error) {
    return error.what();
  }
}

ChildOutcome load_bounded(const std::string& text) {
  return run_bounded([&] { return load(text); });
}

std::string numbers(int count) {
  std::string out = "[";
  for (int i = 1; i <= count; ++i) out += (i > 1 ? ", " : "") + std::to_string(i);
  return out + "]";
}

// One entry of 40 x 40 x 40 = 64,000 valid tcsim cases.
const std::string kBigEntry = "{op: gemm, dtype: float16, m: " + numbers(40) + ", n: " +
                              numbers(40) + ", k: " + numbers(40) + "}";
const std::string kOneInstance = "suite: amp\nbackends:\n  - {name: r, use: tcsim, arch: hopper}\n";

TEST(HostileSuites, StrayCommaIsASyntaxErrorNotARunaway) {
  // yaml-cpp 0.7.0's LoadAll() allocated about 1 GB/s forever on these.
  const std::string unexpected_comma =
      ": error: YAML syntax error: unexpected ',' (',' separates items only inside [ ] or { })";
  const std::pair<std::string, std::string> cases[] = {
      {",", "t.yaml:1:1" + unexpected_comma},
      {"# c\n,", "t.yaml:2:1" + unexpected_comma},
      {", x: 1", "t.yaml:1:1" + unexpected_comma},
      {"a\n---\n,",
       "t.yaml:1:1: error: a suite must be a map with the keys suite, description, environment_overrides, backends, "
       "cases, got a single value\n"
       "t.yaml:2:1: error: a suite file holds one YAML document; a second one starts here"},
  };
  for (const auto& [text, expected] : cases) {
    const ChildOutcome outcome = load_bounded(text);
    ASSERT_TRUE(outcome.within_limits()) << text << ": " << outcome.describe();
    EXPECT_EQ(outcome.output, expected) << text;
  }
}

TEST(HostileSuites, ThousandAliasesOfALargeEntryAreCountedNotExpanded) {
  std::string text = kOneInstance + "cases:\n  - &e " + kBigEntry + "\n";
  for (int i = 0; i < 999; ++i) text += "  - *e\n";
  const ChildOutcome outcome = load_bounded(text);
  ASSERT_TRUE(outcome.within_limits()) << outcome.describe();
  EXPECT_EQ(outcome.output,
            "t.yaml:4:1: error: the case entries expand to 64,000,000 cases (1,000 entries on 1 "
            "backend instance), more than the 10,000 a suite file may have; split the suite into "
            "several files or shorten the lists");
}

TEST(HostileSuites, ALargeEntryOnManyInstancesIsCountedNotExpanded) {
  for (const int instances : {100, 1000}) {
    std::string text = "suite: inst\nbackends:\n";
    for (int i = 0; i < instances; ++i)
      text += "  - {name: r" + std::to_string(i) + ", use: tcsim, arch: hopper}\n";
    text += "cases:\n  - " + kBigEntry + "\n";
    const ChildOutcome outcome = load_bounded(text);
    ASSERT_TRUE(outcome.within_limits()) << instances << ": " << outcome.describe();
    const std::string cases = instances == 100 ? "6,400,000" : "64,000,000";
    const std::string listed = instances == 100 ? "100" : "1,000";
    EXPECT_EQ(outcome.output, "t.yaml:" + std::to_string(instances + 3) +
                                  ":1: error: the case entries expand to " + cases +
                                  " cases (1 entry on " + listed +
                                  " backend instances), more than the 10,000 a suite file may "
                                  "have; split the suite into several files or shorten the lists");
  }
}

TEST(HostileSuites, TheCaseLimitCountsTheWholeFile) {
  // Two entries of 6,000 cases each: each is fine alone, the file is not.
  const std::string entry = "  - {op: gemm, dtype: float16, m: " + numbers(60) + ", n: " +
                            numbers(100) + ", k: 16}\n";
  const std::string text = kOneInstance + "cases:\n" + entry + entry;
  EXPECT_EQ(load(text),
            "t.yaml:4:1: error: the case entries expand to 12,000 cases (2 entries on 1 backend "
            "instance), more than the 10,000 a suite file may have; split the suite into several "
            "files or shorten the lists");
  // Exactly at the limit it loads.
  const std::string at_limit = kOneInstance + "cases:\n  - {op: gemm, dtype: float16, m: " +
                               numbers(100) + ", n: " + numbers(100) + ", k: 16}\n";
  EXPECT_EQ(load(at_limit), "loaded 10000 cases");
}

TEST(HostileSuites, AliasesOfAliasesAreBoundedBeforeAnythingIsBuilt) {
  // Ten values, each level ten aliases of the one below: 10^9 values once expanded.
  std::string text = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level <= 8; ++level) {
    const std::string below = "*l" + std::to_string(level - 1);
    text += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) text += (i > 0 ? ", " : "") + below;
    text += "]\n";
  }
  const ChildOutcome outcome = load_bounded(text);
  ASSERT_TRUE(outcome.within_limits()) << outcome.describe();
  EXPECT_EQ(outcome.output.rfind("t.yaml:", 0), 0u) << outcome.output;
  EXPECT_NE(outcome.output.find(": error: the YAML holds more than 200,000 values (counting each "
                                "alias *name as a copy of what it refers to)"),
            std::string::npos)
      << outcome.output;
}

TEST(HostileSuites, AnAliasInsideItsOwnNodeIsACycle) {
  EXPECT_EQ(load("suite: &s [a, *s]\n"),
            "t.yaml:1:15: error: this alias refers to a node that contains it (a cycle)");
}

TEST(HostileSuites, DeepNestingIsRefusedAtTheLevelThatCrossesTheLimit) {
  // 400,000 levels (within the size limit): the guard stops at the tenth '[', the eleventh level
  // counting the top-level map, before yaml-cpp's own recursion goes deep.
  const std::string text = "cases: " + std::string(400000, '[') + std::string(400000, ']');
  const ChildOutcome outcome = load_bounded(text);
  ASSERT_TRUE(outcome.within_limits()) << outcome.describe();
  EXPECT_EQ(outcome.output,
            "t.yaml:1:17: error: lists and maps nest deeper than 10 levels here; a suite needs 4");
}

TEST(HostileSuites, TextThatIsTooLongOrNotUtf8IsRefusedWhereItGoesWrong) {
  // A 15-byte first line, then lines of 1,026 bytes: the 1,048,577th byte (offset 1,048,576) is
  // byte 1,048,561 - 1,021 * 1,026 = 1,015 (0-based) of the 1,022nd of those lines.
  std::string big = "description: >\n";
  while (big.size() <= kMaxSuiteBytes) big += "  " + std::string(1023, 'x') + "\n";
  ASSERT_EQ(big.size(), 15u + 1022u * 1026u);
  EXPECT_EQ(load(big), "t.yaml:1023:1016: error: the file is longer than 1,048,576 bytes, the most "
                       "a suite file may have (it has 1,048,587)");
  EXPECT_EQ(load("suite: caf\xe9\n"),
            "t.yaml:1:11: error: byte '\\xe9' is not valid UTF-8; a suite file is UTF-8 text");
  EXPECT_EQ(load("suite: s\n\x01"), "t.yaml:2:1: error: control character '\\x01' in the text; "
                                    "YAML allows only tab, line feed and carriage return");
  EXPECT_EQ(load(std::string("s\0u", 3)),
            "t.yaml:1:2: error: control character '\\x00' in the text; YAML allows only tab, "
            "line feed and carriage return (a file holding NUL bytes may be UTF-16: save it as "
            "UTF-8)");
}

TEST(HostileSuites, ALargeFileIsNotReadIntoMemory) {
  // "suite: s\n", then NUL bytes up to 1 GiB: the limit is crossed on line 2, after 1,048,567 bytes.
  const LargeTemporaryFile file("fprev-hostile.yaml", "suite: s\n", std::uintmax_t{1} << 30);
  const ChildOutcome outcome = run_bounded(
      [&] {
        try {
          load_suite(file.path(), builtin_backends());
          return std::string("loaded");
        } catch (const SuiteError& error) {
          return std::string(error.what());
        }
      },
      {.max_memory_mb = 16, .max_cpu_seconds = 10});
  ASSERT_TRUE(outcome.within_limits()) << outcome.describe();
  EXPECT_EQ(outcome.output, file.path().string() + ":2:1048568: error: the file is longer than "
                                                   "1,048,576 bytes, the most a suite file may "
                                                   "have (it has 1,073,741,824)");
}

TEST(HostileSuites, ErrorOutputIsBounded) {
  // 2,000 entries with an unknown parameter each: 50 errors, then one line counting the rest.
  std::string text = kOneInstance + "cases:\n";
  for (int i = 0; i < 2000; ++i) text += "  - {op: gemm, colour: red}\n";
  const std::string output = load(text);
  const auto lines = std::count(output.begin(), output.end(), '\n') + 1;
  EXPECT_EQ(lines, 51);
  EXPECT_NE(output.find("t.yaml:5:16: error: unknown case parameter 'colour'"), std::string::npos)
      << output.substr(0, 300);
  EXPECT_EQ(output.substr(output.rfind('\n') + 1),
            "t.yaml: error: 1,950 more errors not shown (only the first 50 are)");

  // A 100,000-byte name is quoted as a short excerpt.
  const std::string long_name(100000, 'X');
  EXPECT_EQ(load("suite: " + long_name + "\n"),
            "t.yaml:1:1: error: missing required key 'backends' (the backend instances); "
            "allowed backends: " + builtin_backends().names() + "\n"
            "t.yaml:1:1: error: missing required key 'cases' (the cases to test)\n"
            "t.yaml:1:8: error: suite name '" + std::string(48, 'X') +
                "...' (100,000 bytes) is not file-name safe; use 1 to 128 lower-case letters, digits, "
                "'.', '_' and '-', starting with a letter or digit");
}

}  // namespace
}  // namespace fprev
