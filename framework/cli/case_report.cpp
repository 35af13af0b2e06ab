#include "case_report.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

#include "fprev/diff.hpp"
#include "fprev/sexpr.hpp"
#include "fprev/summary.hpp"

namespace fprev::cli {
namespace {

std::string case_name(const CaseResult& r) {
  return "reproducibility/" + r.suite + "/" + r.backend + "/" + r.case_id;
}

std::string detail_of(const CaseResult& r) {
  switch (r.status) {
    case CaseStatus::passed:
    case CaseStatus::created:
    case CaseStatus::unchanged:
    case CaseStatus::changed:
    case CaseStatus::repaired:
      return r.revealed ? format_summary(summarize(*r.revealed)) : "";
    case CaseStatus::differs: {
      const TreeDiff d = diff_trees(r.golden->tree, *r.revealed);
      return std::to_string(d.agreeing_inner_nodes) + " of " + std::to_string(d.old_inner) +
             " inner nodes agree; now " + summarize(*r.revealed).description;
    }
    case CaseStatus::misbehaves:
      return r.diagnostic ? std::string(to_string(r.diagnostic->finding)) : "misbehaves";
    case CaseStatus::missing_golden:
      return "no golden for platform " + r.platform_key;
    case CaseStatus::unavailable:
    case CaseStatus::broken_golden:
      return r.message.substr(0, r.message.find('\n'));
  }
  return "";
}

// The golden's tree against the revealed one, indented under the case's line.
void print_indented_diff(std::ostream& out, const CaseResult& r, const char* old_name,
                         const char* new_name) {
  DiffLabels labels;
  labels.old_name = old_name;
  labels.new_name = new_name;
  labels.old_identity = golden_identity(r.golden->meta);
  labels.new_identity = identity_text(r.identity);
  labels.case_id = r.case_id;
  labels.platform_key = r.platform_key;
  std::istringstream text(render_diff_text(r.golden->tree, *r.revealed, labels));
  for (std::string line; std::getline(text, line);) out << "  " << line << "\n";
}

}  // namespace

std::string identity_text(const Identity& identity) {
  std::string text = identity.library;
  if (!identity.version.empty()) text += " " + identity.version;
  if (!identity.configuration.empty()) text += " (" + identity.configuration + ")";
  return text;
}

void print_case_details(std::ostream& out, const CaseResult& r, bool strict) {
  const std::string name = case_name(r);
  switch (r.status) {
    case CaseStatus::differs: {
      out << "FAILED " << name << ": the summation tree changed\n";
      print_indented_diff(out, r, "golden", "revealed");
      out << "  golden file: " << r.golden_path.string() << "\n";
      out << "  if the change is intended, accept it with:\n    "
          << update_command(r.suite, r.backend, r.case_id) << "\n";
      break;
    }
    case CaseStatus::misbehaves:
      out << "FAILED " << name << ": "
          << (r.diagnostic ? r.diagnostic->to_string() : std::string("the target misbehaves"))
          << "\n";
      break;
    case CaseStatus::broken_golden:
      out << "FAILED " << name << ": the golden file is unreadable: " << r.message << "\n";
      break;
    case CaseStatus::missing_golden:
      out << (strict ? "FAILED " : "SKIPPED ") << name << ": no golden for platform '"
          << r.platform_key << "' (" << identity_text(r.identity) << ")\n"
          << "  create it with: " << update_command(r.suite, r.backend, r.case_id) << "\n";
      break;
    case CaseStatus::unavailable:
      out << "SKIPPED " << name << ": backend unavailable here: " << r.message << "\n";
      break;
    case CaseStatus::changed:
      out << "CHANGED " << name << " (" << r.golden_path.string() << ")\n";
      if (r.golden && r.revealed) print_indented_diff(out, r, "old", "new");
      break;
    case CaseStatus::created:
      out << "CREATED " << name << " (" << r.golden_path.string() << ")\n";
      break;
    case CaseStatus::repaired:
      out << "REPAIRED " << name << " (" << r.golden_path.string() << ")\n";
      break;
    case CaseStatus::passed:
    case CaseStatus::unchanged:
      break;
  }
}

void print_summary_table(std::ostream& out, const std::vector<CaseResult>& results) {
  if (results.empty()) return;
  std::size_t w_suite = 5, w_backend = 7, w_case = 4, w_status = 6;
  for (const auto& r : results) {
    w_suite = std::max(w_suite, r.suite.size());
    w_backend = std::max(w_backend, r.backend.size());
    w_case = std::max(w_case, r.case_id.size());
    w_status = std::max(w_status, to_string(r.status).size());
  }
  out << std::left << std::setw(static_cast<int>(w_suite)) << "suite" << "  "
      << std::setw(static_cast<int>(w_backend)) << "backend" << "  "
      << std::setw(static_cast<int>(w_case)) << "case" << "  " << std::setw(static_cast<int>(w_status))
      << "status" << "  " << std::right << std::setw(8) << "time" << "  detail\n";
  for (const auto& r : results) {
    std::ostringstream time;
    time << std::fixed << std::setprecision(2) << r.seconds << "s";
    out << std::left << std::setw(static_cast<int>(w_suite)) << r.suite << "  "
        << std::setw(static_cast<int>(w_backend)) << r.backend << "  "
        << std::setw(static_cast<int>(w_case)) << r.case_id << "  "
        << std::setw(static_cast<int>(w_status)) << to_string(r.status) << "  " << std::right
        << std::setw(8) << time.str() << "  " << detail_of(r) << "\n";
  }
}

std::string closing_line(const std::vector<CaseResult>& results, bool strict) {
  std::size_t passed = 0, failed = 0, skipped = 0;
  std::map<std::string, std::size_t> updates;
  bool is_update = false;
  for (const auto& r : results) {
    switch (r.status) {
      case CaseStatus::created:
      case CaseStatus::changed:
      case CaseStatus::unchanged:
      case CaseStatus::repaired:
        is_update = true;
        ++updates[std::string(to_string(r.status))];
        ++passed;
        break;
      default:
        if (is_failure(r.status, strict)) ++failed;
        else if (is_skip(r.status, strict)) ++skipped;
        else ++passed;
    }
  }
  std::ostringstream os;
  if (is_update) {
    for (const char* key : {"created", "changed", "unchanged", "repaired"})
      if (updates.count(key) != 0) os << updates[key] << " " << key << ", ";
  }
  os << passed << " passed, " << failed << " failed, " << skipped << " skipped";
  return os.str();
}

Json case_to_json(const CaseResult& r, bool strict) {
  Json j = Json::object();
  j.set("test", case_name(r))
      .set("suite", r.suite)
      .set("backend", r.backend)
      .set("case", r.case_id)
      .set("status", std::string(to_string(r.status)))
      .set("failed", is_failure(r.status, strict))
      .set("skipped", is_skip(r.status, strict))
      .set("platform_key", r.platform_key)
      .set("golden_path", r.golden_path.string())
      .set("library", identity_text(r.identity))
      .set("target", r.target_description)
      .set("seconds", r.seconds);
  if (!r.message.empty()) j.set("message", r.message);
  if (r.revealed) {
    j.set("revealed", to_sexpr(*r.revealed));
    j.set("summary", summary_to_json(summarize(*r.revealed)));
  }
  if (r.golden) j.set("golden", metadata_to_json(r.golden->meta));
  if (r.status == CaseStatus::differs || (r.status == CaseStatus::changed && r.golden))
    j.set("diff", diff_to_json(diff_trees(r.golden->tree, *r.revealed)));
  if (r.diagnostic) {
    Json d = Json::object();
    d.set("finding", std::string(to_string(r.diagnostic->finding)))
        .set("message", r.diagnostic->message)
        .set("probe", r.diagnostic->probe)
        .set("likely_cause", r.diagnostic->likely_cause);
    if (r.diagnostic->raw_output) d.set("raw_output", *r.diagnostic->raw_output);
    if (r.diagnostic->variability)
      d.set("variability", Json::object()
                               .set("V_c", r.diagnostic->variability->count_variability)
                               .set("V_ermv", r.diagnostic->variability->ermv)
                               .set("runs", r.diagnostic->variability->runs));
    j.set("diagnostic", std::move(d));
  }
  j.set("stats", Json::object()
                     .set("probes", r.stats.probes)
                     .set("target_calls", r.stats.target_calls)
                     .set("target_seconds", r.stats.target_seconds)
                     .set("total_seconds", r.stats.total_seconds));
  return j;
}

void print_obsolete(std::ostream& out, const std::vector<GoldenLocation>& obsolete) {
  if (obsolete.empty()) return;
  out << obsolete.size() << " obsolete golden(s): no case of the suites refers to them any more\n";
  for (const auto& g : obsolete) out << "  " << g.path.string() << "\n";
  out << "  (delete them, or restore the cases)\n";
}

}  // namespace fprev::cli
