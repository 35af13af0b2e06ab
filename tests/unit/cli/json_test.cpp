// The JSON conversions of framework types (framework/cli/report/json.hpp). Expected values come
// from the trees' definitions, not from the program's output.
#include "report/json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "fprev/sexpr.hpp"

namespace fprev::cli {
namespace {

TEST(Json, TreeHasItsSummaryAndSexpr) {
  // ((0 1) (2 3)): 4 leaves, 3 binary inner nodes, depth 2, the pairwise pattern.
  const Json json = tree_to_json(parse_sexpr("((0 1) (2 3))"));
  EXPECT_EQ(json["leaves"], 4);
  EXPECT_EQ(json["inner_nodes"], 3);
  EXPECT_EQ(json["depth"], 2);
  EXPECT_EQ(json["arity"], Json({{"2", 3}}));
  EXPECT_EQ(json["max_arity"], 2);
  EXPECT_EQ(json["description"], "pairwise");
  EXPECT_EQ(json["recognized"], true);
  EXPECT_EQ(json["sexpr"], "((0 1) (2 3))");
}

TEST(Json, FusedNodesShowInTheArity) {
  const Json json = tree_to_json(parse_sexpr("((0 1 2) 3 4)"));
  EXPECT_EQ(json["arity"], Json({{"3", 2}}));
  EXPECT_EQ(json["max_arity"], 3);
}

TEST(Json, OrderMapHasOneEntryPerRegionWithInclusiveRanges) {
  // A 6 x 4 grid: rows 0-3 sequential, rows 4-5 pairwise except column 3, which is sequential too.
  // Element (r, c) of class k: rows and columns as inclusive [first, last] pairs, the class's tree
  // on every entry of the class (class 0 has two regions, so two entries).
  const Tree sequential = parse_sexpr("(((0 1) 2) 3)");
  const Tree pairwise = parse_sexpr("((0 1) (2 3))");
  std::vector<std::size_t> class_of(24, 0);
  for (std::size_t r = 4; r < 6; ++r)
    for (std::size_t c = 0; c < 3; ++c) class_of[r * 4 + c] = 1;
  const OrderMap map = map_of_elements(OutputGrid{6, 4}, class_of, {sequential, pairwise});
  const Json json = order_classes_to_json(map);
  ASSERT_EQ(json.size(), 3u);
  std::size_t elements_covered = 0;
  for (const Json& entry : json) {
    ASSERT_TRUE(entry["class"] == 0 || entry["class"] == 1);
    const Tree& tree = entry["class"] == 0 ? sequential : pairwise;
    EXPECT_EQ(entry["tree"], to_sexpr(tree));
    const std::string pattern = entry["class"] == 0 ? "sequential" : "pairwise";
    EXPECT_NE(entry["description"].get<std::string>().find(pattern), std::string::npos)
        << entry["description"];
    std::size_t rows = 0, columns = 0;
    for (const Json& range : entry["rows"])
      rows += range[1].get<std::size_t>() - range[0].get<std::size_t>() + 1;
    for (const Json& range : entry["columns"])
      columns += range[1].get<std::size_t>() - range[0].get<std::size_t>() + 1;
    elements_covered += rows * columns;
  }
  EXPECT_EQ(elements_covered, 24u);  // the entries partition the grid
  // Class 1 is exactly rows 4-5 x columns 0-2.
  std::size_t pairwise_entries = 0;
  for (const Json& entry : json) {
    if (entry["class"] != 1) continue;
    ++pairwise_entries;
    EXPECT_EQ(entry["rows"], Json::parse("[[4, 5]]"));
    EXPECT_EQ(entry["columns"], Json::parse("[[0, 2]]"));
  }
  EXPECT_EQ(pairwise_entries, 1u);
}

TEST(Json, MetadataKeepsEveryField) {
  GoldenMetadata meta;
  meta.suite = "s";
  meta.case_id = "c";
  meta.backend = "b";
  meta.platform_key = "p";
  meta.library = "OpenBLAS";
  meta.library_version = "0.3.21";
  meta.library_configuration = "Haswell";
  meta.tool_version = "9.9";
  meta.created = "2024-01-01";
  meta.extra["k"] = "v";
  const Json json = metadata_to_json(meta);
  EXPECT_EQ(json["format_version"], kGoldenFormatVersion);
  EXPECT_EQ(json["case"], "c");
  EXPECT_EQ(json["platform_key"], "p");
  EXPECT_EQ(json["library_version"], "0.3.21");
  EXPECT_EQ(json["library_configuration"], "Haswell");
  EXPECT_EQ(json["extra"], Json({{"k", "v"}}));
  EXPECT_EQ(json.size(), 11u);
}

TEST(Json, DiffListsTheDifferingRegions) {
  // ((0 1) (2 3)) against ((0 2) (1 3)): only the root's cluster agrees; one region over all leaves.
  const Json json = diff_to_json(diff_trees(parse_sexpr("((0 1) (2 3))"), parse_sexpr("((0 2) (1 3))")));
  EXPECT_EQ(json["comparable"], true);
  EXPECT_EQ(json["equal"], false);
  EXPECT_EQ(json["note"], nullptr);
  EXPECT_EQ(json["agreeing_inner_nodes"], 1);
  EXPECT_EQ(json["difference_count"], 1);
  EXPECT_EQ(json["differences"],
            Json::parse(R"j([{"leaves": "{0..3}", "leaf_count": 4, "old": "((0 1) (2 3))", "new": "((0 2) (1 3))"}])j"));
}

TEST(Json, DiffOfDifferentLeafCountsIsNotComparable) {
  const Json json = diff_to_json(diff_trees(parse_sexpr("((0 1) 2)"), parse_sexpr("(0 1)")));
  EXPECT_EQ(json["comparable"], false);
  EXPECT_EQ(json["equal"], false);
  EXPECT_TRUE(json["note"].is_string());
}

TEST(Json, NonFiniteRawOutputsKeepTheirName) {
  Diagnostic d;
  d.finding = Finding::non_finite_output;
  d.raw_output = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(diagnostic_to_json(d)["raw_output"], "nan");
  d.raw_output = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(diagnostic_to_json(d)["raw_output"], "-inf");
  d.raw_output = 2.5;
  EXPECT_EQ(diagnostic_to_json(d)["raw_output"], 2.5);
  d.raw_output.reset();
  EXPECT_EQ(diagnostic_to_json(d)["raw_output"], nullptr);
  EXPECT_EQ(diagnostic_to_json(d)["finding"], "non_finite_output");
  EXPECT_EQ(diagnostic_to_json(d)["variability"], nullptr);
}

TEST(Json, StatusesAreIdentifiersAndOutcomesFollowStrictMode) {
  EXPECT_EQ(status_name(CaseStatus::missing_golden), "missing_golden");
  EXPECT_EQ(status_name(CaseStatus::broken_golden), "broken_golden");
  const auto with_status = [](CaseStatus status) {
    CaseResult r;
    r.status = status;
    return r;
  };
  EXPECT_EQ(outcome_name(with_status(CaseStatus::missing_golden), {}), "skipped");
  EXPECT_EQ(outcome_name(with_status(CaseStatus::missing_golden), {.strict = true}), "failed");
  EXPECT_EQ(outcome_name(with_status(CaseStatus::missing_golden), {.ci = true}), "failed");
  EXPECT_EQ(outcome_name(with_status(CaseStatus::differs), {}), "failed");
  EXPECT_EQ(outcome_name(with_status(CaseStatus::unchanged), {}), "passed");
}

TEST(Json, CaseOfADifferingTreeHasBothTreesAndTheDiff) {
  CaseResult r;
  r.suite = "s";
  r.backend = "b";
  r.case_id = "c";
  r.status = CaseStatus::differs;
  r.platform_key = "any";
  r.golden = Golden{};
  r.golden->map = OrderMap::uniform({}, parse_sexpr("((0 1) 2)"));
  r.revealed = OrderMap::uniform({}, parse_sexpr("(0 (1 2))"));
  const Json json = case_to_json(r, SkipPolicy{}, "fprev-golden update --suite s --backend b --case c");
  EXPECT_EQ(json["test"], "reproducibility/s/b/c");
  EXPECT_EQ(json["outcome"], "failed");
  EXPECT_EQ(json["golden"]["tree"]["sexpr"], "((0 1) 2)");
  EXPECT_EQ(json["revealed"]["sexpr"], "(0 (1 2))");
  EXPECT_EQ(json["diff"]["equal"], false);
  EXPECT_EQ(json["accept_command"], "fprev-golden update --suite s --backend b --case c");
  EXPECT_TRUE(json["stats"].is_object());
  EXPECT_EQ(json["diagnostic"], nullptr);
}

TEST(Json, CaseOfAnUnavailableBackendHasNulls) {
  CaseResult r;
  r.status = CaseStatus::unavailable;
  r.message = "no GPU";
  const Json json = case_to_json(r, SkipPolicy{}, "");
  EXPECT_EQ(json["outcome"], "skipped");
  EXPECT_EQ(case_to_json(r, SkipPolicy{.strict = true}, "")["outcome"], "failed");  // strict mode fails every skip
  EXPECT_EQ(json["identity"], nullptr);
  EXPECT_EQ(json["platform_key"], nullptr);
  EXPECT_EQ(json["revealed"], nullptr);
  EXPECT_EQ(json["stats"], nullptr);
  EXPECT_EQ(json["accept_command"], nullptr);
  EXPECT_EQ(json["message"], "no GPU");
}

TEST(Json, WriterReplacesInvalidUtf8AndParsesBack) {
  Json document = json_document("env");
  document["os"] = std::string("caf\xc3\xa9 \xff end");  // valid é, then an invalid byte
  std::ostringstream out;
  write_json(out, document);
  const Json back = Json::parse(out.str());
  EXPECT_EQ(back["os"], "caf\xc3\xa9 \xef\xbf\xbd end");  // U+FFFD in place of the invalid byte
  EXPECT_EQ(back["schema_version"], kJsonSchemaVersion);
  EXPECT_EQ(back["command"], "env");
  EXPECT_EQ(out.str().back(), '\n');
  EXPECT_EQ(out.str().rfind("{\n  \"schema_version\": 1,\n  \"command\": \"env\"", 0), 0u);
}

}  // namespace
}  // namespace fprev::cli
