// The progress of a running reveal in a few words, for the terminal line of check and update.
#pragma once

#include <string>

#include "fprev/reveal.hpp"

namespace fprev::cli {

// "1234567 of ~3000000 probes, 2.1 min, about 3.0 min left" (the time left from the rate so far
// and the cost model's expected probes), or "..., past the estimate" once the probes exceed it.
std::string progress_text(const Progress& progress);

}  // namespace fprev::cli
