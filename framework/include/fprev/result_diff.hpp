// What changed between two results of a case (two goldens, or a golden and what check revealed),
// for people: two trees as a tree diff (fprev/diff.hpp); two order maps as the regions whose tree
// changed, each "rows 96-99 x columns 0-99: 16-way blocks -> sequential", then the tree diff of the
// first; a recorded finding against a finding or an order.
#pragma once

#include <string>

#include "fprev/diff.hpp"
#include "fprev/golden.hpp"

namespace fprev {

// The report, every line ending with '\n' (the labels' names and identities as in render_diff_text).
std::string render_result_diff(const Golden& before, const Golden& after, const DiffLabels& labels = {});

// One line for a summary table: "26 of 32 inner nodes agree; now sequential", "2 of 3 classes
// changed", "finding nondeterministic -> a tree", ...
std::string result_diff_summary(const Golden& before, const Golden& after);

}  // namespace fprev
