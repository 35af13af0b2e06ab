// What the engine's entry points (reveal, verify, confirm) share: the checks on a target before
// any probe (a mask scheme for its formats, a sane grid) and the fused-node test run on a
// single-output target or on every class of an order map.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "checks.hpp"

namespace fprev::detail {

// The mask scheme for the target's formats and n; fails with `unsupported` when there is none.
MaskScheme scheme_for(const TargetInfo& info);
// A grid target declares at least one row and one column; fails with `unsupported` otherwise.
void check_grid(const TargetInfo& info);
// A single-output target's map must be one class on a 1 x 1 grid (verify and confirm of a map).
void check_single_output_map(const TargetInfo& info, const OrderMap& map);

// The fused-node test on a single-output target: one output per input.
FusedTestRunner single_runner(ProbeSession& session);

// The fused-node test of every class of a grid target, on the class's own elements
// (`element_class` row-major, `tree_of` by class id).
void check_fused_nodes_per_class(ProbeSession& session, const std::vector<std::uint32_t>& element_class,
                                 const std::function<const Tree&(std::uint32_t)>& tree_of,
                                 RevealStats& stats);

}  // namespace fprev::detail
