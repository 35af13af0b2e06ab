#include "review_session.hpp"

#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>

#include "fprev/diff.hpp"
#include "fprev/render.hpp"
#include "fprev/impact.hpp"
#include "fprev/result_diff.hpp"
#include "fprev/summary.hpp"

namespace fprev::cli {
namespace {

constexpr const char* kPrompt = "accept [a], reject [r], skip [s], picture [p], diff [d], quit [q], help [?] > ";
constexpr const char* kHelp =
    "  a  accept: write the pending result as the golden (atomically) and remove the pending file\n"
    "  r  reject: remove the pending file; the golden stays as it is\n"
    "  s  skip: leave it pending and go to the next\n"
    "  p  picture: write a drawing of the change (SVG; DOT without Graphviz) and print its path\n"
    "  d  diff: show this result again\n"
    "  q  quit: leave this and the remaining results pending\n";

// The golden the pending result would replace, as it is now.
struct GoldenNow {
  bool exists = false;
  std::optional<Golden> golden;  // when it exists and parses
  std::string error;             // when it exists and does not parse
};

GoldenNow read_golden_now(const PendingFile& file) {
  GoldenNow now;
  std::error_code error;
  now.exists = std::filesystem::exists(file.golden_path, error);
  if (!now.exists) return now;
  try {
    now.golden = read_golden(file.golden_path);
  } catch (const std::exception& e) {  // GoldenParseError, GoldenIoError
    now.error = e.what();
  }
  return now;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string change_text(const PendingFile& file, const GoldenNow& now, const Golden& pending) {
  if (!now.exists) return "no golden yet: accepting creates " + file.golden_path.string();
  if (!now.golden) return "the golden does not parse: accepting replaces it (" + first_line(now.error) + ")";
  const Golden& golden = *now.golden;
  if (same_result(golden, pending)) return "the golden already holds this result: accepting leaves it as it is";
  if (!same_orders(golden, pending)) {
    const std::string summary = result_diff_summary(golden, pending);
    if (golden.finding) return "the recorded finding changed: " + summary;
    if (pending.finding) return "the target misbehaves: " + summary;
    if (golden.is_single_tree() && pending.is_single_tree()) return "the summation tree changed: " + summary;
    return "the order map changed: " + summary;
  }
  const auto change = compare_result_fingerprints(golden, pending);
  if (!change) return "the golden has no arithmetic fingerprint: accepting adds one";
  return "the arithmetic changed under the same summation tree: " + change->summary();
}

// What a result records, for a golden that does not exist yet (or does not parse).
std::string result_lines(const Golden& result) {
  if (result.finding)
    return "result:  finding " + std::string(to_string(result.finding->finding)) + ": " +
           first_line(result.finding->message) + "\n";
  if (result.is_single_tree()) return "result:  " + format_summary(summarize(result.tree())) + "\n";
  std::string out = "result:  an order map of " + std::to_string(result.map.classes.size()) + " classes\n";
  for (const std::string& line : describe_map(result.map)) out += "  " + line + "\n";
  return out;
}

void print_indented(std::ostream& out, const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
}

std::string lowercase_trimmed(std::string text) {
  const auto blank = [](unsigned char c) { return std::isspace(c) != 0; };
  text.erase(text.begin(), std::find_if_not(text.begin(), text.end(), blank));
  text.erase(std::find_if_not(text.rbegin(), text.rend(), blank).base(), text.end());
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string picture_name(const PendingFile& file, const char* extension) {
  const GoldenLocation& l = file.location;
  return l.platform_key + "_" + l.suite + "_" + l.backend + "_" + l.case_id + extension;
}

bool write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  return static_cast<bool>(file);
}

}  // namespace

std::string review_summary(const ReviewCounts& c) {
  std::string text = std::to_string(c.accepted) + " accepted, " + std::to_string(c.rejected) + " rejected, " +
                     std::to_string(c.left) + " left pending";
  if (c.failed != 0) text += ", " + std::to_string(c.failed) + " failed";
  return text;
}

std::string pending_change(const PendingFile& file, const Golden& pending) {
  return change_text(file, read_golden_now(file), pending);
}

ReviewSession::ReviewSession(const PendingStore& store, std::istream& in, std::ostream& out, ReviewSettings settings)
    : store_(store), in_(in), out_(out), settings_(std::move(settings)) {}

ReviewCounts ReviewSession::run(const std::vector<PendingFile>& files) {
  ReviewCounts counts;
  for (std::size_t k = 0; k < files.size(); ++k) {
    switch (review(files[k], k + 1, files.size())) {
      case Verdict::accepted: ++counts.accepted; break;
      case Verdict::rejected: ++counts.rejected; break;
      case Verdict::left: ++counts.left; break;
      case Verdict::failed: ++counts.failed; break;
      case Verdict::quit:
        counts.left += files.size() - k;
        counts.failed += failures_;
        out_ << "the remaining " << files.size() - k << " pending result(s) stay pending\n";
        return counts;
    }
  }
  counts.failed += failures_;
  return counts;
}

void ReviewSession::show(const PendingFile& file, const Golden& pending, std::size_t index, std::size_t total) {
  const GoldenLocation& l = file.location;
  const GoldenNow now = read_golden_now(file);
  out_ << "\n[" << index << "/" << total << "] reproducibility/" << l.suite << "/" << l.backend << "/" << l.case_id
       << " on platform " << l.platform_key << "\n";
  out_ << "  " << change_text(file, now, pending) << "\n";
  out_ << "  golden:  "
       << (now.golden   ? golden_identity(now.golden->meta) + " (" + file.golden_path.string() + ")"
           : now.exists ? file.golden_path.string() + " (does not parse)"
                        : std::string("none"))
       << "\n";
  out_ << "  pending: " << golden_identity(pending.meta) << ", kept by check at " << pending.meta.created << "\n";
  try {
    if (store_.golden_changed_since(file, pending))
      out_ << "  note: the golden changed since check kept this result: run check again to compare with it, or "
              "accept with --force\n";
  } catch (const GoldenIoError& e) {  // accepting will say so too
    out_ << "  note: " << e.what() << "\n";
  }
  if (now.golden && !same_result(*now.golden, pending)) {
    if (!same_orders(*now.golden, pending)) {
      DiffLabels labels;
      labels.old_name = "golden";
      labels.new_name = "pending";
      print_indented(out_, render_result_diff(*now.golden, pending, labels));
    } else if (const auto change = compare_result_fingerprints(*now.golden, pending)) {
      out_ << "  tree unchanged; arithmetic: " << change->summary() << "\n";
    }
    // What the change costs numerically (a pending result records no formats: they are inferred).
    if (const auto impact = result_impact(*now.golden, pending)) {
      out_ << "  " << impact_line(*impact) << "\n";
      for (const std::string& line : impact_detail_lines(*impact)) out_ << "    " << line << "\n";
    }
  } else if (!now.golden) {
    print_indented(out_, result_lines(pending));
  }
  out_ << "  pending file: " << l.path.string() << "\n";
}

ReviewSession::~ReviewSession() {
  if (temporary_pictures_.empty()) return;
  std::error_code error;  // nothing to do about a failure here; the directory is a temporary one
  std::filesystem::remove_all(temporary_pictures_, error);
}

std::filesystem::path ReviewSession::picture_directory() {
  if (!settings_.picture_directory.empty()) {
    std::error_code error;
    std::filesystem::create_directories(settings_.picture_directory, error);
    return error ? std::filesystem::path() : settings_.picture_directory;
  }
  if (!temporary_pictures_.empty()) return temporary_pictures_;
  std::string pattern = (std::filesystem::temp_directory_path() / "fprev-golden-review-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return {};
  temporary_pictures_ = pattern;
  return temporary_pictures_;
}

void ReviewSession::picture(const PendingFile& file, const Golden& pending) {
  const GoldenNow now = read_golden_now(file);
  std::optional<std::string> dot;
  const GoldenLocation& l = file.location;
  const std::string title = "case " + l.case_id + " (suite " + l.suite + ", backend " + l.backend + ") on platform " +
                            l.platform_key;
  if (now.golden && !now.golden->finding && !pending.finding) {
    DiffLabels labels;
    labels.old_name = "golden";
    labels.new_name = "pending";
    labels.old_identity = golden_identity(now.golden->meta);
    labels.new_identity = golden_identity(pending.meta);
    labels.case_id = l.case_id;
    labels.platform_key = l.platform_key;
    dot = result_diff_dot(*now.golden, pending, labels, settings_.max_nodes);
  } else {
    dot = result_dot(pending, "pending: " + title, settings_.max_nodes);
  }
  if (!dot) {
    out_ << "  nothing to draw: " << (pending.finding ? "the pending result records a finding, no tree"
                                                      : "the golden records a finding, no tree")
         << "\n";
    return;
  }
  const std::filesystem::path directory = picture_directory();
  if (directory.empty()) {
    out_ << "  cannot make a directory for the picture under "
         << (settings_.picture_directory.empty() ? std::filesystem::temp_directory_path() : settings_.picture_directory)
                .string()
         << "\n";
    return;
  }
  const SvgResult svg = render_svg_from_dot(*dot);
  const std::filesystem::path path = directory / picture_name(file, svg.ok ? ".svg" : ".dot");
  if (!write_text(path, svg.ok ? svg.svg : *dot)) {
    out_ << "  cannot write " << path.string() << "\n";
    return;
  }
  if (svg.ok)
    out_ << "  picture: " << path.string() << "\n";
  else
    out_ << "  no SVG (" << svg.error << "); the picture's Graphviz DOT text: " << path.string() << "\n";
  if (settings_.picture_directory.empty())
    out_ << "  (removed when review ends; review --picture-dir DIR keeps the pictures)\n";
}

bool ReviewSession::read_answer(std::string& answer) {
  out_ << kPrompt << std::flush;
  std::string line;
  if (!std::getline(in_, line)) {
    out_ << "\n";
    return false;
  }
  if (settings_.echo) out_ << line << "\n";
  answer = lowercase_trimmed(line);
  return true;
}

ReviewSession::Verdict ReviewSession::review(const PendingFile& file, std::size_t index, std::size_t total) {
  Golden pending;
  try {
    pending = store_.read(file);
  } catch (const PendingError& e) {
    out_ << "\n[" << index << "/" << total << "] cannot review " << file.location.path.string() << ": " << e.what()
         << "\n  (fprev-golden reject removes it)\n";
    return Verdict::failed;
  }
  show(file, pending, index, total);
  for (;;) {
    std::string answer;
    if (!read_answer(answer)) {
      out_ << "end of input\n";
      return Verdict::quit;
    }
    if (answer == "a" || answer == "accept") {
      try {
        const StoreOutcome outcome = store_.accept(file, settings_.force);
        out_ << "  accepted: " << file.golden_path.string() << " " << to_string(outcome) << "\n";
        return Verdict::accepted;
      } catch (const std::exception& e) {  // PendingError, GoldenIoError: nothing was changed
        out_ << "  not accepted: " << e.what() << "\n";
        ++failures_;
      }
    } else if (answer == "r" || answer == "reject") {
      try {
        store_.reject(file);
        out_ << "  rejected: removed " << file.location.path.string() << "\n";
        return Verdict::rejected;
      } catch (const std::exception& e) {
        out_ << "  not rejected: " << e.what() << "\n";
        ++failures_;
      }
    } else if (answer == "s" || answer == "skip") {
      return Verdict::left;
    } else if (answer == "p" || answer == "picture") {
      picture(file, pending);
    } else if (answer == "d" || answer == "diff") {
      show(file, pending, index, total);
    } else if (answer == "q" || answer == "quit") {
      return Verdict::quit;
    } else if (!answer.empty()) {
      out_ << (answer == "?" || answer == "h" || answer == "help" ? "" : "  unknown answer '" + answer + "'\n")
           << kHelp;
    }
  }
}

}  // namespace fprev::cli
