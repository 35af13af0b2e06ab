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

}  // namespace fprev::detail
