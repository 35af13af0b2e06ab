// Checks around a reveal: determinism before, verification of the tree after.
#pragma once

#include "algorithms.hpp"

namespace fprev::detail {

void check_determinism(ProbeSession& session, const RevealOptions& options);
// Compares the target with `tree`: `probe_count` random l(i,j) (plus every l(0,j) when
// `all_from_first` is set) and, where the arithmetic model applies, bitwise simulation of
// `input_count` random inputs. Throws RevealFailure(verification_failed) on any disagreement.
void check_tree(ProbeSession& session, const Tree& tree, const RevealOptions& options,
                std::size_t probe_count, bool all_from_first, RevealStats& stats);
// A revealed node wider than the target can fuse means the masks met in one "node" only because
// the order moved them together.
void check_fused_width(const ProbeSession& session, const Tree& tree);

}  // namespace fprev::detail
