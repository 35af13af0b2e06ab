#include "case_text.hpp"

#include <algorithm>
#include <iomanip>
#include <optional>
#include <sstream>

#include "../accept_command.hpp"
#include "fprev/diff.hpp"
#include "fprev/impact.hpp"
#include "fprev/result_diff.hpp"
#include "fprev/summary.hpp"

namespace fprev::cli {
namespace {

constexpr const char* kTreeChanged = "the summation tree changed";
constexpr const char* kMapChanged = "the order map changed";
constexpr const char* kFindingChanged = "the recorded finding changed";
constexpr const char* kArithmeticChanged = "the arithmetic changed under the same summation tree";
constexpr const char* kAlignmentChanged = "the order's dependence on where the data lies changed";
constexpr const char* kInvarianceLost = "a recorded invariance was lost";
constexpr const char* kInvarianceChanged = "the invariance verdicts changed";
constexpr const char* kTargetMisbehaves = "the target misbehaves";
constexpr const char* kConfigurationRefused = "the suite's configuration is refused";
constexpr const char* kGoldenUnreadable = "the golden file is unreadable";
constexpr const char* kGoldenUnwritable = "the golden file could not be written";
constexpr const char* kMissingInStrictMode = "no golden for this platform and strict mode is on";
constexpr const char* kUnavailableInStrictMode = "the backend cannot run here and strict mode is on";
constexpr const char* kOverBudgetInStrictMode = "the case ran past its time budget and strict mode is on";
constexpr const char* kMissingUnderCi = "no golden for this platform and CI is set";
constexpr const char* kNoFingerprintInStrictMode =
    "the golden has no arithmetic fingerprint and strict mode is on";
constexpr const char* kNoVerdictWithGolden = "the case has a golden here but reached no verdict within its time budget";

// The tree is the golden's but the fingerprint is not.
bool fingerprint_changed(const CaseResult& r) {
  return r.fingerprint_change && !r.fingerprint_change->same();
}
bool arithmetic_only(const CaseResult& r) { return r.status == CaseStatus::differs && fingerprint_changed(r); }
// The order at offset 0 and the fingerprint are the golden's, its alignment result is not.
bool alignment_only(const CaseResult& r) {
  return r.status == CaseStatus::differs && r.alignment_differs && !fingerprint_changed(r) && r.golden &&
         same_orders(*r.golden, *golden_of(r, "-"));
}

// The order, fingerprint and alignment are the golden's; only invariance verdicts changed.
bool invariance_only(const CaseResult& r) {
  return r.status == CaseStatus::differs && !r.invariance_changes.empty() && !r.alignment_differs &&
         !fingerprint_changed(r) && r.golden && same_orders(*r.golden, *golden_of(r, "-"));
}

// "batch-invariant, not thread-invariant": the verdicts found now, for a summary's detail.
std::string invariance_verdicts(const CaseResult& r) {
  std::string out;
  for (const InvarianceResult& v : r.invariance) out += (out.empty() ? "" : ", ") + v.verdict_text();
  return out;
}

// What the case revealed, as a golden would record it (an order map or a finding).
std::optional<Golden> revealed_result(const CaseResult& r) { return golden_of(r, "-"); }

// "1000 leaves, depth 9, ..." for one tree, "order map: 2 classes of the 100 x 100 outputs", or
// "finding nondeterministic".
std::string result_text(const CaseResult& r) {
  // --prove-every-element (a grid): whether every element answered its tree's whole proof, or why not.
  std::string proof;
  if (r.stats.every_element_proven)
    proof = ", every element proven in full";
  else if (!r.stats.element_proof_skipped.empty())
    proof = " (not every element proven: " + r.stats.element_proof_skipped + ")";
  if (const Tree* tree = r.revealed_tree()) return format_summary(summarize(*tree)) + proof;
  if (r.revealed)
    return "order map: " + std::to_string(r.revealed->classes.size()) + " classes of the " +
           std::to_string(r.revealed->grid.rows) + " x " + std::to_string(r.revealed->grid.columns) + " outputs" +
           proof;
  if (r.diagnostic) return "finding " + std::string(to_string(r.diagnostic->finding));
  return "";
}

// How far "the same tree" is proven: an order map whose fingerprint disagreed was revealed again
// with every element's tree proven in full where that was affordable (RevealOptions::
// element_proof_summands); otherwise the sampled checks stand, and the report says so.
std::string trees_unchanged(const CaseResult& r) {
  if (r.stats.every_element_proven) return "tree unchanged at every element (each answered its tree's whole proof)";
  if (!r.stats.element_proof_skipped.empty())
    return "tree unchanged where checked (" + r.stats.element_proof_skipped +
           "; a change of order inside one element's tree is found by chance only)";
  return "tree unchanged";
}

std::string detail_of(const CaseResult& r) {
  if (arithmetic_only(r)) return trees_unchanged(r) + "; " + r.fingerprint_change->summary();
  if (alignment_only(r)) return alignment_change(*r.golden, *golden_of(r, "-"));
  if (invariance_only(r)) return r.invariance_changes.front();
  const std::string verdicts = r.invariance.empty() ? "" : "; " + invariance_verdicts(r);
  switch (r.status) {
    case CaseStatus::passed:
      if (r.golden && r.golden->is_finding()) return "the recorded finding persists: " + result_text(r);
      return result_text(r) + verdicts;
    case CaseStatus::created:
    case CaseStatus::unchanged:
    case CaseStatus::changed:
    case CaseStatus::repaired:
      return result_text(r) + verdicts;
    case CaseStatus::differs:
      return result_diff_summary(*r.golden, *revealed_result(r));
    case CaseStatus::misbehaves:
      if (r.configuration_error) return kConfigurationRefused;
      return r.diagnostic ? std::string(to_string(r.diagnostic->finding)) : "misbehaves";
    case CaseStatus::missing_golden:
      return "no golden for platform " + r.platform_key;
    case CaseStatus::unavailable:
    case CaseStatus::broken_golden:
    case CaseStatus::over_budget:
    case CaseStatus::unwritable:
      return r.message.substr(0, r.message.find('\n'));
  }
  return "";
}

// The golden's result against the revealed one, indented under the case's line.
void print_indented_diff(std::ostream& out, const CaseResult& r, const char* old_name,
                         const char* new_name) {
  DiffLabels labels;
  labels.old_name = old_name;
  labels.new_name = new_name;
  labels.old_identity = golden_identity(r.golden->meta);
  labels.new_identity = identity_text(r.identity);
  labels.case_id = r.case_id;
  labels.platform_key = r.platform_key;
  std::istringstream text(render_result_diff(*r.golden, *revealed_result(r), labels));
  for (std::string line; std::getline(text, line);) out << "  " << line << "\n";
}

// Which kind of change failed the case.
const char* changed_reason(const CaseResult& r) {
  if (arithmetic_only(r)) return kArithmeticChanged;
  if (alignment_only(r)) return kAlignmentChanged;
  if (invariance_only(r)) return r.invariance_lost ? kInvarianceLost : kInvarianceChanged;
  if (r.golden && r.golden->is_finding()) return kFindingChanged;
  if ((r.golden && !r.golden->is_single_tree()) || (r.revealed && !r.revealed->single_class())) return kMapChanged;
  return kTreeChanged;
}

void print_indented(std::ostream& out, const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
}

// What the change costs numerically: the one-line summary and its detail, indented.
void print_impact(std::ostream& out, const CaseResult& r) {
  if (!r.impact) return;
  out << "  " << impact_line(*r.impact) << "\n";
  for (const std::string& line : impact_detail_lines(*r.impact)) out << "    " << line << "\n";
}

// Where check kept the revealed result for review, or why it could not keep or remove it.
void print_pending(std::ostream& out, const CaseResult& r) {
  if (!r.pending_path.empty()) out << "  kept for review: " << r.pending_path.string() << "\n";
  if (!r.pending_error.empty())
    out << "warning: " << test_name(r) << ": its pending result was not kept or removed: " << r.pending_error
        << "\n";
}

}  // namespace

std::string case_detail(const CaseResult& result) { return detail_of(result); }

CaseCounts count_cases(const std::vector<CaseResult>& results, SkipPolicy policy) {
  CaseCounts counts;
  for (const auto& r : results) {
    switch (r.status) {
      case CaseStatus::created: ++counts.created; break;
      case CaseStatus::changed: ++counts.changed; break;
      case CaseStatus::unchanged: ++counts.unchanged; break;
      case CaseStatus::repaired: ++counts.repaired; break;
      default: break;
    }
    if (is_failure(r, policy)) ++counts.failed;
    else if (is_skip(r, policy)) ++counts.skipped;
    else ++counts.passed;
  }
  return counts;
}

std::string closing_line(const CaseCounts& c, const std::string& overrides) {
  std::ostringstream os;
  const std::pair<std::size_t, const char*> updates[] = {
      {c.created, "created"}, {c.changed, "changed"}, {c.unchanged, "unchanged"}, {c.repaired, "repaired"}};
  for (const auto& [count, word] : updates)
    if (count != 0) os << count << " " << word << ", ";
  os << c.passed << " passed, " << c.failed << " failed, " << c.skipped << " skipped";
  if (!overrides.empty()) os << " (environment overrides: " << overrides << ")";
  return os.str();
}

std::string identity_text(const Identity& identity) {
  std::string text = identity.library;
  if (!identity.version.empty()) text += " " + identity.version;
  if (!identity.configuration.empty()) text += " (" + identity.configuration + ")";
  return text;
}

std::string test_name(const CaseResult& r) {
  return "reproducibility/" + r.suite + "/" + r.backend + "/" + r.case_id;
}

std::string failure_reason(const CaseResult& r, SkipPolicy policy) {
  if (!is_failure(r, policy)) return "";
  switch (r.status) {
    case CaseStatus::differs: return changed_reason(r);
    case CaseStatus::misbehaves:
      if (r.configuration_error) return kConfigurationRefused;
      return r.diagnostic ? std::string(kTargetMisbehaves) + ": " + std::string(to_string(r.diagnostic->finding))
                          : kTargetMisbehaves;
    case CaseStatus::broken_golden: return kGoldenUnreadable;
    case CaseStatus::unwritable: return kGoldenUnwritable;
    case CaseStatus::passed: return kNoFingerprintInStrictMode;
    case CaseStatus::missing_golden: return policy.strict ? kMissingInStrictMode : kMissingUnderCi;
    case CaseStatus::unavailable: return kUnavailableInStrictMode;
    case CaseStatus::over_budget: return r.golden ? kNoVerdictWithGolden : kOverBudgetInStrictMode;
    default: return std::string(to_string(r.status));
  }
}

std::vector<std::string> all_failure_reasons() {
  std::vector<std::string> reasons = {kTreeChanged,      kMapChanged,       kFindingChanged,
                                      kArithmeticChanged, kAlignmentChanged, kInvarianceLost, kInvarianceChanged,
                                      kGoldenUnreadable, kGoldenUnwritable,
                                      kNoFingerprintInStrictMode, kMissingInStrictMode, kMissingUnderCi,
                                      kUnavailableInStrictMode, kOverBudgetInStrictMode, kNoVerdictWithGolden,
                                      kConfigurationRefused};
  // Every finding by name, then the bare phrase, which also covers findings added later.
  for (int f = 0; f <= static_cast<int>(Finding::target_fault); ++f)
    reasons.push_back(std::string(kTargetMisbehaves) + ": " +
                      std::string(to_string(static_cast<Finding>(f))));
  reasons.push_back(kTargetMisbehaves);
  return reasons;
}

namespace {

// The application's call sites of a traced case (docs/trace.md): which of its calls changed.
void print_call_sites(std::ostream& out, const CaseResult& r) {
  if (r.call_sites.empty()) return;
  out << "  the application makes this call at:\n";
  for (const std::string& site : r.call_sites) out << "    " << site << "\n";
}

}  // namespace

void print_case_details(std::ostream& out, const CaseResult& r, SkipPolicy policy,
                        const std::string& accept_command) {
  const std::string name = test_name(r);
  const std::string reason = failure_reason(r, policy);
  const bool fails = !reason.empty();
  switch (r.status) {
    case CaseStatus::differs:
      out << "FAILED " << name << ": " << reason << "\n";
      if (arithmetic_only(r))
        out << "  " << trees_unchanged(r) << "; " << r.fingerprint_change->summary() << "\n"
            << "  golden: " << golden_identity(r.golden->meta) << "; now: " << identity_text(r.identity) << "\n";
      else if (alignment_only(r))
        out << "  order at offset 0 unchanged; " << alignment_change(*r.golden, *revealed_result(r)) << "\n"
            << "  golden: " << golden_identity(r.golden->meta) << "; now: " << identity_text(r.identity) << "\n";
      else if (invariance_only(r)) {
        out << "  order unchanged; invariance:\n";
        for (const std::string& change : r.invariance_changes) out << "    " << change << "\n";
        for (const InvarianceResult& v : r.invariance) {
          std::istringstream lines(v.difference_text());
          for (std::string line; std::getline(lines, line);) out << "    " << line << "\n";
        }
        out << "  golden: " << golden_identity(r.golden->meta) << "; now: " << identity_text(r.identity) << "\n";
      } else
        print_indented_diff(out, r, "golden", "revealed");
      print_call_sites(out, r);
      if (r.alignment_differs && !alignment_only(r))
        out << "  " << alignment_change(*r.golden, *revealed_result(r)) << "\n";
      print_impact(out, r);
      out << "  golden file: " << r.golden_path.string() << "\n";
      out << "  if the change is intended, accept it with:\n    " << accept_command << "\n";
      break;
    case CaseStatus::misbehaves:
      out << "FAILED " << name << ": " << reason << "\n";
      print_indented(out, r.diagnostic ? r.diagnostic->to_string() : r.message);
      print_call_sites(out, r);
      if (r.fingerprint_change)
        out << "  measured with the golden's tree: " << r.fingerprint_change->summary() << "\n";
      print_impact(out, r);
      if (!accept_command.empty()) {
        out << (r.golden ? "  the golden holds an order; if this misbehaviour is the expected baseline, record it with:\n    "
                         : "  there is no golden; if this misbehaviour is the expected baseline, record it with:\n    ")
            << accept_command << "\n";
      }
      break;
    case CaseStatus::unwritable:
      out << "FAILED " << name << ": " << reason << "\n  " << r.message << "\n"
          << "  the golden there (if any) was left as it was\n";
      break;
    case CaseStatus::broken_golden:
      out << "FAILED " << name << ": " << reason << "\n  " << r.message << "\n"
          << "  restore it from version control, or re-create it with:\n    " << accept_command
          << "\n";
      break;
    case CaseStatus::missing_golden:
      out << (fails ? "FAILED " : "SKIPPED ") << name << ": "
          << (fails ? reason + ": " : std::string()) << "no golden for platform '" << r.platform_key
          << "' (" << identity_text(r.identity) << ")\n";
      if (!r.other_platforms.empty()) {
        out << "  goldens of this case exist for other platform keys: ";
        for (std::size_t i = 0; i < r.other_platforms.size(); ++i) out << (i ? ", " : "") << r.other_platforms[i];
        out << "\n  (the key is what decides the order here; see fprev-golden env)\n";
      }
      out << "  create it with: " << accept_command << "\n"
          << "  or record every case of the suite with: " << AcceptCommand::for_whole_suite(accept_command) << "\n";
      break;
    case CaseStatus::unavailable:
      out << (fails ? "FAILED " + name + ": " + reason + ": " : "SKIPPED " + name + ": backend unavailable here: ")
          << r.message << "\n";
      break;
    case CaseStatus::over_budget:
      out << (fails ? "FAILED " + name + ": " + reason + ": " : "OVER BUDGET " + name + ": ") << r.message
          << "\n  nothing was compared; give it more time with --max-seconds or the case's max_seconds, or run it "
             "where it is faster (more cores: --streams)\n";
      break;
    case CaseStatus::changed:
      out << "CHANGED " << name << " (" << r.golden_path.string() << ")\n";
      if (fingerprint_changed(r))
        out << "  " << trees_unchanged(r) << "; " << r.fingerprint_change->summary() << "\n";
      else if (r.golden && same_orders(*r.golden, *revealed_result(r)))
        out << "  order unchanged; arithmetic fingerprint added or the golden rewritten in the current format\n";
      else if (r.golden)
        print_indented_diff(out, r, "old", "new");
      print_impact(out, r);
      break;
    case CaseStatus::created:
      out << "CREATED " << name << " (" << r.golden_path.string() << ")\n";
      if (!r.revealed && r.diagnostic)
        out << "  recorded the finding " << to_string(r.diagnostic->finding) << " as the baseline: "
            << r.diagnostic->message.substr(0, r.diagnostic->message.find('\n')) << "\n";
      break;
    case CaseStatus::repaired:
      out << "REPAIRED " << name << " (" << r.golden_path.string() << ")\n";
      break;
    case CaseStatus::passed:
      if (passed_without_fingerprint(r))
        out << (fails ? "FAILED " + name + ": " + reason + ": " : "NOTE " + name + ": ")
            << "the golden has no arithmetic fingerprint (an older file), so only its order was compared and a "
               "change of the arithmetic would go unseen; add one with:\n    "
            << accept_command << "\n";
      break;
    case CaseStatus::unchanged:
      break;
  }
  print_pending(out, r);
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
  const auto column = [&](const std::string& text, std::size_t width) {
    out << std::left << std::setw(static_cast<int>(width)) << text << "  ";
  };
  column("suite", w_suite);
  column("backend", w_backend);
  column("case", w_case);
  column("status", w_status);
  out << std::right << std::setw(8) << "time" << "  detail\n";
  for (const auto& r : results) {
    std::ostringstream time;
    time << std::fixed << std::setprecision(2) << r.seconds << "s";
    column(r.suite, w_suite);
    column(r.backend, w_backend);
    column(r.case_id, w_case);
    column(std::string(to_string(r.status)), w_status);
    out << std::right << std::setw(8) << time.str() << "  " << detail_of(r) << "\n";
  }
}

bool obsolete_fails(const std::vector<ObsoleteGolden>& obsolete, UnreferencedPolicy policy) {
  switch (policy) {
    case UnreferencedPolicy::warn: return false;
    case UnreferencedPolicy::fail: return !obsolete.empty();
    case UnreferencedPolicy::remove:
      return std::any_of(obsolete.begin(), obsolete.end(), [](const ObsoleteGolden& g) { return !g.deleted; });
  }
  return false;
}

void print_obsolete(std::ostream& out, const std::vector<ObsoleteGolden>& obsolete, UnreferencedPolicy policy) {
  if (obsolete.empty()) return;
  if (policy == UnreferencedPolicy::remove) {
    const auto deleted = static_cast<std::size_t>(
        std::count_if(obsolete.begin(), obsolete.end(), [](const ObsoleteGolden& g) { return g.deleted; }));
    if (deleted != 0) {
      out << "deleted " << deleted << " obsolete golden(s): no case of the suites referred to them any more\n";
      for (const auto& g : obsolete)
        if (g.deleted) out << "  " << g.location.path.string() << "\n";
    }
    if (deleted != obsolete.size()) {
      out << "FAILED: kept " << obsolete.size() - deleted
          << " obsolete golden(s) that --unreferenced=delete cannot delete safely:\n";
      for (const auto& g : obsolete)
        if (!g.deleted) out << "  " << g.location.path.string() << ": " << g.kept_because << "\n";
    }
    return;
  }
  out << (policy == UnreferencedPolicy::fail ? "FAILED: " : "") << obsolete.size()
      << " obsolete golden(s): no case of the suites refers to them any more"
      << (policy == UnreferencedPolicy::fail ? " (--unreferenced=fail)" : "") << "\n";
  for (const auto& g : obsolete) out << "  " << g.location.path.string() << "\n";
  out << "  (delete them, or restore the cases; check --unreferenced=delete deletes them)\n";
}


}  // namespace fprev::cli
