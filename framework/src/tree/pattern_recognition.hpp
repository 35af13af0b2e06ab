// The one-line description of a summation tree's accumulation pattern, for summarize()
// (fprev/summary.hpp). Private to the framework.
#pragma once

#include <string>

#include "fprev/tree.hpp"

namespace fprev::detail {

// "sequential", "16 lanes strided, lanes combined pairwise, then the last 8 summands added one by
// one", "blocks of 4 summed sequentially, block sums added sequentially", ...; "" when no pattern
// fits. Every description is checked against the tree (a candidate built and compared, or the
// tree decomposed exactly), so it is never a guess.
std::string recognise_pattern(const Tree& tree);

}  // namespace fprev::detail
