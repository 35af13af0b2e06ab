// The invariance contracts of one suite case (Runner::check_case_invariance), apart from the runner so that what it does with them stays in
// one place (as gate/alignment_case.hpp does for the placement case).
#pragma once

#include <string>
#include <vector>

#include "fprev/invariance.hpp"
#include "fprev/runner.hpp"

namespace fprev::detail {

// Runs check_invariance() for every contract of `c` against the order revealed or confirmed
// (result.revealed), with `known_info` the description of a target of the case (none is held
// meanwhile: the variants of a case parameter use the instance's workers), into result.invariance and
// result.invariance_stats; `open_variant` opens the instances of setting variants (the runner keeps
// them for the run), `claim_cores` takes the cores for the calls of a variant of several threads
// (make_invariance_variants). A variant that misbehaves, cannot run here or cannot be compared sets
// the status (misbehaves, over_budget) and the diagnostic naming the variant, and returns false:
// never a verdict.
bool invariance_of_case(const Backend& backend, const BackendInstance& instance, const Params& settings,
                        const SuiteCase& c, const TargetInfo& known_info, const RevealOptions& options,
                        CaseResult& result,
                        const InstanceOpener& open_variant = nullptr, const CoreClaim& claim_cores = nullptr);

}  // namespace fprev::detail
