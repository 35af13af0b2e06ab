// Partitions of a grid's rows and columns into labels, refined only by proof.
//
// Two rows are told apart as soon as some column holds different answers in them to the same
// input (a columns-placement call, where every row of a column adds the same input); two columns as
// soon as some row does (a rows-placement call). Lines with equal labels have agreed on everything
// compared so far. The order map is constant on every block (row label x column label) of the true
// partitions, so blocks of these refined labels are the units a class is made of.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "fprev/order_map.hpp"

namespace fprev::detail {

class AxisLabels {
 public:
  explicit AxisLabels(std::size_t lines) : of_(lines, 0) {}

  std::uint32_t operator[](std::size_t line) const { return of_[line]; }
  std::uint32_t count() const { return count_; }
  std::size_t lines() const { return of_.size(); }

  // Splits every label so that lines keep a label together only when `same(a, b)` holds for them;
  // `hash` must be equal for lines that are the same. A label's first group keeps its number, other
  // groups get new numbers. Returns, for every label after the call, the label it came from.
  std::vector<std::uint32_t> refine(const std::vector<std::uint64_t>& hash,
                                    const std::function<bool(std::size_t, std::size_t)>& same);

  // The lines of `label`, as ranges.
  IndexRanges ranges_of(std::uint32_t label) const;

 private:
  std::vector<std::uint32_t> of_;
  std::uint32_t count_ = 1;
};

}  // namespace fprev::detail
