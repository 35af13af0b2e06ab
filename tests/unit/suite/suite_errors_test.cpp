// Invalid suites: every kind of problem is reported with the exact file:line:col (counted by hand
// in the YAML below, 1-based) and the allowed values, and all problems of a file are reported.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fprev/suite.hpp"
#include "toy_backends.hpp"

namespace fprev {
namespace {

// The hint of every structural YAML error (bounded_yaml.cpp).
const std::string kIndentHint =
    " (check the indentation of this line and the lines above it: entries of one map or list start in "
    "the same column, a nested one further right, with spaces, never tabs)";

using suite_test::errors_of;
using Lines = std::vector<std::string>;

// Lines 1-5 of most suites below; cases start on line 6.
const std::string kHead = "suite: s\nbackends:\n  - name: a\n    use: toy\ncases:\n";

TEST(SuiteErrors, ValidHeadLoads) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n"), Lines{});
}

TEST(SuiteErrors, UnknownTopLevelKey) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\ncolour: red\n"),
            Lines{"t.yaml:8:1: error: unknown key 'colour'; allowed values: suite, description, "
                  "environment_overrides, backends, cases"});
}

TEST(SuiteErrors, UnknownBackend) {
  EXPECT_EQ(errors_of("suite: s\nbackends:\n  - name: a\n    use: toi\ncases:\n  - op: dot\n"
                      "    n: 8\n"),
            Lines{"t.yaml:4:10: error: unknown backend 'toi'; allowed values: other, toy"});
}

TEST(SuiteErrors, UnknownCaseParameter) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    nn: 8\n"),
            Lines{"t.yaml:7:5: error: unknown case parameter 'nn' for backend 'toy'; allowed "
                  "values: op, dtype, n, m, k, order, fused, lanes, backends, call_sites, id, labels, max_seconds"});
}

TEST(SuiteErrors, MaxSecondsIsAPositiveNumberOfSecondsUpToADay) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n    max_seconds: 90.5\n"), Lines{});
  for (const char* bad : {"0", "-3", "ten", "1e9", "[1, 2]", "12s"})
    EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n    max_seconds: " + bad + "\n"),
              Lines{std::string(bad) == "[1, 2]"
                        ? "t.yaml:8:18: error: 'max_seconds' must be a single value, got a list"
                        : "t.yaml:8:18: error: 'max_seconds' must be a number of seconds above 0 and at most "
                          "86400, got '" + std::string(bad) + "'"})
        << bad;
}

TEST(SuiteErrors, LabelsArePlainNames) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n    labels: [long, nightly]\n"), Lines{});
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n    labels: [long, \"a b\"]\n"),
            Lines{"t.yaml:8:20: error: the label 'a b' is not a plain name; use 1 to 128 lower-case letters, digits, "
                  "'.', '_' and '-', starting with a letter or digit"});
}

TEST(SuiteErrors, CallSitesAreBoundedTexts) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n    call_sites: [\"a.out(main+0x1c)\", \"app.py:7 in f\"]\n"),
            Lines{});
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n    call_sites: []\n"),
            Lines{"t.yaml:8:17: error: 'call_sites' is an empty list; leave 'call_sites' out instead"});
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n    call_sites: [\"" + std::string(1001, 'x') + "\"]\n"),
            Lines{"t.yaml:8:18: error: a call site must be text of 1 to 1000 bytes, got 1001"});
  std::string seventeen = "[";
  for (int i = 0; i < 17; ++i) seventeen += (i ? ", s" : "s") + std::to_string(i);
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n    call_sites: " + seventeen + "]\n"),
            Lines{"t.yaml:8:17: error: 'call_sites' lists 17 call sites, more than the 16 a case entry may have"});
}

TEST(SuiteErrors, CaseParameterUnknownToOneOfTwoBackends) {
  const std::string suite =
      "suite: s\nbackends:\n  - name: a\n    use: toy\n  - name: b\n    use: other\n"
      "    device: 0\ncases:\n  - op: sum\n    order: reverse\n    n: 8\n";
  EXPECT_EQ(errors_of(suite),
            Lines{"t.yaml:10:5: error: unknown case parameter 'order' for backend 'other'; allowed "
                  "values: op, dtype, n, backends, call_sites, id, labels, max_seconds"});
  EXPECT_EQ(errors_of(suite + "    backends: a\n"), Lines{});
}

TEST(SuiteErrors, BadChoiceValueInAList) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    dtype: [float32, float16]\n    n: 8\n"),
            Lines{"t.yaml:7:22: error: backend 'toy': 'dtype' has unknown value 'float16'; allowed "
                  "values: float32, float64"});
}

TEST(SuiteErrors, WrongTypes) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: {a: 1}\n"),
            Lines{"t.yaml:7:8: error: 'n' must be a value or a list of values, got a map"});
  EXPECT_EQ(errors_of("suite: [a, b]\nbackends:\n  - name: a\n    use: toy\ncases:\n  - op: dot\n"
                      "    n: 8\n"),
            Lines{"t.yaml:1:8: error: 'suite' must be a single value, got a list"});
  EXPECT_EQ(errors_of("suite: s\nbackends:\n  - name: a\n    use: toy\n    threads: {x: 1}\n"
                      "cases:\n  - op: dot\n    n: 8\n"),
            Lines{"t.yaml:5:14: error: 'threads' must be a value or a list of values, got a map"});
  EXPECT_EQ(errors_of("suite: s\nbackends: toy\ncases:\n  - op: dot\n    n: 8\n"),
            Lines{"t.yaml:2:11: error: 'backends' must be a list of backend instances, got a "
                  "single value"});
  EXPECT_EQ(errors_of(kHead + "  - dot\n"),
            Lines{"t.yaml:6:5: error: a case entry must be a map of case parameters, got a single "
                  "value"});
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: [8, [16]]\n"),
            Lines{"t.yaml:7:12: error: the list of 'n' must hold single values, got a list"});
}

TEST(SuiteErrors, NonIntegerWhereIntegerExpected) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8.5\n"),
            Lines{"t.yaml:7:8: error: backend 'toy': 'n' must be an integer, got '8.5'"});
}

TEST(SuiteErrors, OutOfRange) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 0\n"),
            Lines{"t.yaml:7:8: error: backend 'toy': 'n' must be between 1 and 1048576, got 0"});
  EXPECT_EQ(errors_of("suite: s\nbackends:\n  - name: a\n    use: toy\n    threads: 0\ncases:\n"
                      "  - op: dot\n    n: 8\n"),
            Lines{"t.yaml:5:14: error: backend 'toy': 'threads' must be between 1 and 64, got 0"});
}

TEST(SuiteErrors, BackendCaseCheckPointsAtTheParameter) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    m: 4\n    n: 8\n"),
            Lines{"t.yaml:7:8: error: backend 'toy': op 'dot' takes no 'm'"});
  // A missing parameter has no value to point at: the entry.
  EXPECT_EQ(errors_of(kHead + "  - op: gemm\n    m: 4\n    n: 4\n"),
            Lines{"t.yaml:6:5: error: backend 'toy': op 'gemm' needs 'k'"});
}

TEST(SuiteErrors, DuplicateIdsAcrossEntries) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n  - op: dot\n    n: [16, 8]\n"),
            Lines{"t.yaml:8:5: error: duplicate case id 'dot-float32-n8' for backend instance 'a'; "
                  "first defined at t.yaml:6:5; make the cases differ or give them an 'id' with "
                  "{param} placeholders"});
}

TEST(SuiteErrors, DuplicateIdsWithinOneEntry) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: [8, 008]\n"),
            Lines{"t.yaml:6:5: error: duplicate case id 'dot-float32-n8' for backend instance 'a'; "
                  "first defined at t.yaml:6:5 (this entry expands to it more than once); make the "
                  "cases differ or give them an 'id' with {param} placeholders"});
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: [8, 16]\n    id: fixed\n"),
            Lines{"t.yaml:6:5: error: duplicate case id 'fixed' for backend instance 'a'; first "
                  "defined at t.yaml:6:5 (this entry expands to it more than once); make the cases "
                  "differ or give them an 'id' with {param} placeholders"});
}

TEST(SuiteErrors, DuplicateInstanceNames) {
  EXPECT_EQ(errors_of("suite: s\nbackends:\n  - name: a\n    use: toy\n  - name: a\n    use: toy\n"
                      "cases:\n  - op: dot\n    n: 8\n"),
            Lines{"t.yaml:5:11: error: duplicate backend instance name 'a'; first declared at "
                  "t.yaml:3:11"});
}

// A list-valued setting expands an instance into one per value, named <name>-<value>.
TEST(SuiteErrors, ListValuedSettings) {
  const std::string head = "suite: s\nbackends:\n  - name: a\n    use: toy\n";
  const std::string cases = "cases:\n  - op: dot\n    n: 8\n";
  EXPECT_EQ(errors_of(head + "    threads: []\n" + cases),
            Lines{"t.yaml:5:14: error: 'threads' is an empty list; the instance would expand to "
                  "none"});
  EXPECT_EQ(errors_of(head + "    threads: [1, 0, 65]\n" + cases),
            (Lines{"t.yaml:5:18: error: backend 'toy': 'threads' must be between 1 and 64, got 0",
                   "t.yaml:5:21: error: backend 'toy': 'threads' must be between 1 and 64, "
                   "got 65"}));
  EXPECT_EQ(errors_of(head + "    mode: [fast, slow]\n" + cases),
            Lines{"t.yaml:5:18: error: backend 'toy': 'mode' has unknown value 'slow'; allowed "
                  "values: fast, exact"});
  // Two values that expand to the same name, and an expansion that takes another's name.
  EXPECT_EQ(errors_of(head + "    threads: [2, 02]\n" + cases),
            Lines{"t.yaml:3:11: error: duplicate backend instance name 'a-2'; first declared at "
                  "t.yaml:3:11"});
  EXPECT_EQ(errors_of(head + "    threads: [1, 2]\n  - name: a-2\n    use: toy\n" + cases),
            Lines{"t.yaml:6:11: error: duplicate backend instance name 'a-2'; first declared at "
                  "t.yaml:3:11"});
  EXPECT_EQ(errors_of(head + "    threads: [1, 2]\n  - name: a\n    use: toy\n    threads: 3\n" +
                      cases),
            Lines{"t.yaml:6:11: error: duplicate backend instance name 'a'; first declared at "
                  "t.yaml:3:11"});
  // A restriction may name the declaration (all its instances) or one instance.
  EXPECT_EQ(errors_of(head + "    threads: [1, 2]\n" + cases + "    backends: [a-3]\n"),
            Lines{"t.yaml:9:16: error: unknown backend instance 'a-3'; allowed values: a, a-1, "
                  "a-2"});
}

TEST(SuiteErrors, EmptyOrMissingLists) {
  EXPECT_EQ(errors_of("suite: s\nbackends:\n  - name: a\n    use: toy\ncases: []\n"),
            Lines{"t.yaml:5:8: error: 'cases' is empty; a suite needs at least one case entry"});
  EXPECT_EQ(errors_of("suite: s\nbackends:\n  - name: a\n    use: toy\ncases:\n"),
            Lines{"t.yaml:5:1: error: 'cases' must be a list of case entries, got no value"});
  EXPECT_EQ(errors_of("suite: s\nbackends: []\ncases:\n  - op: dot\n    n: 8\n"),
            Lines{"t.yaml:2:11: error: 'backends' is empty; a suite needs at least one backend "
                  "instance"});
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: []\n"),
            Lines{"t.yaml:7:8: error: 'n' is an empty list; the entry would expand to no cases"});
}

TEST(SuiteErrors, RestrictionToUnknownInstance) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n    backends: [a, zz]\n"),
            Lines{"t.yaml:8:19: error: unknown backend instance 'zz'; allowed values: a"});
}

TEST(SuiteErrors, MissingRequiredKeys) {
  EXPECT_EQ(errors_of("description: x\n"),
            (Lines{"t.yaml:1:1: error: missing required key 'suite' (the suite's name)",
                   "t.yaml:1:1: error: missing required key 'backends' (the backend instances); "
                   "allowed backends: other, toy",
                   "t.yaml:1:1: error: missing required key 'cases' (the cases to test)"}));
  EXPECT_EQ(errors_of(kHead + "  - n: 8\n"),
            Lines{"t.yaml:6:5: error: backend 'toy': missing required parameter 'op'; allowed "
                  "values: sum, dot, gemm"});
  EXPECT_EQ(errors_of("suite: s\nbackends:\n  - name: a\ncases:\n  - op: dot\n    n: 8\n"),
            Lines{"t.yaml:3:5: error: backend instance 'a' has no 'use' (its backend); allowed "
                  "values: other, toy"});
  EXPECT_EQ(errors_of("suite: s\nbackends:\n  - use: toy\ncases:\n  - op: dot\n    n: 8\n"),
            Lines{"t.yaml:3:5: error: backend instance without 'name' (the name goldens are filed "
                  "under)"});
  EXPECT_EQ(errors_of("suite: s\nbackends:\n  - name: b\n    use: other\ncases:\n  - op: sum\n"
                      "    n: 8\n"),
            Lines{"t.yaml:3:5: error: backend 'other': missing required parameter 'device'"});
}

TEST(SuiteErrors, UnknownSetting) {
  EXPECT_EQ(errors_of("suite: s\nbackends:\n  - name: a\n    use: toy\n    thread: 2\ncases:\n"
                      "  - op: dot\n    n: 8\n"),
            Lines{"t.yaml:5:5: error: unknown setting 'thread' for backend 'toy'; allowed values: "
                  "name, use, threads, library, mode"});
}

TEST(SuiteErrors, RepeatedKey) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n    n: 16\n"),
            Lines{"t.yaml:8:5: error: key 'n' is repeated; first given at t.yaml:7:5"});
}

TEST(SuiteErrors, NamesThatAreNotFileNameSafe) {
  const std::string rule =
      "use 1 to 128 lower-case letters, digits, '.', '_' and '-', starting with a letter or digit";
  EXPECT_EQ(errors_of("suite: Toy Suite\nbackends:\n  - name: a\n    use: toy\ncases:\n"
                      "  - op: dot\n    n: 8\n"),
            Lines{"t.yaml:1:8: error: suite name 'Toy Suite' is not file-name safe; " + rule});
  EXPECT_EQ(
      errors_of("suite: s\nbackends:\n  - name: ../up\n    use: toy\ncases:\n"
                "  - op: dot\n    n: 8\n"),
      Lines{"t.yaml:3:11: error: backend instance name '../up' is not file-name safe; " + rule});
}

// A name names a golden file: one longer than a path component may be (128) passed validation and
// then stopped update and check with an internal error.
TEST(SuiteErrors, NamesLongerThan128CharactersAreRefused) {
  const std::string longest(128, 'a'), too_long(129, 'a');
  EXPECT_EQ(errors_of("suite: " + longest + "\nbackends:\n  - name: a\n    use: toy\ncases:\n  - op: dot\n    n: 8\n"),
            Lines{});
  const Lines suite_name = errors_of("suite: " + too_long +
                                     "\nbackends:\n  - name: a\n    use: toy\ncases:\n  - op: dot\n    n: 8\n");
  ASSERT_EQ(suite_name.size(), 1u);
  EXPECT_NE(suite_name[0].find("t.yaml:1:8: error: suite name '"), std::string::npos) << suite_name[0];
  EXPECT_NE(suite_name[0].find("is not file-name safe; use 1 to 128"), std::string::npos) << suite_name[0];
  const Lines id = errors_of(kHead + "  - op: dot\n    n: 8\n    id: " + too_long + "\n");
  ASSERT_EQ(id.size(), 1u);
  EXPECT_NE(id[0].find("at most 128 characters"), std::string::npos) << id[0];
}

TEST(SuiteErrors, IdTemplateProblems) {
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n    id: x-{nope}\n"),
            Lines{"t.yaml:8:9: error: id template 'x-{nope}' uses unknown parameter {nope}; "
                  "allowed values: op, dtype, n, m, k, order, fused, lanes"});
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n    id: x-{order}\n"),
            Lines{"t.yaml:8:9: error: id template 'x-{order}' uses {order}, which this case does "
                  "not set and which has no default"});
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n    id: x-{n\n"),
            Lines{"t.yaml:8:9: error: id template 'x-{n' has a '{' without '}'"});
}

TEST(SuiteErrors, TooManyCasesInOneEntry) {
  std::string sizes;
  for (int i = 1; i <= 400; ++i) sizes += (i > 1 ? ", " : "") + std::to_string(i);
  EXPECT_EQ(
      errors_of(kHead + "  - op: gemm\n    m: [" + sizes + "]\n    n: [" + sizes + "]\n    k: 1\n"),
      Lines{"t.yaml:5:1: error: the case entries expand to 160,000 cases (1 entry on 1 backend "
            "instance), more than the 10,000 a suite file may have; split the suite into several "
            "files or shorten the lists"});
}

TEST(SuiteErrors, YamlSyntaxErrorWithPosition) {
  // The second line's ':' (column 3) cannot start a map value at that indentation.
  EXPECT_EQ(errors_of("suite: s\n x: 1\n"),
            Lines{"t.yaml:2:3: error: YAML syntax error: illegal map value" + kIndentHint});
}

// yaml-cpp's raw structural messages get a hint about indentation and tabs; the position stays
// yaml-cpp's (line and column of the token it stopped at).
TEST(SuiteErrors, YamlStructureErrorsHintAtIndentation) {
  EXPECT_EQ(errors_of("suite: s\ncases:\n  - op: sum\n- op: dot\n"),
            Lines{"t.yaml:4:1: error: YAML syntax error: end of map not found" + kIndentHint});
  EXPECT_EQ(errors_of("suite: s\ncases: - op: sum\n"),
            Lines{"t.yaml:2:8: error: YAML syntax error: illegal block entry" + kIndentHint});
  EXPECT_EQ(errors_of("suite: s\ncases:\n  - op: sum\n    n: 4\n   order: x\n"),
            Lines{"t.yaml:5:4: error: YAML syntax error: end of sequence not found" + kIndentHint});
}

TEST(SuiteErrors, YamlTabIndentationIsNamed) {
  EXPECT_EQ(errors_of("suite: s\ncases:\n  - op: sum\n\t n: 4\n"),
            Lines{"t.yaml:4:1: error: YAML syntax error: illegal tab when looking for indentation (line 4 is "
                  "indented with a tab; YAML indents with spaces only)"});
}

TEST(SuiteErrors, OtherYamlErrorsGetNoIndentationHint) {
  // A flow map left open is not an indentation problem: no hint.
  const Lines errors = errors_of("suite: {s: 1\ncases: 2\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].find("indentation"), std::string::npos) << errors[0];
}

TEST(SuiteErrors, DocumentShape) {
  EXPECT_EQ(errors_of(""), Lines{"t.yaml: error: the file holds no suite; expected a map with the "
                                 "keys suite, description, environment_overrides, backends, cases"});
  EXPECT_EQ(errors_of("- a\n- b\n"),
            Lines{"t.yaml:1:1: error: a suite must be a map with the keys suite, description, "
                  "environment_overrides, backends, cases, got a list"});
  EXPECT_EQ(errors_of(kHead + "  - op: dot\n    n: 8\n---\nfoo: 1\n"),
            Lines{"t.yaml:8:1: error: a suite file holds one YAML document; a second one starts "
                  "here"});
}

TEST(SuiteErrors, AllProblemsOfAFileInLineOrder) {
  EXPECT_EQ(errors_of(R"(suite: s
colour: red
backends:
  - name: a
    use: toi
  - name: b
    use: toy
    thread: 2
cases:
  - op: dot
    n: 0
    dtype: float16
)"),
            (Lines{"t.yaml:2:1: error: unknown key 'colour'; allowed values: suite, description, "
                   "environment_overrides, backends, cases",
                   "t.yaml:5:10: error: unknown backend 'toi'; allowed values: other, toy",
                   "t.yaml:8:5: error: unknown setting 'thread' for backend 'toy'; allowed values: "
                   "name, use, threads, library, mode",
                   "t.yaml:11:8: error: backend 'toy': 'n' must be between 1 and 1048576, got 0",
                   "t.yaml:12:12: error: backend 'toy': 'dtype' has unknown value 'float16'; "
                   "allowed values: float32, float64"}));
}

TEST(SuiteErrors, SuiteErrorCarriesTheFirstPositionAndExitStatus) {
  const auto registry = suite_test::toy_registry();
  try {
    parse_suite(kHead + "  - op: dot\n    n: 0\n    dtype: float16\n", "t.yaml", registry);
    FAIL() << "expected a SuiteError";
  } catch (const SuiteError& error) {
    EXPECT_EQ(error.file(), "t.yaml");
    EXPECT_EQ(error.line(), 7);
    EXPECT_EQ(error.column(), 8);
    ASSERT_EQ(error.diagnostics().size(), 2u);
    EXPECT_EQ(std::string(error.what()), error.errors()[0] + "\n" + error.errors()[1]);
    EXPECT_EQ(SuiteError::exit_status, 2);
  }
}

}  // namespace
}  // namespace fprev
