#include "gate/invariance_case.hpp"

#include <map>

namespace fprev::detail {
namespace {

void fail_with(CaseResult& result, Finding finding, const std::string& message) {
  result.status = CaseStatus::misbehaves;
  Diagnostic d;
  d.finding = finding;
  d.message = message;
  result.diagnostic = d;
}

std::string values_part(const InvarianceResult& r) {
  const std::string summary = r.summary();
  return summary.substr(r.verdict_text().size() + 1, summary.find(')') - r.verdict_text().size());
}

}  // namespace

bool invariance_of_case(const Backend& backend, const BackendInstance& instance, const Params& settings,
                        const SuiteCase& c, Target& target, const RevealOptions& options, CaseResult& result) {
  result.invariance.clear();
  result.invariance_stats.clear();
  std::string at;
  try {
    for (const InvarianceRequest& request : c.invariant) {
      at = "invariance over " + request.parameter + ": ";
      const std::string known = invariance_known_value(backend, instance, settings, c.params, request.parameter);
      const std::vector<InvarianceVariant> variants =
          make_invariance_variants(backend, instance, settings, c.params, request.parameter, request.values, known);
      InvarianceStats stats;
      result.invariance.push_back(
          check_invariance(request.parameter, request.values, {known, &target, &*result.revealed}, variants, options, &stats));
      result.invariance_stats.push_back(stats);
    }
    return true;
  } catch (const RevealOverBudget& e) {
    result.status = CaseStatus::over_budget;
    result.message = at + e.what();
  } catch (const RevealFailure& e) {
    result.status = CaseStatus::misbehaves;
    result.diagnostic = e.diagnostic();
  } catch (const BackendUnavailable& e) {  // a variant's setting this host or library cannot run
    fail_with(result, Finding::unsupported, at + e.what());
  } catch (const ConfigError& e) {
    fail_with(result, Finding::unsupported, at + e.what());
  } catch (const InvarianceError& e) {
    fail_with(result, Finding::unsupported, at + e.what());
  } catch (const TargetFault& e) {
    fail_with(result, Finding::target_fault, at + e.what());
    result.diagnostic->likely_cause = e.likely_cause();
  } catch (const TargetError& e) {
    fail_with(result, Finding::target_error, at + e.what());
  }
  result.invariance.clear();
  result.invariance_stats.clear();
  return false;
}

std::vector<std::string> invariance_changes(const std::vector<InvarianceResult>& recorded,
                                            const std::vector<InvarianceResult>& now, bool& lost) {
  lost = false;
  std::map<std::string, std::pair<const InvarianceResult*, const InvarianceResult*>> by_parameter;
  for (const InvarianceResult& r : recorded) by_parameter[r.parameter].first = &r;
  for (const InvarianceResult& r : now) by_parameter[r.parameter].second = &r;
  std::vector<std::string> out;
  for (const auto& [parameter, pair] : by_parameter) {
    const auto [before, after] = pair;
    if (before == nullptr) {
      out.push_back("invariance over " + parameter + " is not recorded in the golden: now " + after->summary() +
                    "; update records it");
    } else if (after == nullptr) {
      out.push_back("the golden records '" + before->summary() + "', which the suite no longer asks for; update removes it");
    } else if (*before == *after) {
      continue;
    } else if (before->values != after->values) {
      out.push_back("invariance over " + parameter + " is asked for other values: the golden records '" +
                    before->summary() + "', now '" + after->summary() + "'");
      lost = lost || (before->invariant && !after->invariant);
    } else if (before->invariant && !after->invariant) {
      lost = true;
      out.push_back("no longer " + invariance_level(parameter) + ": " + after->explanation());
    } else if (!before->invariant && after->invariant) {
      out.push_back("now " + invariance_level(parameter) + " " + values_part(*after) +
                    ", a change to review: the golden records " + before->explanation());
    } else {
      out.push_back("still not " + invariance_level(parameter) + ", with another counterexample: " + after->explanation() +
                    " (the golden: " + before->explanation() + ")");
    }
  }
  return out;
}

}  // namespace fprev::detail
