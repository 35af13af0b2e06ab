// What changed between two results of a case (two goldens, or a golden and what check revealed),
// for people: two trees as a tree diff (fprev/diff.hpp); two order maps as the regions whose tree
// changed, each "rows 96-99 x columns 0-99: 16-way blocks -> sequential", then the tree diff of the
// first; a recorded finding against a finding or an order.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/diff.hpp"
#include "fprev/golden.hpp"
#include "fprev/render.hpp"

namespace fprev {

// The report, every line ending with '\n' (the labels' names and identities as in render_diff_text).
std::string render_result_diff(const Golden& before, const Golden& after, const DiffLabels& labels = {});

// One line for a summary table: "26 of 32 inner nodes agree; now sequential", "2 of 3 classes
// changed", "finding nondeterministic -> a tree", ...
std::string result_diff_summary(const Golden& before, const Golden& after);

// The arithmetic fingerprints of two results, class by class (the classes correspond when the
// orders are the same): the comparison of the first class whose fingerprint changed, else of the
// first class. nullopt when either has no fingerprints, or their numbers of classes differ.
// Distances in ulps are in the narrowest format holding every output of both (a golden does not
// record its output format).
std::optional<FingerprintComparison> compare_result_fingerprints(const Golden& before, const Golden& after);

// Pictures as Graphviz DOT (fprev/render.hpp). Of a result: one panel per class (its regions and
// tree summary as the title; a single tree: one panel). Of a change: two single trees side by side
// (render_diff_dot), or for two maps the trees of the first region whose tree changed. nullopt
// where there is no tree to draw (a recorded finding).
// "alignment: independent (offsets 0-15 checked) -> dependent (offsets 0-15 checked, 4 classes)" when
// both record an alignment result (fprev/alignment.hpp) and they differ; empty otherwise.
std::string alignment_change(const Golden& before, const Golden& after);
// How the invariance verdicts (fprev/invariance.hpp) of two results differ, one sentence each
// (compare_invariance); empty when they agree or either is a finding. render_result_diff ends with
// these lines, and result_diff_summary gives the first where the orders are the same.
std::vector<std::string> invariance_change(const Golden& before, const Golden& after, bool* lost = nullptr);

std::optional<std::string> result_dot(const Golden& result, std::string_view title = "",
                                      std::size_t max_nodes = kDefaultDrawnNodes);
std::optional<std::string> result_diff_dot(const Golden& before, const Golden& after, const DiffLabels& labels = {},
                                           std::size_t max_nodes = kDefaultDrawnNodes);

}  // namespace fprev
