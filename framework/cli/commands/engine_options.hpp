// --algorithm and --reveal-seed (check, update, reveal) into the engine's options.
#pragma once

#include "../options.hpp"
#include "fprev/reveal.hpp"

namespace fprev::cli {

// The values were validated by the command line (allowed algorithm names, a number).
inline void apply_engine_options(const EngineOptions& engine, RevealOptions& reveal) {
  if (engine.algorithm)
    if (const auto algorithm = parse_algorithm(*engine.algorithm)) reveal.algorithm = *algorithm;
  if (engine.seed) reveal.seed = *engine.seed;
  reveal.max_seconds = engine.max_seconds;
  if (engine.no_sibling_guesses) reveal.guess_siblings = false;
}

}  // namespace fprev::cli
