// The HTML report of check (check --html FILE): one page, no scripts and nothing fetched from
// elsewhere (styles inline, pictures inline SVG), so it can be kept as a CI artifact and opened
// anywhere. Every case's text is the one the text reporter prints (print_case_details), so the
// page never says less than the log. It stays small whatever fails: it embeds the first
// kEmbeddedPictures pictures (at most kEmbeddedBytes of SVG, each once); the others are files in a
// folder beside it (report-pictures/ for report.html), linked and loaded lazily.
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>

#include "../control_escape.hpp"
#include "../exit_status.hpp"
#include "../selection.hpp"
#include "../version.hpp"
#include "fprev/diff.hpp"
#include "fprev/render.hpp"
#include "fprev/impact.hpp"
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
  // Graphviz's comments (one per node and edge) are a tenth of a picture and say nothing.
  for (std::size_t at = out.find("<!--"); at != std::string::npos; at = out.find("<!--", at)) {
    const std::size_t end = out.find("-->", at);
    if (end == std::string::npos) break;
    std::size_t stop = end + 3;
    if (stop < out.size() && out[stop] == '\n') ++stop;
    out.erase(at, stop - at);
  }
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
.picture img { display: block; max-width: 100%; height: auto; }
details.zoom[open] + .picture { overflow-x: scroll; }
details.zoom[open] + .picture svg { max-width: none; }
)";

// Pictures wider than this (about 1200 px) can also be opened at full size.
constexpr double kPageWidthPoints = 900;

// What the page embeds (144 failing GEMMs made a 13.9 MB page): the first 20 pictures, at most
// 4 MiB of SVG; the others are files beside the page.
constexpr std::size_t kEmbeddedPictures = 20;
constexpr std::size_t kEmbeddedBytes = std::size_t{4} << 20;

enum class Category { failed, skipped, passed };

const char* category_class(Category category) {
  switch (category) {
    case Category::failed: return "failed";
    case Category::skipped: return "skipped";
    case Category::passed: return "passed";
  }
  return "";
}

// What the change costs (fprev/impact.hpp), shown beside the pictures: the one-line summary and a
// table of the first changed class pair's input sets; the full detail is in the text below.
std::string impact_html(const CaseResult& r) {
  if (!r.impact) return "";
  const TreeImpact& first = r.impact->changes.front().impact;
  std::ostringstream out;
  out << "<div class=\"impact\"><p><strong>" << escape(impact_line(*r.impact)) << "</strong></p>\n"
      << "<table><tr><th>inputs</th><th>differ</th><th>max ulp</th><th>median ulp</th>"
         "<th>max relative error golden &rarr; now</th></tr>\n";
  for (const ImpactSet& s : first.sets)
    out << "<tr><td>" << escape(s.name) << "</td><td>" << s.differing << " of " << s.inputs << "</td><td>" << s.max_ulp
        << "</td><td>" << s.median_ulp << "</td><td>" << s.old_max_relative_error << " &rarr; "
        << s.new_max_relative_error << "</td></tr>\n";
  out << "</table><p class=\"meta\">worst-case bound " << escape(bound_text(first.old_bound.h)) << " &rarr; "
      << escape(bound_text(first.new_bound.h)) << "; suggested relative tolerance " << r.impact->suggested_tolerance
      << " (the smallest covering every input tried; not a guarantee)</p></div>";
  return out.str();
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

class HtmlReporter final : public Reporter {
 public:
  // `pictures_dir`: where the pictures beyond what the page embeds go, named in links as
  // `pictures_link`/picture-N.svg; none (a page written to a stream): they are not drawn.
  HtmlReporter(std::ostream& out, std::size_t max_nodes, std::optional<std::filesystem::path> pictures_dir = {},
               std::string pictures_link = {})
      : out_(out), max_nodes_(max_nodes), pictures_dir_(std::move(pictures_dir)), pictures_link_(std::move(pictures_link)) {}

  void run_started(const RunInfo& info) override {
    command_ = info.command;
    policy_ = info.policy;
    if (info.excluded_by_label != 0) {
      left_out_ = std::to_string(info.excluded_by_label) + (info.excluded_by_label == 1 ? " case" : " cases") +
                  " left out by label (" + label_list(info.excluded_labels) + "), not counted above";
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
      if (entry.category == Category::failed) {
        for (const CasePicture& picture : case_pictures(result, max_nodes_))
          entry.pictures += picture_html(picture);
        entry.pictures += impact_html(result);
      }
    }
    entries_.push_back(std::move(entry));
  }

  void run_finished(const RunSummary& summary) override {
    std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    page += "<title>fprev-golden " + escape(command_) + ": " + escape(closing_line(summary.counts, describe_overrides(summary.environment_overrides))) + "</title>\n";
    page += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
    page += "<h1>fprev-golden " + escape(command_) + "</h1>\n";
    page += "<p class=\"meta\" id=\"closing-line\">" + escape(closing_line(summary.counts, describe_overrides(summary.environment_overrides))) +
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
  // One picture: embedded while the page's budget lasts, scaled to the page's width (both trees of
  // a diff in view, no scroll box), a wide one openable at full size (the same SVG: a <details>
  // before it switches its scaling off); past the budget a file beside the page, linked and loaded
  // lazily, or (no folder) not drawn.
  std::string picture_html(const CasePicture& picture) {
    const std::size_t index = pictures_++;
    std::string out = "<figure><figcaption>" + escape(picture.caption) + "</figcaption>";
    const bool embed = embedded_ < kEmbeddedPictures && embedded_bytes_ < kEmbeddedBytes;
    if (!embed && !pictures_dir_)
      return out + "<p class=\"meta\">Not drawn: the page embeds the first " + std::to_string(kEmbeddedPictures) +
             " pictures. <code>fprev-golden diff</code> of the golden and the pending result draws it.</p></figure>";
    const SvgResult svg = render_svg_from_dot(picture.dot);
    if (!svg.ok)
      return out + "<p class=\"meta\">No picture: " + escape(svg.error) + ". Its Graphviz DOT text:</p><pre>" +
             escape(picture.dot) + "</pre></figure>";
    if (embed) {
      const std::string inlined = inline_svg(svg.svg, "pic" + std::to_string(index) + "-");
      ++embedded_;
      embedded_bytes_ += inlined.size();
      if (svg_width_points(svg.svg) > kPageWidthPoints)
        out += "<details class=\"zoom\"><summary>the picture at full size</summary></details>";
      return out + "<div class=\"picture\">" + inlined + "</div></figure>";
    }
    const std::string name = "picture-" + std::to_string(index) + ".svg";
    std::filesystem::create_directories(*pictures_dir_);
    std::ofstream file(*pictures_dir_ / name, std::ios::binary | std::ios::trunc);
    file << escape_controls(svg.svg);
    if (!file.flush())
      return out + "<p class=\"meta\">No picture: cannot write " + escape((*pictures_dir_ / name).string()) +
             "</p></figure>";
    const std::string link = escape(pictures_link_ + "/" + name);
    return out + "<p class=\"meta\">Beyond the " + std::to_string(kEmbeddedPictures) +
           " pictures the page embeds: <a href=\"" + link + "\">" + link + "</a>, shown when scrolled to.</p>" +
           "<div class=\"picture\"><img loading=\"lazy\" src=\"" + link + "\" alt=\"" + escape(picture.caption) +
           "\"></div></figure>";
  }

  std::string summary_table(const std::vector<CaseResult>& results) const {
    std::string out = "<h2>Summary</h2>\n<table id=\"summary\">\n<tr><th>suite</th><th>backend</th><th>case</th>"
                      "<th>status</th><th>time</th><th>alignment</th><th>detail</th></tr>\n";
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
             time.str() + "</td><td>" + escape(alignment_cell(r)) + "</td><td>" + escape(case_detail(r)) +
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
  std::optional<std::filesystem::path> pictures_dir_;
  std::string pictures_link_;
  std::size_t pictures_ = 0;        // pictures of the page so far
  std::size_t embedded_ = 0;        // ... of them embedded
  std::size_t embedded_bytes_ = 0;  // their SVG
  std::string command_ = "check";
  SkipPolicy policy_;
  std::string left_out_;  // the cases --exclude-label left out, when there are any
  std::vector<Entry> entries_;
};

// report.html -> report-pictures, beside it.
std::filesystem::path pictures_folder(const std::filesystem::path& page) {
  return page.parent_path() / (page.stem().string() + "-pictures");
}

// The pictures an earlier report of the same name left (picture-N.svg; nothing else is touched),
// so the folder never shows a picture of another run.
void remove_old_pictures(const std::filesystem::path& folder) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("picture-") && name.ends_with(".svg")) std::filesystem::remove(entry.path(), error);
  }
}

// Owns the file it writes.
class HtmlFileReporter final : public Reporter {
 public:
  HtmlFileReporter(const std::string& path, std::size_t max_nodes)
      : path_(path),
        file_(path, std::ios::binary | std::ios::trunc),
        html_(file_, max_nodes, pictures_folder(path), pictures_folder(path).filename().string()) {
    if (!file_) throw UsageError("cannot write the HTML report " + path);
    remove_old_pictures(pictures_folder(path));
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
