// confirm()'s proof of a single-output target's tree, prepared once and measured many times: the
// placement proof (alignment_check.cpp) proves offset 0's tree at 15 or more placements with the
// same probes, predictions and simulated sums, and building them again at each placement cost more
// than the target's own calls on a long dot.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "fprev/reveal.hpp"
#include "fprev/target.hpp"
#include "fprev/tree.hpp"
#include "algorithms.hpp"
#include "multi_pair_proof.hpp"

namespace fprev::detail {

struct PreparedProof {
  const Tree* tree = nullptr;
  // The pairs measured one a probe (all of them without multi-pair probes), alternated as confirm()
  // places them, and the l(i,j) the tree predicts for each.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> single_pairs;
  std::vector<std::uint32_t> single_predicted;
  std::optional<MultiPairPlan> plan;  // with multi-pair probes
  MultiPairProbes multi;
  // The bitwise simulation's expected outputs on its random inputs (simulated_outputs); nullopt
  // where nothing is simulated.
  std::optional<std::vector<double>> simulated;
  // The random inputs of the determinism check and of the simulation, made once.
  RandomInputs determinism_inputs, simulation_inputs;
};

// Only for targets confirm() proves with all leaves active (confirmable(info), single output);
// `tree` must outlive the result. Uses options.multi_pair_proofs, verify_inputs and seed.
PreparedProof prepare_proof(const TargetInfo& info, const Tree& tree, const RevealOptions& options);

// confirm(target, tree, options) with the prepared proof: the same probes, checks and failures.
RevealStats confirm_prepared(Target& target, const RevealOptions& options, const PreparedProof& proof);

}  // namespace fprev::detail
