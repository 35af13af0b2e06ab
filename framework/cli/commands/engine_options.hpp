// --algorithm and --reveal-seed (check, update, reveal) into the engine's options.
#pragma once

#include <cstdint>
#include <limits>

#include "../options.hpp"
#include "fprev/reveal.hpp"
#include "fprev/worker.hpp"

namespace fprev::cli {

// --prove-every-element: the most time the proof of every element may take (estimated from the
// calls before it); past it the report says the elements were not proven, and why.
inline constexpr double kAskedElementProofSeconds = 600.0;

// The values were validated by the command line (allowed algorithm names, a number).
inline void apply_engine_options(const EngineOptions& engine, RevealOptions& reveal) {
  if (engine.algorithm)
    if (const auto algorithm = parse_algorithm(*engine.algorithm)) reveal.algorithm = *algorithm;
  if (engine.seed) reveal.seed = *engine.seed;
  reveal.max_seconds = engine.max_seconds;
  if (engine.no_sibling_guesses) reveal.guess_siblings = false;
  if (engine.no_pair_grid) reveal.pair_grid = false;
  if (engine.prove_every_element) {
    // Asked for: no cap on the work, a cap on the time (what the calls so far say it would take).
    reveal.element_proof_summands = std::numeric_limits<std::uint64_t>::max();
    reveal.element_proof_seconds = kAskedElementProofSeconds;
  }
  WorkerLimits limits = worker_limits();
  limits.watchdog_floor_seconds = engine.watchdog;
  limits.memory_bytes = engine.worker_memory_mb << 20;
  set_worker_limits(limits);
}

}  // namespace fprev::cli
