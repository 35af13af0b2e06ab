// The text of check/update reports: counts, the closing line, failure reasons (also CTest's
// FAIL_REGULAR_EXPRESSION phrases) and the case blocks.
#include "report/case_text.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "fprev/sexpr.hpp"

namespace fprev::cli {
namespace {

CaseResult result(CaseStatus status) {
  CaseResult r;
  r.suite = "s";
  r.backend = "b";
  r.case_id = "c";
  r.status = status;
  r.platform_key = "any";
  return r;
}

TEST(CaseText, CountsAndClosingLine) {
  std::vector<CaseResult> results;
  for (CaseStatus s : {CaseStatus::passed, CaseStatus::differs, CaseStatus::missing_golden,
                       CaseStatus::unavailable, CaseStatus::misbehaves})
    results.push_back(result(s));
  const CaseCounts lenient = count_cases(results, SkipPolicy{});
  EXPECT_EQ(closing_line(lenient), "1 passed, 2 failed, 2 skipped");
  const CaseCounts strict = count_cases(results, SkipPolicy{.strict = true});
  // Strict mode fails every skip: the missing golden and the backend that cannot run here.
  EXPECT_EQ(closing_line(strict), "1 passed, 4 failed, 0 skipped");
  const CaseCounts update = count_cases({result(CaseStatus::created), result(CaseStatus::unchanged),
                                         result(CaseStatus::unchanged), result(CaseStatus::misbehaves)}, SkipPolicy{});
  EXPECT_EQ(closing_line(update), "1 created, 2 unchanged, 3 passed, 1 failed, 0 skipped");
}

TEST(CaseText, EveryFailureReasonIsAListedPhraseWithoutRegexCharacters) {
  const std::vector<std::string> phrases = all_failure_reasons();
  const auto listed = [&](const std::string& reason) {
    return std::find(phrases.begin(), phrases.end(), reason) != phrases.end();
  };
  for (const std::string& phrase : phrases) {
    EXPECT_EQ(phrase.find_first_of("^$.[]|()*+?\\;"), std::string::npos) << phrase;
  }
  for (CaseStatus status : {CaseStatus::differs, CaseStatus::broken_golden, CaseStatus::missing_golden}) {
    const std::string reason = failure_reason(result(status), SkipPolicy{.strict = true});
    EXPECT_FALSE(reason.empty());
    EXPECT_TRUE(listed(reason)) << reason;
  }
  for (int f = 0; f <= static_cast<int>(Finding::target_error); ++f) {
    CaseResult r = result(CaseStatus::misbehaves);
    r.diagnostic = Diagnostic{};
    r.diagnostic->finding = static_cast<Finding>(f);
    EXPECT_TRUE(listed(failure_reason(r, SkipPolicy{}))) << failure_reason(r, SkipPolicy{});
  }
  EXPECT_EQ(failure_reason(result(CaseStatus::missing_golden), SkipPolicy{}), "");
  EXPECT_EQ(failure_reason(result(CaseStatus::passed), SkipPolicy{.strict = true}), "");
}

TEST(CaseText, AChangedTreeShowsTheDiffAndTheAcceptCommand) {
  CaseResult r = result(CaseStatus::differs);
  r.golden = Golden{};
  r.golden->map = OrderMap::uniform({}, parse_sexpr("((0 1) (2 3))"));
  r.revealed = OrderMap::uniform({}, parse_sexpr("((0 2) (1 3))"));
  r.golden_path = "golden/any/s/b/c.golden";
  std::ostringstream out;
  print_case_details(out, r, SkipPolicy{}, "ACCEPT-COMMAND");
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("FAILED reproducibility/s/b/c: the summation tree changed\n", 0), 0u) << text;
  EXPECT_NE(text.find("((0 1) (2 3))"), std::string::npos) << text;
  EXPECT_NE(text.find("((0 2) (1 3))"), std::string::npos) << text;
  EXPECT_NE(text.find("  golden file: golden/any/s/b/c.golden\n"), std::string::npos) << text;
  EXPECT_NE(text.find("accept it with:\n    ACCEPT-COMMAND\n"), std::string::npos) << text;
}

TEST(CaseText, AFailingTracedCaseNamesWhereTheApplicationMakesTheCall) {
  CaseResult r = result(CaseStatus::differs);
  r.golden = Golden{};
  r.golden->map = OrderMap::uniform({}, parse_sexpr("((0 1) (2 3))"));
  r.revealed = OrderMap::uniform({}, parse_sexpr("((0 2) (1 3))"));
  r.call_sites = {"app(main+0x1c) <- libc.so.6(+0x2724a)", "app.py:7 in <module>"};
  std::ostringstream out;
  print_case_details(out, r, SkipPolicy{}, "ACCEPT-COMMAND");
  EXPECT_NE(out.str().find("  the application makes this call at:\n    app(main+0x1c) <- libc.so.6(+0x2724a)\n"
                           "    app.py:7 in <module>\n"),
            std::string::npos)
      << out.str();
  CaseResult misbehaving = result(CaseStatus::misbehaves);
  misbehaving.message = "nondeterministic";
  misbehaving.call_sites = {"app.py:7 in <module>"};
  std::ostringstream misbehaves;
  print_case_details(misbehaves, misbehaving, SkipPolicy{}, "");
  EXPECT_NE(misbehaves.str().find("the application makes this call at:\n    app.py:7 in <module>\n"), std::string::npos)
      << misbehaves.str();
  std::ostringstream untraced;  // a case without call sites says nothing about them
  print_case_details(untraced, result(CaseStatus::misbehaves), SkipPolicy{}, "");
  EXPECT_EQ(untraced.str().find("the application"), std::string::npos) << untraced.str();
}

TEST(CaseText, AMissingGoldenIsASkipOrAStrictFailure) {
  std::ostringstream skip, strict;
  print_case_details(skip, result(CaseStatus::missing_golden), SkipPolicy{}, "CREATE");
  print_case_details(strict, result(CaseStatus::missing_golden), SkipPolicy{.strict = true}, "CREATE");
  EXPECT_EQ(skip.str().rfind("SKIPPED reproducibility/s/b/c: no golden for platform 'any'", 0), 0u) << skip.str();
  EXPECT_NE(skip.str().find("  create it with: CREATE\n"), std::string::npos);
  EXPECT_EQ(strict.str().rfind("FAILED reproducibility/s/b/c: no golden for this platform and strict mode is on", 0), 0u)
      << strict.str();
}

// Issue 26: under CI a missing golden fails naming CI; a case with a golden that reached no verdict,
// a golden that could not be written and (strict) a golden without fingerprint fail with phrases
// CTest's FAIL_REGULAR_EXPRESSION lists; the note of a golden without fingerprint ends in its command.
TEST(CaseText, TheNewFailuresAreListedPhrases) {
  const std::vector<std::string> phrases = all_failure_reasons();
  const auto listed = [&](const std::string& reason) {
    return !reason.empty() && std::find(phrases.begin(), phrases.end(), reason) != phrases.end();
  };
  std::ostringstream ci;
  print_case_details(ci, result(CaseStatus::missing_golden), SkipPolicy{.ci = true}, "CREATE");
  EXPECT_EQ(ci.str().rfind("FAILED reproducibility/s/b/c: no golden for this platform and CI is set", 0), 0u) << ci.str();
  CaseResult budget = result(CaseStatus::over_budget);
  budget.golden = Golden{};
  EXPECT_EQ(failure_reason(budget, {}), "the case has a golden here but reached no verdict within its time budget");
  EXPECT_TRUE(listed(failure_reason(budget, {})));
  EXPECT_TRUE(listed(failure_reason(result(CaseStatus::unwritable), {})));
  // A case the suite's configuration broke says so, not "the target misbehaves".
  CaseResult refused = result(CaseStatus::misbehaves);
  refused.diagnostic = Diagnostic{};
  refused.diagnostic->finding = Finding::unsupported;
  refused.configuration_error = true;
  EXPECT_EQ(failure_reason(refused, {}), "the suite's configuration is refused");
  EXPECT_TRUE(listed(failure_reason(refused, {})));
  CaseResult older = result(CaseStatus::passed);
  older.golden = Golden{};
  older.golden->map = OrderMap::uniform({}, parse_sexpr("((0 1) 2)"));
  EXPECT_EQ(failure_reason(older, {}), "");
  EXPECT_TRUE(listed(failure_reason(older, {.strict = true})));
  std::ostringstream note;
  print_case_details(note, older, {}, "ADD-COMMAND");
  EXPECT_EQ(note.str().rfind("NOTE reproducibility/s/b/c: the golden has no arithmetic fingerprint", 0), 0u) << note.str();
  EXPECT_NE(note.str().find("add one with:\n    ADD-COMMAND\n"), std::string::npos) << note.str();
}

TEST(CaseText, PassedCasesPrintNothing) {
  std::ostringstream out;
  print_case_details(out, result(CaseStatus::passed), SkipPolicy{}, "");
  print_case_details(out, result(CaseStatus::unchanged), SkipPolicy{}, "");
  EXPECT_EQ(out.str(), "");
}

// --prove-every-element: a map's line says whether every element answered its tree's whole proof,
// or why it did not (never silently the sampled checks alone).
TEST(CaseText, AMapsLineSaysWhetherEveryElementWasProven) {
  CaseResult r = result(CaseStatus::passed);
  r.revealed = OrderMap::uniform(OutputGrid{4, 3}, parse_sexpr("((0 1) 2)"));
  EXPECT_EQ(case_detail(r).find("proven"), std::string::npos) << case_detail(r);
  r.stats.every_element_proven = true;
  EXPECT_NE(case_detail(r).find("every element proven in full"), std::string::npos) << case_detail(r);
  r.stats.every_element_proven = false;
  r.stats.element_proof_skipped = "beyond the exact counting range the elements are not proven one by one";
  EXPECT_NE(case_detail(r).find("(not every element proven: beyond the exact counting range"), std::string::npos)
      << case_detail(r);
}

}  // namespace
}  // namespace fprev::cli
