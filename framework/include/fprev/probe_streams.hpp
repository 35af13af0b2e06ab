// Probe streams for a case of a backend instance: how many, and the factory of the workers'
// targets (RevealOptions::streams, make_worker). Used by the gate's runner and by `reveal`.
#pragma once

#include <cstddef>

#include "fprev/backend.hpp"
#include "fprev/reveal.hpp"

namespace fprev {

// `requested` streams (0: one per core of this machine), at most what the instance allows for the
// case (BackendInstance::concurrent_targets), at least 1.
std::size_t choose_streams(std::size_t requested, const BackendInstance& instance, const Params& case_params);

// Sets options.streams to choose_streams(...) and, when more than one, options.make_worker to make
// another target of the case. The factory refers to `instance` and `case_params`: both must outlive
// the reveal.
void use_probe_streams(RevealOptions& options, std::size_t requested, const BackendInstance& instance,
                       const Params& case_params);

}  // namespace fprev
