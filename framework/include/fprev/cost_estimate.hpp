// What a reveal will cost, before it runs: probes from a model of the algorithm, times the target's
// call time measured on a couple of calls, over the probe streams.
//
// The model (FPRev, Xie et al., USENIX ATC 2025 Alg. 4 with this engine's adaptive pivot): every
// sub-problem of s leaves costs s - 1 probes, and the first one is all n leaves. How the rest splits
// depends on the order being revealed:
//   a sequential sum     n - 1 probes (the first wave places every leaf),
//   lanes, blocks        about 2n (each lane or block is one more sub-problem; Alg. 4 on OpenBLAS
//                        ddot: 3n, with the sibling guesses of src/engine/sibling_guess.hpp: 2n),
//   pairwise             about (n/2) log2(n) with Alg. 4 (a sub-problem per level of the halving);
//                        about 2n with sibling guesses (each half proven from the other).
// So the estimate is a range [n - 1, (n/2) log2(n) + n] with 2n as the expectation: half of the real
// count for a sequential sum, 2% off for OpenBLAS ddot 10^6 with guesses (1.97 M probes), up to
// log2(n)/4 + 1/2 times less than Alg. 4 needs for a pairwise one (5.5x at 10^6).
// The range and these factors are checked against the real counts in the engine's tests; progress
// lines say "past the estimate" when a reveal outgrows it. BasicFPRev (Alg. 2)
// measures every pair: n(n-1)/2. The verification, determinism and fingerprint calls add a few
// hundred calls. A grid target carries one probe per line (row) of its grid in one call.
#pragma once

#include <cstddef>
#include <string>

#include "fprev/reveal.hpp"
#include "fprev/target.hpp"

namespace fprev {

struct ProbeCountModel {
  std::size_t low = 0;       // fewest probes the algorithm can need for this n
  std::size_t expected = 0;  // the model's expectation (2n for FPRev)
  std::size_t high = 0;      // most, for the orders the model covers (pairwise)
};
ProbeCountModel model_probe_count(std::size_t n, Algorithm algorithm);

struct CostEstimate {
  ProbeCountModel probes;
  std::size_t probes_per_call = 1;  // max_batch, or the lines of a grid
  double seconds_per_call = 0.0;    // measured (the fastest of a few calls on random inputs)
  std::size_t streams = 1;
  std::size_t ranks = 1;            // the MPI ranks the streams are spread over (distributed mode)
  double seconds_low = 0.0;         // probes.low's calls over the streams
  double seconds = 0.0;             // probes.expected's
  double seconds_high = 0.0;        // probes.high's
  // The alignment check that follows (add_placement_proofs; 0 placements when it does not run):
  // at every other placement a proof of the order found, at least `placement_probes` probes each.
  std::size_t placements = 0;
  std::size_t placement_probes = 0;
  double placement_seconds = 0.0;  // the fewest: every placement's proof at placement_probes
  // The case's fewest: the reveal's (or confirmation's) and the placement proofs'.
  double total_seconds_low() const { return seconds_low + placement_seconds; }
  // "about 2000000 probes (999999 to 10965784) x 412 us per call on 2 streams: about 6.9 min
  // (3.4 min to 38 min)", and with placements "; then the placement proof at 7 offsets, at least
  // 83334 probes each: at least 9.6 min"
  std::string describe() const;
  // The same call time for another probe count (a confirmation's exact one, say).
  void set_probes(const ProbeCountModel& model);
};

// Adds the alignment check's placement proofs (docs/alignment.md) to an estimate of `info`'s
// reveal: nothing for a target whose order cannot depend on where its data lies. A placement's
// proof proves every inner node of the order found at offset 0; a tree of n leaves has
// sum(children - 1) = n - 1 over its inner nodes, and a probe proves one node, or at most
// MultiPairScheme::max_pairs where the proof carries several pairs a probe: so at least
// (n - 1) / max_pairs probes, at the reveal's probes per call and call time, over the streams.
void add_placement_proofs(CostEstimate& estimate, const TargetInfo& info);

// Measures the call time as the fastest of `calls` (at least 2) probe calls, each as full as the
// target's batch or grid allows, and applies the model for options.algorithm over options.streams
// (when a worker factory is set: the streams the reveal could use).
CostEstimate estimate_cost(Target& target, const RevealOptions& options, std::size_t calls = 3);

// "12 us", "850 ms", "42 s", "6.9 min", "3.2 h", "12 days".
std::string format_duration(double seconds);

// Sizes no reveal can finish, refused when a suite is read (before any library is opened or timed).
// The floor: FPRev's fewest probes (n - 1), `probes_per_call` to a call, each call at least
// `operations_per_call` multiply-adds, at kFastestOperationsPerSecond (10^12: a whole server socket
// at its peak, far above one library thread). A case whose floor exceeds kAbsurdRevealSeconds (a
// week) is absurd; the estimate measured before a case runs (--max-estimate) handles the rest.
inline constexpr double kFastestOperationsPerSecond = 1e12;
inline constexpr double kAbsurdRevealSeconds = 7 * 24 * 3600.0;
double reveal_time_floor(std::size_t n, std::size_t probes_per_call, double operations_per_call);
// Empty when the floor is within kAbsurdRevealSeconds; else why the size is refused, e.g. "too
// large to reveal: at least 999999999 probes in 999999999 calls of 1e+09 multiply-adds each, over
// 12 days even at 10^12 multiply-adds per second (limit: a week)".
std::string absurd_size_message(std::size_t n, std::size_t probes_per_call, double operations_per_call);

}  // namespace fprev
