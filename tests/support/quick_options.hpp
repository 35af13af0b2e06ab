// Engine options for tests that reveal and check many times: fewer determinism runs and random
// inputs than the defaults (the orders under test are deterministic by construction), the same
// probes and proofs.
#pragma once

#include "fprev/reveal.hpp"

namespace fprev::testing {

inline RevealOptions quick_reveal_options() {
  RevealOptions o;
  o.determinism_runs = 2;
  o.determinism_inputs = 1;
  o.verify_inputs = 2;
  return o;
}

}  // namespace fprev::testing
