#include "fprev/class_view.hpp"

#include <stdexcept>
#include <string>

namespace fprev {

ClassView::ClassView(Target& grid_target, const OrderMap& map, std::size_t class_index)
    : target_(grid_target) {
  const TargetInfo& grid_info = grid_target.info();
  if (!grid_info.is_grid()) throw std::invalid_argument("ClassView: the target is not a grid target");
  if (map.grid != grid_info.grid) throw std::invalid_argument("ClassView: the map is of another grid");
  if (class_index >= map.classes.size()) throw std::invalid_argument("ClassView: no such class");
  const OrderClass& order_class = map.classes[class_index];
  std::size_t best_count = 0;
  for (std::size_t c = 0; c < grid_info.grid.columns; ++c) {
    std::size_t count = 0;
    for (std::size_t r = 0; r < grid_info.grid.rows; ++r)
      if (order_class.contains(r, c)) ++count;
    if (count > best_count) {
      best_count = count;
      column_ = c;
    }
  }
  for (std::size_t r = 0; r < grid_info.grid.rows; ++r)
    if (order_class.contains(r, column_)) rows_.push_back(r);
  if (rows_.empty()) throw std::invalid_argument("ClassView: the class holds no element");
  info_ = grid_info;
  info_.grid = {};
  info_.columns_placement = false;
  info_.max_batch = rows_.size();
  info_.description = grid_info.description + ", class " + std::to_string(class_index) + " (read at rows " +
                      format_ranges(ranges_of(rows_)) + " of column " + std::to_string(column_) + ")";
  grid_outputs_.resize(grid_info.grid.size());
}

void ClassView::evaluate(const ProbeBatch& batch, std::span<double> outputs) {
  const std::size_t count = batch.probes.size();
  if (count == 0) return;
  if (count > rows_.size() || outputs.size() != count)
    throw std::invalid_argument("ClassView: a batch larger than the class's rows, or outputs of another size");
  // Rows without an input of ours repeat the first probe: a well-formed probe whose output is ignored.
  probes_.assign(rows_[count - 1] + 1, batch.probes[0]);
  for (std::size_t i = 0; i < count; ++i) probes_[rows_[i]] = batch.probes[i];
  ProbeBatch placed = batch;
  placed.probes = probes_;
  placed.placement = Placement::rows;
  target_.evaluate(placed, grid_outputs_);
  const std::size_t columns = target_.info().grid.columns;
  for (std::size_t i = 0; i < count; ++i) outputs[i] = grid_outputs_[rows_[i] * columns + column_];
}

void ClassView::evaluate(const ValueBatch& batch, std::span<double> outputs) {
  const std::size_t count = batch.rows;
  if (count == 0) return;
  if (count > rows_.size() || outputs.size() != count)
    throw std::invalid_argument("ClassView: a batch larger than the class's rows, or outputs of another size");
  const std::size_t n = info_.n;
  const std::size_t rows = rows_[count - 1] + 1;
  a_.assign(rows * n, 0.0);  // rows without an input of ours add zeros
  for (std::size_t i = 0; i < count; ++i)
    std::copy(batch.a.begin() + static_cast<std::ptrdiff_t>(i * n),
              batch.a.begin() + static_cast<std::ptrdiff_t>((i + 1) * n),
              a_.begin() + static_cast<std::ptrdiff_t>(rows_[i] * n));
  ValueBatch placed;
  placed.rows = rows;
  placed.a = a_;
  placed.b = batch.b;
  placed.placement = Placement::rows;
  target_.evaluate(placed, grid_outputs_);
  const std::size_t columns = target_.info().grid.columns;
  for (std::size_t i = 0; i < count; ++i) outputs[i] = grid_outputs_[rows_[i] * columns + column_];
}

}  // namespace fprev
