// What the reports of a change between two results share (result_diff.cpp, impact_report.cpp).
#pragma once

#include <optional>
#include <vector>

#include "fprev/golden.hpp"

namespace fprev {

// The two maps over one grid: a single tree is spread over the other's grid (a version 1 golden
// recorded no grid); nullopt when both have several classes over different grids.
struct ComparableMaps {
  OrderMap before, after;
};
std::optional<ComparableMaps> comparable_maps(const Golden& before, const Golden& after);

// The narrowest format holding every output of the fingerprints (a golden does not record its
// output format: distances in ulps are taken in this one).
Format output_format_of(const std::vector<const Fingerprint*>& fingerprints);

}  // namespace fprev
