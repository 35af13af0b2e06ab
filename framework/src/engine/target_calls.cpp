// count_target_calls(): the parts of a case's target calls (fprev/target_calls.hpp).
#include "fprev/target_calls.hpp"

namespace fprev {

TargetCalls count_target_calls(const RevealStats& reveal, const AlignmentStats* alignment,
                               const FingerprintStats* fingerprint, std::size_t other,
                               std::span<const InvarianceStats> invariance) {
  TargetCalls calls;
  calls.verification = reveal.verification_calls;
  calls.reveal = reveal.target_calls - reveal.verification_calls;
  calls.placement_proof = alignment != nullptr ? alignment->target_calls : 0;
  calls.fingerprint = fingerprint != nullptr ? fingerprint->target_calls : 0;
  calls.other = other;
  for (const InvarianceStats& s : invariance) calls.invariance += s.target_calls;
  return calls;
}

std::string describe_target_calls(const TargetCalls& calls) {
  return std::to_string(calls.total()) + " (reveal " + std::to_string(calls.reveal) + ", verification " +
         std::to_string(calls.verification) + ", placement proof " + std::to_string(calls.placement_proof) +
         ", fingerprint " + std::to_string(calls.fingerprint) +
         (calls.invariance != 0 ? ", invariance " + std::to_string(calls.invariance) : "") +
         (calls.other != 0 ? ", other " + std::to_string(calls.other) : "") + ")";
}

}  // namespace fprev
