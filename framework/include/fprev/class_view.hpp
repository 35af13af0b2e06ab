// A single-output view of one class of a grid target's order map.
//
// The engine's per-tree tools (the arithmetic fingerprint, verification) work on targets that
// return one output per input. A grid target (GEMM, GEMV, an MPI vector) returns a whole grid per
// call, and its elements may follow several trees (an order map). The view presents the elements of
// one class as such a target: input i goes on row R[i] of the grid (Placement::rows, which every
// grid target accepts), where R are the rows whose element in one chosen column c belongs to the
// class, and its output is element (R[i], c). The view batches up to |R| inputs per call; the
// column with the most such rows is chosen (the smallest on a tie), so a one-class map is read in
// column 0 with every row, as the engine reads a grid target whose elements all follow one tree.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "fprev/order_map.hpp"
#include "fprev/target.hpp"

namespace fprev {

class ClassView : public Target {
 public:
  // `grid_target` must outlive the view; `map` is an order map of its grid. Throws
  // std::invalid_argument for a target that is not a grid target, another grid, or a class out of
  // range.
  ClassView(Target& grid_target, const OrderMap& map, std::size_t class_index);

  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override;
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override;

  std::size_t column() const { return column_; }
  const std::vector<std::size_t>& rows() const { return rows_; }

 private:
  Target& target_;
  TargetInfo info_;
  std::size_t column_ = 0;
  std::vector<std::size_t> rows_;  // ascending
  std::vector<double> grid_outputs_;
  std::vector<double> a_;
  std::vector<Probe> probes_;
};

}  // namespace fprev
