// The invariance contracts of one suite case: variants made, checked and their failures named.
#include "gate/invariance_case.hpp"

#include "gate/case_failure.hpp"

namespace fprev::detail {

bool invariance_of_case(const Backend& backend, const BackendInstance& instance, const Params& settings,
                        const SuiteCase& c, const TargetInfo& known_info, const RevealOptions& options,
                        CaseResult& result,
                        const InstanceOpener& open_variant, const CoreClaim& claim_cores) {
  result.invariance.clear();
  result.invariance_stats.clear();
  std::string at;
  try {
    for (const InvarianceRequest& request : c.invariant) {
      at = "invariance over " + request.parameter + ": ";
      const std::string known = invariance_known_value(backend, instance, settings, c.params, request.parameter);
      const std::vector<InvarianceVariant> variants =
          make_invariance_variants(backend, instance, settings, c.params, request.parameter, request.values, known,
                                   open_variant, claim_cores);
      InvarianceStats stats;
      result.invariance.push_back(
          check_invariance(request.parameter, request.values, {known, known_info, &*result.revealed}, variants, options, &stats));
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
    fail_case(result, Finding::unsupported, at + e.what());
  } catch (const ConfigError& e) {
    fail_case_on_configuration(result, at + e.what());
  } catch (const InvarianceError& e) {
    fail_case_on_configuration(result, at + e.what());
  } catch (const TargetFault& e) {
    fail_case(result, Finding::target_fault, at + e.what());
    result.diagnostic->likely_cause = e.likely_cause();
  } catch (const TargetError& e) {
    fail_case(result, Finding::target_error, at + e.what());
  }
  result.invariance.clear();
  result.invariance_stats.clear();
  return false;
}

}  // namespace fprev::detail
