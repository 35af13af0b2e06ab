// Valid suites: instances, cross-product expansion (count and order), ids and resolved parameters.
// Expected ids follow the documented rule applied by hand to the YAML below.
#include <gtest/gtest.h>

#include "fprev/suite.hpp"
#include "toy_backends.hpp"

namespace fprev {
namespace {

using suite_test::toy_registry;

std::vector<std::string> ids_of(const Suite& suite, const std::string& instance) {
  std::vector<std::string> ids;
  for (const auto& c : suite.cases)
    if (c.backend_instance == instance) ids.push_back(c.id);
  return ids;
}

const SuiteCase& case_of(const Suite& suite, const std::string& instance, const std::string& id) {
  for (const auto& c : suite.cases)
    if (c.backend_instance == instance && c.id == id) return c;
  throw std::runtime_error("no case " + instance + "/" + id);
}

const char* const kValidSuite = R"(suite: toy-suite
description: A toy suite
backends:
  - name: fast
    use: toy
    threads: 04  # canonical: 4
  - name: slow
    use: toy
cases:
  - op: dot
    dtype: [float32, float64]
    n: [8, 32, 1024]
  - op: gemm
    m: 64
    n: 64
    k: [16, 256]
    backends: fast
  - op: sum
    order: [sequential, pairwise]
    n: 1024
    fused: false
)";

TEST(SuiteExpand, NameDescriptionAndInstances) {
  const auto registry = toy_registry();
  const Suite suite = parse_suite(kValidSuite, "toy.yaml", registry);
  EXPECT_EQ(suite.name, "toy-suite");
  EXPECT_EQ(suite.description, "A toy suite");
  EXPECT_EQ(suite.file, "toy.yaml");
  EXPECT_EQ(suite.line, 1);
  EXPECT_EQ(suite.column, 8);
  ASSERT_EQ(suite.backends.size(), 2u);
  EXPECT_EQ(suite.backends[0].name, "fast");
  EXPECT_EQ(suite.backends[0].use, "toy");
  EXPECT_EQ(suite.backends[0].settings,
            (Params{{"threads", "4"}, {"library", "libtoy"}, {"mode", "exact"}}));
  EXPECT_EQ(suite.backends[0].line, 4);
  EXPECT_EQ(suite.backends[0].column, 5);
  EXPECT_EQ(suite.backends[1].name, "slow");
  EXPECT_EQ(suite.backends[1].settings,
            (Params{{"threads", "1"}, {"library", "libtoy"}, {"mode", "exact"}}));
  EXPECT_EQ(suite.backends[1].line, 7);
  ASSERT_NE(suite.find_backend("slow"), nullptr);
  EXPECT_EQ(suite.find_backend("slow")->name, "slow");
  EXPECT_EQ(suite.find_backend("nope"), nullptr);
}

TEST(SuiteExpand, CrossProductIdsInOrderPerInstance) {
  const auto registry = toy_registry();
  const Suite suite = parse_suite(kValidSuite, "toy.yaml", registry);
  // 2 dtypes x 3 sizes, 2 gemm sizes (fast only), 2 orders.
  EXPECT_EQ(ids_of(suite, "fast"),
            (std::vector<std::string>{"dot-float32-n8", "dot-float32-n32", "dot-float32-n1024",
                                      "dot-float64-n8", "dot-float64-n32", "dot-float64-n1024",
                                      "gemm-float32-m64n64k16", "gemm-float32-m64n64k256",
                                      "sum-float32-nofused-sequential-n1024",
                                      "sum-float32-nofused-pairwise-n1024"}));
  EXPECT_EQ(ids_of(suite, "slow"),
            (std::vector<std::string>{"dot-float32-n8", "dot-float32-n32", "dot-float32-n1024",
                                      "dot-float64-n8", "dot-float64-n32", "dot-float64-n1024",
                                      "sum-float32-nofused-sequential-n1024",
                                      "sum-float32-nofused-pairwise-n1024"}));
  ASSERT_EQ(suite.cases.size(), 18u);
  // Grouped by instance, in declaration order.
  for (std::size_t i = 0; i < suite.cases.size(); ++i)
    EXPECT_EQ(suite.cases[i].backend_instance, i < 10 ? "fast" : "slow") << i;
}

TEST(SuiteExpand, ResolvedParamsAndPositions) {
  const auto registry = toy_registry();
  const Suite suite = parse_suite(kValidSuite, "toy.yaml", registry);
  const SuiteCase dot = case_of(suite, "slow", "dot-float64-n32");
  EXPECT_EQ(dot.params, (Params{{"op", "dot"}, {"dtype", "float64"}, {"n", "32"}}));
  EXPECT_EQ(dot.file, "toy.yaml");
  EXPECT_EQ(dot.line, 10);
  EXPECT_EQ(dot.column, 5);
  const SuiteCase gemm = case_of(suite, "fast", "gemm-float32-m64n64k16");
  EXPECT_EQ(gemm.params, (Params{{"op", "gemm"},
                                 {"dtype", "float32"},  // the default
                                 {"m", "64"},
                                 {"n", "64"},
                                 {"k", "16"}}));
  EXPECT_EQ(gemm.line, 13);
  const SuiteCase sum = case_of(suite, "fast", "sum-float32-nofused-pairwise-n1024");
  EXPECT_EQ(sum.params, (Params{{"op", "sum"},
                                {"dtype", "float32"},
                                {"order", "pairwise"},
                                {"n", "1024"},
                                {"fused", "false"}}));
  EXPECT_EQ(sum.line, 18);
}

TEST(SuiteExpand, MaxSecondsAndLabelsGoToEveryCaseOfTheirEntry) {
  const auto registry = toy_registry();
  const Suite suite = parse_suite(
      "suite: s\nbackends:\n  - name: a\n    use: toy\ncases:\n"
      "  - op: dot\n    n: [8, 16]\n    max_seconds: 120\n    labels: long\n"
      "  - op: dot\n    n: 32\n",
      "t.yaml", registry);
  ASSERT_EQ(suite.cases.size(), 3u);  // labels is no list of parameter values: no cross product
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(suite.cases[k].max_seconds, 120.0);
    EXPECT_EQ(suite.cases[k].labels, std::vector<std::string>{"long"});
  }
  EXPECT_FALSE(suite.cases[2].max_seconds);
  EXPECT_TRUE(suite.cases[2].labels.empty());
}

TEST(SuiteExpand, CallSitesGoToEveryCaseOfTheirEntryAndMultiplyNothing) {
  const auto registry = toy_registry();
  const Suite suite = parse_suite(
      "suite: s\nbackends:\n  - name: a\n    use: toy\ncases:\n"
      "  - op: dot\n    n: [8, 16]\n    call_sites: [\"app.py:7 in <module>\", \"a.out(main+0x1c)\"]\n"
      "  - op: dot\n    n: 32\n",
      "t.yaml", registry);
  ASSERT_EQ(suite.cases.size(), 3u);
  const std::vector<std::string> sites{"app.py:7 in <module>", "a.out(main+0x1c)"};
  EXPECT_EQ(suite.cases[0].call_sites, sites);
  EXPECT_EQ(suite.cases[1].call_sites, sites);
  EXPECT_TRUE(suite.cases[2].call_sites.empty());
  EXPECT_EQ(suite.cases[0].id, "dot-float32-n8");  // call sites are not part of the id
}

TEST(SuiteExpand, LoadingNeverOpensABackend) {
  suite_test::open_calls = 0;
  const auto registry = toy_registry();
  parse_suite(kValidSuite, "toy.yaml", registry);
  EXPECT_EQ(suite_test::open_calls.load(), 0);
}

Suite one_instance(const std::string& cases) {
  static const auto registry = toy_registry();
  return parse_suite("suite: s\nbackends:\n  - name: a\n    use: toy\ncases:\n" + cases, "t.yaml",
                     registry);
}

TEST(SuiteExpand, FirstKeyVariesSlowest) {
  const Suite suite = one_instance("  - op: dot\n    n: [1, 2]\n    dtype: [float32, float64]\n");
  EXPECT_EQ(ids_of(suite, "a"), (std::vector<std::string>{"dot-float32-n1", "dot-float64-n1",
                                                          "dot-float32-n2", "dot-float64-n2"}));
}

TEST(SuiteExpand, ThreeListsGiveTheFullProduct) {
  const Suite suite = one_instance(
      "  - op: sum\n    order: [sequential, reverse, pairwise]\n    n: [4, 5]\n"
      "    dtype: [float32, float64]\n");
  ASSERT_EQ(suite.cases.size(), 12u);
  EXPECT_EQ(suite.cases[0].id, "sum-float32-sequential-n4");
  EXPECT_EQ(suite.cases[1].id, "sum-float64-sequential-n4");
  EXPECT_EQ(suite.cases[2].id, "sum-float32-sequential-n5");
  EXPECT_EQ(suite.cases[11].id, "sum-float64-pairwise-n5");
}

TEST(SuiteExpand, IdDoesNotDependOnKeyOrder) {
  const Suite suite = one_instance(
      "  - n: 16\n    order: reverse\n    op: sum\n    lanes: 4\n"
      "    fused: true\n");
  EXPECT_EQ(ids_of(suite, "a"), (std::vector<std::string>{"sum-float32-fused-lanes4-reverse-n16"}));
}

TEST(SuiteExpand, IntegersAreCanonical) {
  const Suite suite = one_instance("  - op: dot\n    n: 008\n");
  ASSERT_EQ(suite.cases.size(), 1u);
  EXPECT_EQ(suite.cases[0].id, "dot-float32-n8");
  EXPECT_EQ(suite.cases[0].params.at("n"), "8");
}

TEST(SuiteExpand, IdTemplate) {
  const Suite suite = one_instance(
      "  - op: dot\n    dtype: [float32, float64]\n    n: 8\n    id: tiny-{dtype}-{n}\n"
      "  - op: sum\n    n: 3\n    id: Three.{dtype}\n");
  EXPECT_EQ(ids_of(suite, "a"),
            (std::vector<std::string>{"tiny-float32-8", "tiny-float64-8", "three.float32"}));
}

TEST(SuiteExpand, RestrictionByScalarOrList) {
  const auto registry = toy_registry();
  const Suite suite = parse_suite(R"(suite: s
backends:
  - name: a
    use: toy
  - name: b
    use: toy
  - name: c
    use: other
    device: 3
cases:
  - op: sum
    n: 8
    backends: [c, a]
  - op: dot
    n: 8
    backends: b
)",
                                  "t.yaml", registry);
  EXPECT_EQ(ids_of(suite, "a"), (std::vector<std::string>{"sum-float32-n8"}));
  EXPECT_EQ(ids_of(suite, "b"), (std::vector<std::string>{"dot-float32-n8"}));
  EXPECT_EQ(ids_of(suite, "c"), (std::vector<std::string>{"sum-float32-n8"}));
  EXPECT_EQ(suite.find_backend("c")->settings, (Params{{"device", "3"}}));
}

TEST(SuiteExpand, ListValuedSettingsExpandTheInstance) {
  const auto registry = toy_registry();
  const Suite suite = parse_suite(R"(suite: s
backends:
  - name: lib
    use: toy
    mode: [fast, exact]
    threads: [1, 02]
  - name: single
    use: toy
cases:
  - op: sum
    n: 8
  - op: dot
    n: 8
    backends: lib
  - op: gemm
    m: 2
    n: 2
    k: 2
    backends: [lib-exact-2, single]
)",
                                  "t.yaml", registry);
  // One instance per combination, the first list varying slowest, values as in case ids.
  std::vector<std::string> names;
  for (const auto& instance : suite.backends) names.push_back(instance.name);
  EXPECT_EQ(names, (std::vector<std::string>{"lib-fast-1", "lib-fast-2", "lib-exact-1",
                                             "lib-exact-2", "single"}));
  EXPECT_EQ(suite.find_backend("lib-exact-2")->settings,
            (Params{{"threads", "2"}, {"library", "libtoy"}, {"mode", "exact"}}));
  EXPECT_EQ(suite.find_backend("lib-fast-1")->line, 3);  // where the declaration is
  // `backends: lib` means every instance of the declaration.
  EXPECT_EQ(ids_of(suite, "lib-fast-1"),
            (std::vector<std::string>{"sum-float32-n8", "dot-float32-n8"}));
  EXPECT_EQ(ids_of(suite, "lib-exact-2"),
            (std::vector<std::string>{"sum-float32-n8", "dot-float32-n8", "gemm-float32-m2n2k2"}));
  EXPECT_EQ(ids_of(suite, "single"),
            (std::vector<std::string>{"sum-float32-n8", "gemm-float32-m2n2k2"}));
}

TEST(SuiteExpand, SameIdOnDifferentInstancesIsFine) {
  const auto registry = toy_registry();
  const Suite suite = parse_suite(
      "suite: s\nbackends:\n  - {name: a, use: toy}\n  - {name: b, use: toy}\ncases:\n"
      "  - {op: dot, n: 8}\n",
      "t.yaml", registry);
  EXPECT_EQ(ids_of(suite, "a"), (std::vector<std::string>{"dot-float32-n8"}));
  EXPECT_EQ(ids_of(suite, "b"), (std::vector<std::string>{"dot-float32-n8"}));
}

}  // namespace
}  // namespace fprev
