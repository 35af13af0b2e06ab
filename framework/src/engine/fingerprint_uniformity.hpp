// Whether every element of an order map's class computes like the element its fingerprint is read
// at. A class is a set of elements with one summation tree; its fingerprint (the arithmetic the
// tree does not show) is read at a few of its elements (its view's, and the packed calls'), and
// stands for all of them. Elements of one tree can still differ in arithmetic (a tail kernel that
// rounds its products where the main kernel contracts them, a band of rows kept in a wider
// accumulator): the reveal's random inputs have exact products and cannot tell all of that apart.
// One call gives every element the same input, the fingerprint's first "cancel" input (random
// significands on both factors: inexact products; sums that cancel): elements of one class that
// compute alike return the same bits, and those that do not are named (the fact "uniformity").
// One input tells a wider accumulator or contracted products apart almost surely in a sum of a few
// dozen products or more; it is evidence, not a proof.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fprev/fingerprint.hpp"
#include "fprev/order_map.hpp"
#include "fprev/target.hpp"

namespace fprev::detail {

struct Uniformity {
  // Per class of the map: empty where every element returned the bits of the class's reference
  // element, else the fact's value, e.g. "differs at rows 36-39 x columns 0-35 (other bits than
  // element (0, 0) on the same input)".
  std::vector<std::string> facts;
  // Per element (row-major): whether it returned other bits than its class's reference element.
  std::vector<bool> differs;
  bool any() const { return std::find(differs.begin(), differs.end(), true) != differs.end(); }
};

// The comparison's input: the "cancel" set's first of `sets` (a: n values; b: the set's right
// factors, empty for plain sums); nullopt where the sets hold none for n summands.
struct OneInput {
  std::vector<double> a, b;
};
std::optional<OneInput> uniformity_input(const std::vector<FingerprintInputSet>& sets, std::size_t n);
// Only what uniformity_input reads: the "cancel" set with its first input alone, as
// fingerprint_inputs(info) makes it (the alignment check needs no other).
std::vector<FingerprintInputSet> uniformity_input_sets(const TargetInfo& info);

// The outputs of one call in which every element (every row of a grid; the one output of a
// single-output target) adds the comparison's input (the "cancel" set's first of `sets`); empty
// where the sets hold none. The alignment check compares them between placements.
std::vector<double> outputs_on_one_input(Target& target, const std::vector<FingerprintInputSet>& sets);
// That call's batch (the input on every row of a grid), made once where the call is repeated: the
// alignment check makes it at every placement. nullopt where the sets hold no input.
struct OneInputCall {
  std::size_t rows = 0;
  std::vector<double> a, b;
};
std::optional<OneInputCall> one_input_call(const TargetInfo& info, const std::vector<FingerprintInputSet>& sets);
std::vector<double> outputs_on_one_input(Target& target, const OneInputCall& call);

// The comparison for `map` (a grid target's), class k against its reference element `reference[k]`
// (row, column): one target call, counted in `stats`, or none where `measured` holds every
// element's output on the input already (a reveal's value partition measured it).
Uniformity measure_uniformity(Target& target, const OrderMap& map,
                              const std::vector<std::pair<std::size_t, std::size_t>>& reference,
                              const std::vector<FingerprintInputSet>& sets, FingerprintStats& stats,
                              std::span<const double> measured = {});

// The map a class's fingerprint is read in: `map` whose class k keeps only the elements that
// computed like its reference (so its view and its packed calls read only those, and the facts
// describe them), the others in classes of their own with the same tree after the first
// map.classes.size() (not in canonical order). `map` itself where no element differs.
OrderMap reading_map(const OrderMap& map, const Uniformity& uniformity,
                     const std::vector<std::pair<std::size_t, std::size_t>>& reference);

}  // namespace fprev::detail
