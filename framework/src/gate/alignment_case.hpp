// The alignment check of one suite case (Runner::check_case_alignment), apart from the runner so
// that what it does with the result stays in one place.
#pragma once

#include "fprev/runner.hpp"

namespace fprev::detail {

// Runs check_alignment() on `target` (a fresh target of the case) against the order revealed or
// confirmed at offset 0 (result.revealed), into result.alignment and result.alignment_stats. A
// misbehaviour at some placement sets the status (misbehaves, over_budget) and the diagnostic,
// and returns false.
bool alignment_of_case(Target& target, const RevealOptions& options, CaseResult& result);

}  // namespace fprev::detail
