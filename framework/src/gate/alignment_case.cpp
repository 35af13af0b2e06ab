#include "gate/alignment_case.hpp"

namespace fprev::detail {

bool alignment_of_case(Target& target, const RevealOptions& options, CaseResult& result) {
  try {
    result.alignment = check_alignment(target, *result.revealed, options, &result.alignment_stats);
    return true;
  } catch (const RevealOverBudget& e) {
    result.status = CaseStatus::over_budget;
    result.message = std::string("alignment check: ") + e.what();
  } catch (const RevealFailure& e) {
    result.status = CaseStatus::misbehaves;
    result.diagnostic = e.diagnostic();
  } catch (const TargetError& e) {
    result.status = CaseStatus::misbehaves;
    Diagnostic d;
    d.finding = Finding::target_error;
    d.message = std::string("alignment check: ") + e.what();
    result.diagnostic = d;
  }
  result.alignment.reset();
  return false;
}

}  // namespace fprev::detail
