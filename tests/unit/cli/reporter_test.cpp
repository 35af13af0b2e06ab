// Reporters: the same case results as text, JSON and the CTest mode; a list forwards to each.
#include "report/reporter.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "fprev/sexpr.hpp"
#include "report/json.hpp"

namespace fprev::cli {
namespace {

std::vector<CaseResult> two_results() {
  CaseResult passed;
  passed.suite = "s";
  passed.backend = "b";
  passed.case_id = "ok";
  passed.status = CaseStatus::passed;
  passed.platform_key = "any";
  passed.revealed = OrderMap::uniform({}, parse_sexpr("((0 1) 2)"));
  passed.target_description = "a target";
  passed.golden_path = "g/ok.golden";
  CaseResult missing = passed;
  missing.case_id = "new";
  missing.status = CaseStatus::missing_golden;
  missing.revealed.reset();
  missing.pending_path = "g/new.golden.new";
  return {passed, missing};
}

std::vector<ObsoleteGolden> obsolete_goldens() {
  return {{{"g/old.golden", "any", "s", "b", "old", ""}, false, ""}};
}

// Runs the events of a check of two_results() through `reporter`.
void run(Reporter& reporter, bool strict, const std::vector<ObsoleteGolden>& obsolete = obsolete_goldens(),
         UnreferencedPolicy policy = UnreferencedPolicy::warn) {
  static const std::vector<CaseResult> results = two_results();
  reporter.run_started({"check", SkipPolicy{.strict = strict}, results.size(), 0, {}});
  for (std::size_t k = 0; k < results.size(); ++k) {
    reporter.case_started(k, results[k].case_id);
    reporter.case_finished(results[k], k == 1 ? "CREATE" : "");
  }
  reporter.run_finished({results, obsolete, count_cases(results, SkipPolicy{.strict = strict}), policy, "REVIEW"});
}

std::string text_of(const std::vector<ObsoleteGolden>& obsolete, UnreferencedPolicy policy) {
  std::ostringstream out, progress;
  auto reporter = make_text_reporter(out, progress, false);
  run(*reporter, false, obsolete, policy);
  return out.str();
}

TEST(Reporters, TextHasTheBlocksTableObsoleteAndClosingLine) {
  std::ostringstream out, progress;
  auto reporter = make_text_reporter(out, progress, false);
  run(*reporter, false);
  const std::string text = out.str();
  EXPECT_NE(text.find("SKIPPED reproducibility/s/b/new"), std::string::npos) << text;
  EXPECT_NE(text.find("create it with: CREATE"), std::string::npos) << text;
  EXPECT_NE(text.find("missing golden"), std::string::npos) << text;  // the table
  EXPECT_NE(text.find("1 obsolete golden(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("1 passed, 0 failed, 1 skipped\n"), std::string::npos) << text;
  EXPECT_EQ(progress.str(), "");
}

// The failures-and-summary view: the passed case has no row, a line counts it, the closing line stays.
TEST(Reporters, TextTableOfTheCasesThatDidNotPass) {
  for (const TableRows rows : {TableRows::not_passed, TableRows::not_passed_when_green}) {
    std::ostringstream out, progress;
    auto reporter = make_text_reporter(out, progress, false, rows);
    run(*reporter, false);
    const std::string text = out.str();
    EXPECT_NE(text.find("missing golden"), std::string::npos) << text;  // the skipped case's row
    EXPECT_EQ(text.find(" ok  "), std::string::npos) << text;  // no row of the passed case
    EXPECT_NE(text.find("1 passed case not listed (--all-rows lists every case)"), std::string::npos) << text;
    EXPECT_NE(text.find("1 passed, 0 failed, 1 skipped\n"), std::string::npos) << text;
  }
  std::ostringstream out, progress;
  auto reporter = make_text_reporter(out, progress, false, TableRows::all);
  run(*reporter, false);
  EXPECT_NE(out.str().find(" ok  "), std::string::npos) << out.str();  // every row
  EXPECT_EQ(out.str().find("not listed"), std::string::npos) << out.str();
}

TEST(Reporters, TextSaysWhereResultsWereKeptForReview) {
  const std::string text = text_of(obsolete_goldens(), UnreferencedPolicy::warn);
  EXPECT_NE(text.find("  create it with: CREATE\n  or record every case of the suite with: CREATE\n"
                      "  kept for review: g/new.golden.new\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1 pending result(s) to review: REVIEW\n1 passed, 0 failed, 1 skipped\n"), std::string::npos)
      << text;
}

TEST(Reporters, ObsoleteGoldensFailOrAreDeletedAsAsked) {
  std::string text = text_of(obsolete_goldens(), UnreferencedPolicy::warn);
  EXPECT_NE(text.find("1 obsolete golden(s): no case of the suites refers to them any more\n  g/old.golden\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("FAILED"), std::string::npos) << text;
  EXPECT_FALSE(obsolete_fails(obsolete_goldens(), UnreferencedPolicy::warn));

  text = text_of(obsolete_goldens(), UnreferencedPolicy::fail);
  EXPECT_NE(text.find("FAILED: 1 obsolete golden(s)"), std::string::npos) << text;
  EXPECT_TRUE(obsolete_fails(obsolete_goldens(), UnreferencedPolicy::fail));
  EXPECT_FALSE(obsolete_fails({}, UnreferencedPolicy::fail));

  std::vector<ObsoleteGolden> handled = obsolete_goldens();
  handled[0].deleted = true;
  handled.push_back({{"g/odd.golden", "any", "s", "b", "odd", ""}, false, "it does not read as a golden"});
  text = text_of(handled, UnreferencedPolicy::remove);
  EXPECT_NE(text.find("deleted 1 obsolete golden(s): no case of the suites referred to them any more\n"
                      "  g/old.golden\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("FAILED: kept 1 obsolete golden(s) that --unreferenced=delete cannot delete safely:\n"
                      "  g/odd.golden: it does not read as a golden\n"),
            std::string::npos)
      << text;
  EXPECT_TRUE(obsolete_fails(handled, UnreferencedPolicy::remove));
  handled.pop_back();
  EXPECT_FALSE(obsolete_fails(handled, UnreferencedPolicy::remove));
}

TEST(Reporters, TextProgressGoesToItsOwnStream) {
  std::ostringstream out, progress;
  auto reporter = make_text_reporter(out, progress, true);
  run(*reporter, false);
  EXPECT_NE(progress.str().find("[2/2] new"), std::string::npos);
  EXPECT_EQ(out.str().find("[1/2]"), std::string::npos);
}

TEST(Reporters, JsonIsOneDocumentWithCountsAndCases) {
  std::ostringstream out;
  auto reporter = make_json_reporter(out);
  run(*reporter, true);
  const Json json = Json::parse(out.str());
  EXPECT_EQ(json["command"], "check");
  EXPECT_EQ(json["strict"], true);
  EXPECT_EQ(json["counts"]["passed"], 1);
  EXPECT_EQ(json["counts"]["failed"], 1);  // strict: the missing golden fails
  EXPECT_EQ(json["summary"], "1 passed, 1 failed, 0 skipped");
  ASSERT_EQ(json["cases"].size(), 2u);
  EXPECT_EQ(json["cases"][1]["accept_command"], "CREATE");
  EXPECT_EQ(json["obsolete_goldens"], Json::array({"g/old.golden"}));
  EXPECT_EQ(json["unreferenced"], "warn");
  EXPECT_EQ(json["deleted_goldens"], Json::array());
  EXPECT_EQ(json["undeleted_goldens"], Json::array());
  EXPECT_EQ(json["review_command"], "REVIEW");
  EXPECT_EQ(json["cases"][0]["pending_file"], nullptr);
  EXPECT_EQ(json["cases"][1]["pending_file"], "g/new.golden.new");
  EXPECT_EQ(json["cases"][1]["pending_error"], nullptr);
}

TEST(Reporters, JsonSaysWhichObsoleteGoldensWereDeleted) {
  std::vector<ObsoleteGolden> handled = obsolete_goldens();
  handled[0].deleted = true;
  handled.push_back({{"g/odd.golden", "any", "s", "b", "odd", ""}, false, "it does not read as a golden"});
  std::ostringstream out;
  auto reporter = make_json_reporter(out);
  run(*reporter, false, handled, UnreferencedPolicy::remove);
  const Json json = Json::parse(out.str());
  EXPECT_EQ(json["unreferenced"], "delete");
  EXPECT_EQ(json["obsolete_goldens"], Json::array({"g/old.golden", "g/odd.golden"}));
  EXPECT_EQ(json["deleted_goldens"], Json::array({"g/old.golden"}));
  ASSERT_EQ(json["undeleted_goldens"].size(), 1u);
  EXPECT_EQ(json["undeleted_goldens"][0]["path"], "g/odd.golden");
  EXPECT_EQ(json["undeleted_goldens"][0]["reason"], "it does not read as a golden");
}

// A distributed run that lost an MPI rank: both reports name it, and the text's closing line stays
// last (scripts read the counts from it).
TEST(Reporters, TextAndJsonNameTheLostRanks) {
  static const std::vector<CaseResult> results = two_results();
  const std::vector<ObsoleteGolden> none;
  const std::string why = "rank 2 (host node07) was lost: it sent no word for 20 s";
  std::ostringstream text, progress, json;
  auto text_reporter = make_text_reporter(text, progress, false);
  auto json_reporter = make_json_reporter(json);
  for (Reporter* reporter : {text_reporter.get(), json_reporter.get()}) {
    reporter->run_started({"check", SkipPolicy{}, results.size(), 0, {}});
    reporter->run_finished({results, none, count_cases(results, SkipPolicy{}), UnreferencedPolicy::warn, "", {}, {why}});
  }
  const std::string lines = text.str();
  EXPECT_NE(lines.find("lost MPI rank (the run fails): " + why + "\n1 passed, 0 failed, 1 skipped\n"), std::string::npos)
      << lines;
  EXPECT_EQ(Json::parse(json.str())["lost_ranks"], Json::array({why}));
  std::ostringstream whole;
  auto no_loss = make_json_reporter(whole);
  run(*no_loss, false);
  EXPECT_EQ(Json::parse(whole.str())["lost_ranks"], Json::array());
}

TEST(Reporters, CTestModePrintsTheCaseOnly) {
  std::ostringstream out;
  auto reporter = make_ctest_reporter(out);
  run(*reporter, false);
  EXPECT_EQ(out.str(),
            "passed: a target matches g/ok.golden\n"
            "SKIPPED reproducibility/s/b/new: no golden for platform 'any' ()\n"
            "  create it with: CREATE\n"
            "  or record every case of the suite with: CREATE\n"
            "  kept for review: g/new.golden.new\n");
}

TEST(Reporters, AListForwardsEveryEventToEachReporter) {
  std::ostringstream text, json;
  ReporterList list;
  list.add(make_text_reporter(text, text, false));
  list.add(make_json_reporter(json));
  run(list, false);
  EXPECT_NE(text.str().find("1 passed, 0 failed, 1 skipped"), std::string::npos);
  EXPECT_EQ(Json::parse(json.str())["counts"]["skipped"], 1);
}

// What a non-blocking pipe holds now.
std::string drain(int fd) {
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  return text;
}

// A CI log reads the counts from the summary's closing line: the log progress thread, which writes
// a line every interval, writes none after the summary (it did: "300 of 300 cases done" after it).
TEST(Reporters, LogProgressWritesNoLineAfterTheSummary) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_NONBLOCK), 0);
  {
    auto reporter = make_log_progress_reporter(fds[1], std::chrono::milliseconds(5), "check");
    static const std::vector<CaseResult> results = two_results();
    static const std::vector<ObsoleteGolden> none;
    reporter->run_started({"check", SkipPolicy{}, results.size(), 0, {}});
    reporter->case_started(0, results[0].case_id);
    std::string written;
    for (int wait = 0; wait < 1000 && written.empty(); ++wait) {  // up to 5 s on a loaded machine
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      written = drain(fds[0]);
    }
    EXPECT_NE(written.find("0 of 2 cases done"), std::string::npos) << "the thread writes progress";
    {
      // As ReporterList calls it: under the output lock, which the progress thread writes under.
      const std::lock_guard output(report_output_mutex());
      drain(fds[0]);
      reporter->run_finished({results, none, count_cases(results, SkipPolicy{}), UnreferencedPolicy::warn, ""});
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    EXPECT_EQ(drain(fds[0]), "") << "a progress line after the summary";
  }
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace
}  // namespace fprev::cli
