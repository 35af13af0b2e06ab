// A case that cannot be revealed (or checked) for a reason outside the engine's own findings: the
// runner and the checks beside it (gate/invariance_case.hpp) say so the same way.
#pragma once

#include <string>

#include "fprev/runner.hpp"

namespace fprev::detail {

inline void fail_case(CaseResult& result, Finding finding, const std::string& message) {
  result.status = CaseStatus::misbehaves;
  Diagnostic d;
  d.finding = finding;
  d.message = message;
  result.diagnostic = d;
}

// A failure the suite's configuration causes (CaseResult::configuration_error): reported as the
// engine's `unsupported` finding, and the run ends with the configuration error's exit status.
inline void fail_case_on_configuration(CaseResult& result, const std::string& message) {
  fail_case(result, Finding::unsupported, message);
  result.configuration_error = true;
}

}  // namespace fprev::detail
