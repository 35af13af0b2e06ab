// The HTML report of check (check --html FILE): one self-contained page, no scripts and nothing
// fetched (styles inline, pictures inline SVG), so it can be kept as a CI artifact and opened
// anywhere. Every case's text is the one the text reporter prints (print_case_details), so the
// page never says less than the log.
#include <fstream>
#include <iomanip>
#include <sstream>

#include "../control_escape.hpp"
#include "../exit_status.hpp"
#include "../version.hpp"
#include "fprev/diff.hpp"
#include "fprev/render.hpp"
#include "fprev/result_diff.hpp"
#include "reporter.hpp"

namespace fprev::cli {
namespace {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// Replaces every `from` in `text` by `to`.
void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

}  // namespace

std::string inline_svg(const std::string& svg, const std::string& id_prefix) {
  const std::size_t start = svg.find("<svg");
  if (start == std::string::npos) return {};
  std::string out = svg.substr(start);
  // Graphviz names the elements of every picture alike (graph0, node1, edge1, clust1): ids must be
  // unique in a page, so each picture's get a prefix, and so do references to them.
  replace_all(out, " id=\"", " id=\"" + id_prefix);
  replace_all(out, "href=\"#", "href=\"#" + id_prefix);
  replace_all(out, "url(#", "url(#" + id_prefix);
  return out;
}

namespace {

constexpr const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 1.5em;
       color: #222; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; margin-bottom: 0.3em; }
.meta { color: #555; margin: 0.2em 0; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.time { text-align: right; font-variant-numeric: tabular-nums; }
.failed { color: #b00000; font-weight: bold; }
.skipped { color: #9a6700; font-weight: bold; }
.passed { color: #1a7f37; }
section.case { border-left: 4px solid #b00000; padding-left: 1em; margin: 1.2em 0; }
section.case.skipped { border-left-color: #d4a72c; }
section.case.note { border-left-color: #888; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.15em 1em; margin: 0.4em 0; }
dt { color: #555; }
dd { margin: 0; }
pre { background: #f7f7f7; border: 1px solid #e3e3e3; padding: 0.6em; font-size: 0.9em;
      white-space: pre-wrap; overflow-wrap: anywhere; }
figure { margin: 0.6em 0; }
figcaption { color: #555; margin-bottom: 0.3em; }
.picture { border: 1px solid #e3e3e3; background: #fff; }
.picture svg { display: block; max-width: 100%; height: auto; }
.picture.full { overflow-x: scroll; }
.picture.full svg { max-width: none; }
)";

// Pictures wider than this (about 1200 px) are also offered at full size.
constexpr double kPageWidthPoints = 900;

enum class Category { failed, skipped, passed };

const char* category_class(Category category) {
  switch (category) {
    case Category::failed: return "failed";
    case Category::skipped: return "skipped";
    case Category::passed: return "passed";
  }
  return "";
}

struct Entry {
  std::string name;      // reproducibility/<suite>/<backend>/<case>
  Category category = Category::passed;
  std::string reason;    // failure_reason
  std::string details;   // print_case_details: empty for a plain pass
  std::string identities;  // <dl> of platform, identities, target, golden file
  std::string pictures;    // <figure>s
};

std::string identities_html(const CaseResult& r) {
  std::string out = "<dl>";
  const auto row = [&](const char* key, const std::string& value) {
    if (!value.empty()) out += "<dt>" + std::string(key) + "</dt><dd>" + escape(value) + "</dd>";
  };
  row("platform", r.platform_key);
  if (r.golden) row("golden", golden_identity(r.golden->meta));
  row("now", identity_text(r.identity));
  row("target", r.target_description);
  row("golden file", r.golden_path.string());
  return out + "</dl>";
}

// The width Graphviz gave the picture, in points (width="1234pt"); 0 when not found.
double svg_width_points(const std::string& svg) {
  const std::size_t at = svg.find(" width=\"");
  if (at == std::string::npos) return 0;
  try {
    return std::stod(svg.substr(at + 8));
  } catch (const std::exception&) {
    return 0;
  }
}

// `index`: the picture's number in the page, for unique SVG ids. The picture is scaled to the
// page's width (both trees side by side stay visible, no scroll box); one wider than a page also
// comes at full size, folded, for reading its labels.
std::string picture_html(const CasePicture& picture, std::size_t index) {
  std::string out = "<figure><figcaption>" + escape(picture.caption) + "</figcaption>";
  const SvgResult svg = render_svg_from_dot(picture.dot);
  if (svg.ok) {
    const std::string prefix = "pic" + std::to_string(index) + "-";
    out += "<div class=\"picture\">" + inline_svg(svg.svg, prefix) + "</div>";
    if (svg_width_points(svg.svg) > kPageWidthPoints)
      out += "<details><summary>the picture at full size</summary><div class=\"picture full\">" +
             inline_svg(svg.svg, prefix + "full-") + "</div></details>";
  } else {
    out += "<p class=\"meta\">No picture: " + escape(svg.error) +
           ". Its Graphviz DOT text:</p><pre>" + escape(picture.dot) + "</pre>";
  }
  return out + "</figure>";
}

class HtmlReporter final : public Reporter {
 public:
  HtmlReporter(std::ostream& out, std::size_t max_nodes) : out_(out), max_nodes_(max_nodes) {}

  void run_started(const RunInfo& info) override {
    command_ = info.command;
    policy_ = info.policy;
    if (info.excluded_by_label != 0) {
      std::string labels;
      for (const std::string& label : info.excluded_labels) labels += (labels.empty() ? "" : ", ") + label;
      left_out_ = std::to_string(info.excluded_by_label) + (info.excluded_by_label == 1 ? " case" : " cases") +
                  " left out by --exclude-label " + labels + ", not counted above";
    }
  }

  void case_finished(const CaseResult& result, const std::string& accept_command) override {
    Entry entry;
    entry.name = test_name(result);
    entry.category = is_failure(result, policy_) ? Category::failed
                     : is_skip(result, policy_) ? Category::skipped
                                                       : Category::passed;
    entry.reason = failure_reason(result, policy_);
    std::ostringstream details;
    print_case_details(details, result, policy_, accept_command);
    entry.details = details.str();
    if (entry.category != Category::passed) {
      entry.identities = identities_html(result);
      if (entry.category == Category::failed)
        for (const CasePicture& picture : case_pictures(result, max_nodes_))
          entry.pictures += picture_html(picture, pictures_++);
    }
    entries_.push_back(std::move(entry));
  }

  void run_finished(const RunSummary& summary) override {
    std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    page += "<title>fprev-golden " + escape(command_) + ": " + escape(closing_line(summary.counts)) + "</title>\n";
    page += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
    page += "<h1>fprev-golden " + escape(command_) + "</h1>\n";
    page += "<p class=\"meta\" id=\"closing-line\">" + escape(closing_line(summary.counts)) +
            (policy_.strict ? " (strict mode: every skip fails)" : policy_.ci ? " (CI: a missing golden fails)" : "") + "</p>\n";
    if (!left_out_.empty()) page += "<p class=\"meta\" id=\"left-out\">" + escape(left_out_) + "</p>\n";
    page += "<p class=\"meta\">" + escape(utc_timestamp_now()) + ", fprev-golden " + escape(kToolVersion) + "</p>\n";
    page += summary_table(summary.results);
    page += sections(Category::failed, "Failures", "case");
    page += sections(Category::skipped, "Skipped", "case skipped");
    page += notes();
    page += obsolete(summary.obsolete, summary.unreferenced);
    page += "</body>\n</html>\n";
    out_ << escape_controls(page);  // nor raw controls from a golden or a file name
    out_.flush();
  }

 private:
  std::string summary_table(const std::vector<CaseResult>& results) const {
    std::string out = "<h2>Summary</h2>\n<table id=\"summary\">\n<tr><th>suite</th><th>backend</th><th>case</th>"
                      "<th>status</th><th>time</th><th>alignment</th><th>invariance</th><th>detail</th></tr>\n";
    for (std::size_t k = 0; k < results.size() && k < entries_.size(); ++k) {
      const CaseResult& r = results[k];
      const Entry& entry = entries_[k];
      std::ostringstream time;
      time << std::fixed << std::setprecision(2) << r.seconds << "s";
      std::string status = escape(to_string(r.status));
      if (entry.category != Category::passed)
        status = "<a href=\"#case-" + std::to_string(k) + "\">" + status + "</a>";
      out += "<tr><td>" + escape(r.suite) + "</td><td>" + escape(r.backend) + "</td><td>" + escape(r.case_id) +
             "</td><td class=\"" + category_class(entry.category) + "\">" + status + "</td><td class=\"time\">" +
             time.str() + "</td><td>" + escape(alignment_cell(r)) + "</td><td>" + escape(invariance_cell(r)) +
             "</td><td>" + escape(case_detail(r)) +
             "</td></tr>\n";
    }
    return out + "</table>\n";
  }

  // Whether the order depends on where the data lies (docs/alignment.md): the result's verdict, or
  // "not recorded" for a case that passed against a golden written before the check; nothing where
  // this run reached no verdict (a changed order, a fault, a skip).
  static std::string alignment_cell(const CaseResult& r) {
    if (r.alignment) return r.alignment->summary();
    if (r.golden && r.status == CaseStatus::passed) return "not recorded";
    return "";
  }

  // The invariance verdicts checked now (docs/invariance.md), one per line; what changed against the
  // golden where something did.
  static std::string invariance_cell(const CaseResult& r) {
    std::string out;
    for (const InvarianceResult& v : r.invariance) out += (out.empty() ? "" : "; ") + v.summary();
    for (const std::string& change : r.invariance_changes) out += (out.empty() ? "" : "; ") + change;
    return out;
  }

  std::string sections(Category category, const char* heading, const char* css_class) const {
    std::string out;
    for (std::size_t k = 0; k < entries_.size(); ++k) {
      const Entry& entry = entries_[k];
      if (entry.category != category) continue;
      out += "<section class=\"" + std::string(css_class) + "\" id=\"case-" + std::to_string(k) + "\">\n";
      out += "<h3>" + escape(entry.name) + (entry.reason.empty() ? "" : ": " + escape(entry.reason)) + "</h3>\n";
      out += entry.identities + "\n" + entry.pictures + "\n";
      if (!entry.details.empty()) out += "<pre>" + escape(entry.details) + "</pre>\n";
      out += "</section>\n";
    }
    return out.empty() ? out : "<h2>" + std::string(heading) + "</h2>\n" + out;
  }

  // Cases that passed with something to say (update's changes, a golden without fingerprint).
  std::string notes() const {
    std::string out;
    for (const Entry& entry : entries_)
      if (entry.category == Category::passed && !entry.details.empty())
        out += "<section class=\"case note\"><pre>" + escape(entry.details) + "</pre></section>\n";
    return out.empty() ? out : "<h2>Notes</h2>\n" + out;
  }

  // The text report's lines (print_obsolete), which say what --unreferenced did.
  static std::string obsolete(const std::vector<ObsoleteGolden>& goldens, UnreferencedPolicy policy) {
    if (goldens.empty()) return "";
    std::ostringstream text;
    print_obsolete(text, goldens, policy);
    return "<h2>Obsolete goldens</h2>\n<pre id=\"obsolete\"" +
           std::string(obsolete_fails(goldens, policy) ? " class=\"failed\"" : "") + ">" + escape(text.str()) +
           "</pre>\n";
  }

  std::ostream& out_;
  std::size_t max_nodes_;
  std::size_t pictures_ = 0;  // pictures in the page so far
  std::string command_ = "check";
  SkipPolicy policy_;
  std::string left_out_;  // the cases --exclude-label left out, when there are any
  std::vector<Entry> entries_;
};

// Owns the file it writes.
class HtmlFileReporter final : public Reporter {
 public:
  HtmlFileReporter(const std::string& path, std::size_t max_nodes)
      : path_(path), file_(path, std::ios::binary | std::ios::trunc), html_(file_, max_nodes) {
    if (!file_) throw UsageError("cannot write the HTML report " + path);
  }
  void run_started(const RunInfo& info) override { html_.run_started(info); }
  void case_finished(const CaseResult& result, const std::string& accept_command) override {
    html_.case_finished(result, accept_command);
  }
  void run_finished(const RunSummary& summary) override {
    html_.run_finished(summary);
    file_.close();
    if (!file_) throw std::runtime_error("cannot write the HTML report " + path_);
  }

 private:
  std::string path_;
  std::ofstream file_;
  HtmlReporter html_;
};

}  // namespace

std::vector<CasePicture> case_pictures(const CaseResult& result, std::size_t max_nodes) {
  if (!result.golden || !result.revealed) return {};  // a recorded finding's diagnostic is text
  const std::optional<Golden> now = golden_of(result, "-");
  if (!now || same_orders(*result.golden, *now)) return {};
  DiffLabels labels;
  labels.old_identity = golden_identity(result.golden->meta);
  labels.new_identity = identity_text(result.identity);
  labels.case_id = result.case_id;
  labels.platform_key = result.platform_key;
  const auto dot = result_diff_dot(*result.golden, *now, labels, max_nodes);
  if (!dot) return {};
  const bool maps = !result.golden->is_single_tree() || !now->is_single_tree();
  return {{maps ? "the golden tree (left) and the revealed tree (right) of the first region whose order changed"
                : "the golden tree (left) and the revealed tree (right)",
           *dot}};
}

std::unique_ptr<Reporter> make_html_reporter(std::ostream& out, std::size_t max_nodes) {
  return std::make_unique<HtmlReporter>(out, max_nodes);
}

std::unique_ptr<Reporter> make_html_file_reporter(const std::string& path, std::size_t max_nodes) {
  return std::make_unique<HtmlFileReporter>(path, max_nodes);
}

}  // namespace fprev::cli
