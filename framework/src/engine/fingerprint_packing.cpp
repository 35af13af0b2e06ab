// Fingerprint inputs with different right factors in one call (the argument is in
// fingerprint_packing.hpp).
#include "fingerprint_packing.hpp"

#include "checks.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace fprev::detail {

std::vector<PackingClass> packing_classes(const OrderMap& map, const std::vector<std::vector<std::size_t>>& view_rows,
                                          const std::vector<std::size_t>& view_columns,
                                          std::span<const std::uint64_t> row_signatures,
                                          std::span<const std::uint64_t> column_signatures) {
  const std::size_t columns = map.grid.columns;
  if (column_signatures.size() != columns) return {};
  // Without row signatures every row is a group of its own: inputs stay on their rows.
  const bool rows_compared = row_signatures.size() == map.grid.rows;
  const std::vector<std::uint32_t> element_class = classes_of_elements(map);
  std::vector<PackingClass> classes(map.classes.size());
  for (std::size_t k = 0; k < map.classes.size(); ++k) {
    PackingClass& place = classes[k];
    place.rows = view_rows[k];
    place.group_of.assign(map.grid.rows, 0);
    std::unordered_map<std::uint64_t, std::size_t> group_of_signature;
    for (std::size_t r : place.rows) {
      const auto [it, added] = group_of_signature.emplace(rows_compared ? row_signatures[r] : r, place.groups.size());
      if (added) place.groups.emplace_back();
      place.groups[it->second].push_back(r);
      place.group_of[r] = it->second;
    }
    place.columns.push_back(view_columns[k]);
    for (std::size_t c = 0; c < columns; ++c) {
      if (c == view_columns[k] || column_signatures[c] != column_signatures[view_columns[k]]) continue;
      const bool holds_every_row = std::all_of(place.rows.begin(), place.rows.end(),
                                               [&](std::size_t r) { return element_class[r * columns + c] == k; });
      if (holds_every_row) place.columns.push_back(c);
    }
  }
  return classes;
}

ColumnPacker::ColumnPacker(Target& target, const std::vector<PackingClass>& classes, FingerprintStats& stats)
    : target_(target), classes_(classes), stats_(stats) {
  const std::size_t columns = target.info().grid.columns;
  readable_.assign(classes.size(), std::vector<bool>(columns, false));
  for (std::size_t k = 0; k < classes.size(); ++k)
    for (std::size_t c : classes[k].columns) readable_[k][c] = true;
}

std::size_t ColumnPacker::factors(std::vector<double> b) {
  if (b.size() != target_.info().n) throw std::invalid_argument("ColumnPacker: right factors of another length");
  factors_.push_back(std::move(b));
  return factors_.size() - 1;
}

std::size_t ColumnPacker::add(std::size_t klass, std::size_t row, std::size_t factors_id,
                              std::function<void(std::span<double>)> write) {
  inputs_.push_back({klass, row, factors_id, std::move(write)});
  return inputs_.size() - 1;
}

ColumnPacker::Call ColumnPacker::new_call() const {
  const OutputGrid& grid = target_.info().grid;
  Call call{std::vector<std::size_t>(grid.rows, kFree), std::vector<std::size_t>(grid.columns, kFree),
            std::vector<std::size_t>(classes_.size(), 0), std::vector<std::vector<std::size_t>>(factors_.size()), {}};
  for (const PackingClass& klass : classes_) call.next_in_group.emplace_back(klass.groups.size(), 0);
  return call;
}

bool ColumnPacker::place(Call& call, std::size_t i) {
  const Input& input = inputs_[i];
  const PackingClass& klass = classes_[input.klass];
  // The row: its own, else the first free one of its group.
  std::size_t row = kFree;
  if (call.on_row[input.row] == kFree) {
    row = input.row;
  } else {
    const std::size_t group = klass.group_of[input.row];
    const std::vector<std::size_t>& rows = klass.groups[group];
    std::size_t& next = call.next_in_group[input.klass][group];
    while (next < rows.size() && call.on_row[rows[next]] != kFree) ++next;
    if (next < rows.size()) row = rows[next];
  }
  if (row == kFree) return false;
  // The column: one of the class's that already holds these factors, else its next free one (the
  // view's column first).
  std::size_t column = kFree;
  for (std::size_t c : call.columns_of[input.factors])
    if (readable_[input.klass][c]) {
      column = c;
      break;
    }
  if (column == kFree) {
    std::size_t& next = call.next_column[input.klass];
    while (next < klass.columns.size() && call.column_factors[klass.columns[next]] != kFree) ++next;
    if (next == klass.columns.size()) return false;
    column = klass.columns[next];
    call.column_factors[column] = input.factors;
    call.columns_of[input.factors].push_back(column);
  }
  call.on_row[row] = i;
  row_of_[i] = row;
  column_of_[i] = column;
  return true;
}

std::size_t ColumnPacker::plan() {
  row_of_.assign(inputs_.size(), kFree);
  column_of_.assign(inputs_.size(), kFree);
  call_of_.assign(inputs_.size(), kFree);
  std::vector<Call>& calls = planned_;
  calls.clear();
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    std::size_t c = 0;
    while (c < calls.size() && !place(calls[c], i)) ++c;
    if (c == calls.size()) {
      calls.push_back(new_call());
      if (!place(calls.back(), i))
        throw std::logic_error("ColumnPacker: an input fits no empty call (a class without rows or columns)");
    }
    call_of_[i] = c;
  }
  planned_once_ = true;
  return calls.size();
}

void ColumnPacker::run() {
  const TargetInfo& info = target_.info();
  const std::size_t n = info.n, rows = info.grid.rows, columns = info.grid.columns;
  if (!planned_once_) plan();
  const std::vector<Call>& calls = planned_;
  // Materialise: rows of left factors (zero where free), every column's right factors (zero where
  // free: those outputs are not read).
  std::vector<std::vector<double>> a(calls.size()), b(calls.size());
  std::vector<std::vector<std::uint32_t>> named(calls.size());
  std::vector<ValueBatch> batches(calls.size());
  for (std::size_t c = 0; c < calls.size(); ++c) {
    std::size_t used_rows = 0;
    for (std::size_t r = 0; r < rows; ++r)
      if (calls[c].on_row[r] != kFree) used_rows = r + 1;
    a[c].assign(used_rows * n, 0.0);

    for (std::size_t r = 0; r < used_rows; ++r) {
      const std::size_t i = calls[c].on_row[r];
      if (i == kFree) continue;
      inputs_[i].write(std::span<double>(a[c]).subspan(r * n, n));
      ++stats_.inputs;
    }
    // b: the call's factors, a block each in the order the columns first name them; a free column
    // names the first block (its outputs are not read).
    std::vector<std::uint32_t> block_of(factors_.size(), 0xffffffffu);
    named[c].assign(columns, 0);
    for (std::size_t column = 0; column < columns; ++column) {
      const std::size_t id = calls[c].column_factors[column];
      if (id == kFree) continue;
      if (block_of[id] == 0xffffffffu) {
        block_of[id] = static_cast<std::uint32_t>(b[c].size() / n);
        b[c].insert(b[c].end(), factors_[id].begin(), factors_[id].end());
      }
      named[c][column] = block_of[id];
    }
    batches[c].rows = used_rows;
    batches[c].a = a[c];
    batches[c].b = b[c];
    batches[c].column_factors = named[c];
    batches[c].placement = Placement::rows;
  }
  std::vector<double> grid_outputs(calls.size() * info.grid.size(), 0.0);
  std::size_t done = 0;
  if (!calls.empty()) target_.evaluate_value_calls(batches, grid_outputs, done);
  stats_.target_calls += calls.size();

  calls_made_ += calls.size();
  outputs_.resize(inputs_.size());
  for (std::size_t i = 0; i < inputs_.size(); ++i)
    outputs_[i] = grid_outputs[call_of_[i] * info.grid.size() + row_of_[i] * columns + column_of_[i]];
}

}  // namespace fprev::detail
