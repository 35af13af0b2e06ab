// The target calls of one case, part by part: what a reveal command or a gate case cost in calls
// into the library (docs/json.md, "target_calls"). RevealStats::target_calls keeps its meaning (the
// reveal's or confirmation's calls, its verification included); these parts split it and add the
// calls of the parts that run after it, so that their total is every call the target received.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "fprev/alignment.hpp"
#include "fprev/fingerprint.hpp"
#include "fprev/invariance.hpp"
#include "fprev/reveal.hpp"

namespace fprev {

struct TargetCalls {
  std::size_t reveal = 0;           // the reveal (or confirmation) until its tree or map was found
  std::size_t verification = 0;     // the reveal's checks of the found tree (RevealStats::verification_calls)
  std::size_t placement_proof = 0;  // the alignment check: proofs and reveals at other offsets
  std::size_t fingerprint = 0;      // the arithmetic fingerprint's fixed sets and fact experiments
  // The invariance contracts: the proofs and reveals of the variants (other m, threads, runs), on
  // their own targets.
  std::size_t invariance = 0;
  // The gate's calls besides: its cost estimate's timing calls, and a confirmation of the golden
  // that failed before the reveal ran (CaseResult::other_target_calls). 0 for `reveal`.
  std::size_t other = 0;
  std::size_t total() const { return reveal + verification + placement_proof + fingerprint + invariance + other; }
};

// The parts from the stats of each; a part that did not run (nullptr, no invariance stats) counts 0.
TargetCalls count_target_calls(const RevealStats& reveal, const AlignmentStats* alignment,
                               const FingerprintStats* fingerprint, std::size_t other = 0,
                               std::span<const InvarianceStats> invariance = {});

// "39 (reveal 12, verification 7, placement proof 0, fingerprint 20)": the text reports' line
// (", invariance N" and ", other N" added when there are such calls).
std::string describe_target_calls(const TargetCalls& calls);

}  // namespace fprev
