// Fingerprint inputs with different right factors in one call (the argument is in
// fingerprint_packing.hpp).
#include "fingerprint_packing.hpp"

#include "checks.hpp"

#include <algorithm>
#include <cstring>
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
  // The classes read are the first view_rows.size() of the map (a reading map holds more after them).
  std::vector<PackingClass> classes(view_rows.size());
  for (std::size_t k = 0; k < view_rows.size(); ++k) {
    PackingClass& place = classes[k];
    place.rows = view_rows[k];
    place.group_of.assign(map.grid.rows, PackingClass::kNoGroup);
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
  Call call;
  call.on_row.assign(grid.rows, kFree);
  call.row_factors.assign(grid.rows, kFree);
  call.column_factors.assign(grid.columns, kFree);
  call.on_column.assign(grid.columns, kFree);
  call.next_column.assign(classes_.size(), 0);
  call.columns_of.resize(factors_.size());
  call.rows_of.resize(factors_.size());
  for (const PackingClass& klass : classes_) call.next_in_group.emplace_back(klass.groups.size(), 0);
  call.twinned.assign(factors_.size(), false);
  return call;
}

// Rows and columns are only ever taken, so each search resumes where the last one stopped.
std::size_t ColumnPacker::free_row(Call& call, const Input& input) const {
  if (call.row_free(input.row)) return input.row;
  const std::size_t group = classes_[input.klass].group_of[input.row];
  const std::vector<std::size_t>& rows = classes_[input.klass].groups[group];
  std::size_t& next = call.next_in_group[input.klass][group];
  while (next < rows.size() && !call.row_free(rows[next])) ++next;
  return next < rows.size() ? rows[next] : kFree;
}

std::size_t ColumnPacker::free_column(Call& call, std::size_t klass) const {
  const std::vector<std::size_t>& columns = classes_[klass].columns;
  std::size_t& next = call.next_column[klass];
  while (next < columns.size() && !call.column_free(columns[next])) ++next;
  return next < columns.size() ? columns[next] : kFree;
}

std::size_t ColumnPacker::free_rows_left(const Call& call, const Input& input) const {
  const std::size_t group = classes_[input.klass].group_of[input.row];
  const std::vector<std::size_t>& rows = classes_[input.klass].groups[group];
  std::size_t left = 0;
  for (std::size_t i = call.next_in_group[input.klass][group]; i < rows.size(); ++i) left += call.row_free(rows[i]);
  return left;
}

std::size_t ColumnPacker::free_columns_left(const Call& call, std::size_t klass) const {
  const std::vector<std::size_t>& columns = classes_[klass].columns;
  std::size_t left = 0;
  for (std::size_t i = call.next_column[klass]; i < columns.size(); ++i) left += call.column_free(columns[i]);
  return left;
}

std::size_t ColumnPacker::factors_column(Call& call, const Input& input) const {
  for (std::size_t c : call.columns_of[input.factors])
    if (readable_[input.klass][c]) return c;
  return free_column(call, input.klass);
}

bool ColumnPacker::place_usual(Call& call, std::size_t i, Spot& spot) const {
  const Input& input = inputs_[i];
  // The row: its own, else the first free one of its group; the column: one of the class's that
  // already holds these factors, else its next free one (the view's column first).
  const std::size_t row = free_row(call, input);
  if (row == kFree) return false;
  const std::size_t column = factors_column(call, input);
  if (column == kFree) return false;
  if (call.column_factors[column] == kFree) {
    call.column_factors[column] = input.factors;
    call.columns_of[input.factors].push_back(column);
  }
  call.on_row[row] = i;
  spot.row = row;
  spot.column = column;
  spot.turned = false;
  return true;
}

bool ColumnPacker::place_turned(Plan& plan, std::size_t c, std::size_t i) const {
  Call& call = plan.calls[c];
  const Input& input = inputs_[i];
  const PackingClass& klass = classes_[input.klass];
  const std::size_t group = klass.group_of[input.row];
  // The row holding its factors (a row of its group), else a free row of the group for them; the
  // column: a free one of its class.
  std::size_t row = kFree;
  for (std::size_t r : call.rows_of[input.factors])
    if (klass.group_of[r] == group) {
      row = r;
      break;
    }
  const bool new_row = row == kFree;
  if (new_row) row = free_row(call, input);
  if (row == kFree) return false;
  // Each is taken before the next is looked for (and given back where the input does not fit).
  if (new_row) call.row_factors[row] = input.factors;
  const std::size_t column = free_column(call, input.klass);
  if (column != kFree) call.on_column[column] = i;
  Spot twin;
  twin.call = c;
  if (column == kFree || (!call.twinned[input.factors] && !place_usual(call, i, twin))) {
    if (new_row) call.row_factors[row] = kFree;
    if (column != kFree) call.on_column[column] = kFree;
    return false;
  }
  if (new_row) call.rows_of[input.factors].push_back(row);
  if (!call.twinned[input.factors]) {  // the twin: a copy of the input on a row of its own
    plan.twins.push_back({i, twin});
    call.twinned[input.factors] = true;
  }
  plan.spots[i] = {c, row, column, true};
  return true;
}

ColumnPacker::Plan ColumnPacker::make_plan(const std::vector<std::size_t>& inputs, bool turn) const {
  Plan plan;
  plan.spots.assign(inputs_.size(), Spot{});
  for (std::size_t i : inputs) {
    bool placed = false;
    for (std::size_t c = 0; !placed; ++c) {
      const bool fresh = c == plan.calls.size();
      if (fresh) plan.calls.push_back(new_call());
      Call& call = plan.calls[c];
      const Input& input = inputs_[i];
      // Turned where the class has more free columns than its row's group free rows: the two
      // ways then use up rows and columns about evenly.
      const bool turned_first = turn && free_columns_left(call, input.klass) > free_rows_left(call, input);
      if (turned_first) placed = place_turned(plan, c, i);
      Spot spot;
      spot.call = c;
      if (!placed && place_usual(call, i, spot)) {
        plan.spots[i] = spot;
        placed = true;
      }
      if (!placed && turn && !turned_first) placed = place_turned(plan, c, i);
      if (!placed && fresh)
        throw std::logic_error("ColumnPacker: an input fits no empty call (a class without rows or columns)");
    }
  }
  return plan;
}

std::size_t ColumnPacker::plan() {
  std::vector<std::size_t> all(inputs_.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  plan_ = make_plan(all, false);
  // Turned inputs only where they save a call: elsewhere every input is read the usual way.
  if (!inputs_.empty() && plan_.calls.size() > 1) {
    Plan turned = make_plan(all, true);
    if (turned.calls.size() < plan_.calls.size()) plan_ = std::move(turned);
  }
  planned_once_ = true;
  return plan_.calls.size();
}

double ColumnPacker::at(const std::vector<double>& outputs, const Spot& spot) const {
  const OutputGrid& grid = target_.info().grid;
  return outputs[spot.call * grid.size() + spot.row * grid.columns + spot.column];
}

std::vector<double> ColumnPacker::evaluate(const Plan& plan) {
  const TargetInfo& info = target_.info();
  const std::size_t n = info.n, rows = info.grid.rows, columns = info.grid.columns;
  const std::vector<Call>& calls = plan.calls;
  // Materialise: rows of left factors (zero where free) and every column's right factors (zero
  // where free: those outputs are not read); a turned input's rows hold its right factors and its
  // column its left factors.
  std::vector<std::vector<double>> a(calls.size()), b(calls.size());
  std::vector<std::vector<std::uint32_t>> named(calls.size());
  std::vector<ValueBatch> batches(calls.size());
  for (std::size_t c = 0; c < calls.size(); ++c) {
    const Call& call = calls[c];
    std::size_t used_rows = 0;
    for (std::size_t r = 0; r < rows; ++r)
      if (!call.row_free(r)) used_rows = r + 1;
    a[c].assign(used_rows * n, 0.0);
    for (std::size_t r = 0; r < used_rows; ++r) {
      const std::span<double> row = std::span<double>(a[c]).subspan(r * n, n);
      if (call.on_row[r] != kFree) inputs_[call.on_row[r]].write(row);
      else if (call.row_factors[r] != kFree)
        std::copy(factors_[call.row_factors[r]].begin(), factors_[call.row_factors[r]].end(), row.begin());
    }
    // b: a block for each set of factors in the order the columns first name them and one for each
    // turned input; a free column names the first block (its outputs are not read).
    std::vector<std::uint32_t> block_of(factors_.size(), 0xffffffffu);
    named[c].assign(columns, 0);
    for (std::size_t column = 0; column < columns; ++column) {
      const auto next_block = static_cast<std::uint32_t>(b[c].size() / n);
      if (call.on_column[column] != kFree) {
        b[c].resize(b[c].size() + n, 0.0);
        inputs_[call.on_column[column]].write(std::span<double>(b[c]).subspan(b[c].size() - n, n));
        named[c][column] = next_block;
        continue;
      }
      const std::size_t id = call.column_factors[column];
      if (id == kFree) continue;
      if (block_of[id] == 0xffffffffu) {
        block_of[id] = next_block;
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
  return grid_outputs;
}

void ColumnPacker::run() {
  if (!planned_once_) plan();
  const std::vector<double> grid_outputs = evaluate(plan_);
  outputs_.resize(inputs_.size());
  std::vector<std::size_t> turned;
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    outputs_[i] = at(grid_outputs, plan_.spots[i]);
    if (plan_.spots[i].turned) turned.push_back(i);
  }
  stats_.inputs += inputs_.size();
  stats_.turned_inputs += turned.size();
  // Bits, not values: a NaN equals no value and -0 equals 0.
  const auto bits = [](double x) {
    std::uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
  };
  const bool twins_disagree = std::any_of(plan_.twins.begin(), plan_.twins.end(), [&](const Twin& twin) {
    return bits(at(grid_outputs, twin.spot)) != bits(outputs_[twin.input]);
  });
  if (!twins_disagree) return;
  // The target's products do not commute: the turned inputs again, the usual way.
  const Plan again = make_plan(turned, false);
  const std::vector<double> again_outputs = evaluate(again);
  for (std::size_t i : turned) outputs_[i] = at(again_outputs, again.spots[i]);
  stats_.read_again += turned.size();
}

}  // namespace fprev::detail
