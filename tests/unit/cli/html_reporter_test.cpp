// The HTML report of check: one self-contained page with the summary, the failing cases (their
// identities, diff, picture and diagnostics) and the skips, everything from the results escaped.
#include <gtest/gtest.h>

#include <sstream>

#include "exit_status.hpp"
#include "fprev/render.hpp"
#include "fprev/summary.hpp"
#include "report/reporter.hpp"

namespace fprev::cli {
namespace {

CaseResult base(const std::string& case_id, CaseStatus status) {
  CaseResult r;
  r.suite = "s";
  r.backend = "b";
  r.case_id = case_id;
  r.status = status;
  r.platform_key = "haswell-t1";
  r.identity.library = "OpenBLAS";
  r.identity.version = "0.3.26";
  r.target_description = "a target";
  r.golden_path = "g/" + case_id + ".golden";
  return r;
}

std::vector<CaseResult> results() {
  CaseResult passed = base("ok", CaseStatus::passed);
  passed.revealed = OrderMap::uniform({}, patterns::pairwise(8));
  CaseResult differs = base("changed", CaseStatus::differs);
  Golden golden;
  golden.meta.library = "OpenBLAS";
  golden.meta.library_version = "0.3.21";
  golden.map = OrderMap::uniform({}, patterns::sequential(300));
  differs.golden = golden;
  differs.revealed = OrderMap::uniform({}, patterns::strided(300, 4, patterns::LaneCombine::pairwise));
  CaseResult misbehaves = base("flaky", CaseStatus::misbehaves);
  Diagnostic diagnostic;
  diagnostic.finding = Finding::nondeterministic;
  diagnostic.message = "the same input gave different outputs";
  misbehaves.diagnostic = diagnostic;
  CaseResult missing = base("new", CaseStatus::missing_golden);
  CaseResult unavailable = base("gpu", CaseStatus::unavailable);
  unavailable.message = "no GPU <script>alert(1)</script> & no driver";
  return {passed, differs, misbehaves, missing, unavailable};
}

std::string report(bool strict) {
  static const std::vector<CaseResult> all = results();
  static const std::vector<ObsoleteGolden> obsolete = {{{"g/old.golden", "any", "s", "b", "old", ""}, false, ""}};
  std::ostringstream out;
  auto reporter = make_html_reporter(out, kDefaultDrawnNodes);
  reporter->run_started({"check", SkipPolicy{.strict = strict}, all.size(), 0, {}});
  for (std::size_t k = 0; k < all.size(); ++k) {
    reporter->case_started(k, all[k].case_id);
    reporter->case_finished(all[k], all[k].status == CaseStatus::passed ? "" : "ACCEPT " + all[k].case_id);
  }
  reporter->run_finished({all, obsolete, count_cases(all, SkipPolicy{.strict = strict}), UnreferencedPolicy::warn, ""});
  return out.str();
}

std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

// The text between the element with id `id` and the next <section or heading.
std::string section(const std::string& page, const std::string& id) {
  const std::size_t start = page.find("id=\"" + id + "\"");
  if (start == std::string::npos) return "";
  return page.substr(start, page.find("</section>", start) - start);
}

TEST(HtmlReport, HasTheSummaryTableWithLinksToTheCasesThatNeedAttention) {
  const std::string page = report(false);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_NE(page.find("1 passed, 2 failed, 2 skipped"), std::string::npos);
  EXPECT_EQ(occurrences(page, "<tr>"), 1u + 5u);  // the header and one row per case
  for (const char* id : {"case-1", "case-2", "case-3", "case-4"})
    EXPECT_NE(page.find(std::string("href=\"#") + id + "\""), std::string::npos) << id;
  EXPECT_EQ(page.find("href=\"#case-0\""), std::string::npos);  // a plain pass has no section
  EXPECT_NE(page.find("g/old.golden"), std::string::npos);       // obsolete goldens
}

TEST(HtmlReport, AFailingCaseHasItsIdentitiesDiffAndPicture) {
  const std::string page = report(false);
  const std::string changed = section(page, "case-1");
  ASSERT_FALSE(changed.empty()) << page;
  EXPECT_NE(changed.find("reproducibility/s/b/changed: the summation tree changed"), std::string::npos);
  EXPECT_NE(changed.find("<dt>golden</dt><dd>OpenBLAS 0.3.21</dd>"), std::string::npos) << changed;
  EXPECT_NE(changed.find("<dt>now</dt><dd>OpenBLAS 0.3.26</dd>"), std::string::npos) << changed;
  EXPECT_NE(changed.find("<dt>platform</dt><dd>haswell-t1</dd>"), std::string::npos) << changed;
  EXPECT_NE(changed.find("first difference, over leaves"), std::string::npos) << changed;
  EXPECT_NE(changed.find("ACCEPT changed"), std::string::npos) << changed;
  if (find_program("dot")) {
    EXPECT_EQ(occurrences(changed, "<svg"), 1u);
    EXPECT_EQ(changed.find("<?xml"), std::string::npos);
    EXPECT_NE(changed.find("#f4cccc"), std::string::npos);  // what differs, in red
  } else {
    EXPECT_NE(changed.find("No picture"), std::string::npos);
    EXPECT_NE(changed.find("digraph summation_trees"), std::string::npos);
  }
  const std::string flaky = section(page, "case-2");
  EXPECT_NE(flaky.find("the target misbehaves: nondeterministic"), std::string::npos) << flaky;
  EXPECT_NE(flaky.find("the same input gave different outputs"), std::string::npos) << flaky;
  EXPECT_EQ(flaky.find("<svg"), std::string::npos);
}

// Graphviz names every picture's elements alike (graph0, node1, ...): inline, each picture's ids
// and the references to them get a prefix of their own, so ids are unique in the page.
TEST(HtmlReport, InlinePicturesHaveIdsOfTheirOwn) {
  const std::string svg =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg width=\"8pt\"><g id=\"graph0\" class=\"graph\">"
      "<!-- n1 -->\n<g id=\"node1\"><a xlink:href=\"#node2\"/><path fill=\"url(#grad1)\"/></g></g></svg>\n";
  const std::string a = inline_svg(svg, "pic0-"), b = inline_svg(svg, "pic1-");
  EXPECT_EQ(a.find("<!--"), std::string::npos) << a;  // Graphviz's comments: a tenth of the bytes, nothing said
  EXPECT_EQ(a.rfind("<svg", 0), 0u) << a;  // no prologue, no doctype
  EXPECT_NE(a.find("id=\"pic0-graph0\""), std::string::npos) << a;
  EXPECT_NE(a.find("id=\"pic0-node1\""), std::string::npos) << a;
  EXPECT_NE(a.find("href=\"#pic0-node2\""), std::string::npos) << a;
  EXPECT_NE(a.find("url(#pic0-grad1)"), std::string::npos) << a;
  EXPECT_EQ(a.find("\"graph0\""), std::string::npos) << a;
  EXPECT_NE(b.find("id=\"pic1-graph0\""), std::string::npos) << b;
}

// Long lines wrap; pictures are shown at Graphviz's size, labels as large as the text around
// them, never scaled down to the page (a 16-leaf diff had 6-pixel labels): a wide one scrolls.
TEST(HtmlReport, PicturesAreShownAtAReadableSize) {
  const std::string page = report(false);
  EXPECT_NE(page.find("white-space: pre-wrap"), std::string::npos);
  EXPECT_EQ(page.find("max-width: 100%"), std::string::npos) << "a picture shrunk to the page";
  EXPECT_NE(page.find(".picture svg, .picture img { display: block; max-width: none; height: auto; }"), std::string::npos);
  EXPECT_NE(page.find(".picture { border: 1px solid #e3e3e3; background: #fff; overflow-x: auto; }"),
            std::string::npos);
  if (!find_program("dot")) GTEST_SKIP() << "Graphviz 'dot' is not installed";
  const std::string changed = section(page, "case-1");
  ASSERT_NE(changed.find("<svg"), std::string::npos);
  // Every label 12 pt, 16 px, the size of the page's text (the browser's 16 px default).
  EXPECT_NE(changed.find("font-size=\"12.00\""), std::string::npos);
  for (const char* smaller : {"font-size=\"11.00\"", "font-size=\"10.00\"", "font-size=\"8.00\""})
    EXPECT_EQ(changed.find(smaller), std::string::npos) << smaller;
}

TEST(HtmlReport, SkipsSayWhyAndStrictModeFailsThem) {
  const std::string page = report(false);
  const std::string skipped = page.substr(page.find("<h2>Skipped</h2>"));
  EXPECT_NE(skipped.find("no golden for platform &#39;haswell-t1&#39;"), std::string::npos) << skipped;
  EXPECT_NE(skipped.find("ACCEPT new"), std::string::npos);
  EXPECT_NE(skipped.find("backend unavailable here: no GPU"), std::string::npos);
  const std::string strict = report(true);
  EXPECT_NE(strict.find("strict mode"), std::string::npos);
  EXPECT_NE(section(strict, "case-3").find("no golden for this platform and strict mode is on"), std::string::npos);
}

TEST(HtmlReport, IsSelfContainedAndEscapesEverything) {
  const std::string page = report(false);
  EXPECT_NE(page.find("no GPU &lt;script&gt;alert(1)&lt;/script&gt; &amp; no driver"), std::string::npos);
  for (const char* fetch : {"<script", "<link", "<img", "<iframe", "src=", "url(", "@import", "xlink:href", "href=\"http"})
    EXPECT_EQ(page.find(fetch), std::string::npos) << fetch;
}

TEST(HtmlReport, AFileThatCannotBeWrittenStopsTheRunBeforeItStarts) {
  EXPECT_THROW(make_html_file_reporter("/nonexistent-fprev-dir/report.html", kDefaultDrawnNodes), UsageError);
}

}  // namespace
}  // namespace fprev::cli
