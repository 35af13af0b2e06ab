// Fingerprint inputs with different right factors in one call of a grid target whose columns each
// take right factors of their own (TargetInfo::column_right_factors: a GEMM's op(B) is a whole
// matrix). Issue 41: "fold the fingerprint's inputs into as few calls as the output count allows".
//
// Element (r, c) of such a call adds row r's left factors times column c's right factors. An input
// (a, b) goes on a row of its class with a, and is read in a column of its class that holds b; the
// other elements of that row and column add what their own column and row hold, and are not read.
// So a call carries as many inputs as the grid has rows, whatever their right factors, where the
// calls of the view's column (fingerprint_grid.cpp without packing) carry one set of right factors
// each; and with inputs turned around in the free columns (ColumnPacker, "Turned inputs") up to
// rows + columns: sgemm 512^3's 1248 inputs take 2 calls instead of 8.
//
// Where a class is read. A class's view (fprev/class_view.hpp) reads its rows R in one column c. A
// packed input may be read in another column c' only where every element (r, c'), r in R, belongs
// to the class and c' computed like c on the random inputs of the reveal or confirmation that
// preceded (equal RevealStats::column_signatures: the same bits at every row, each row's input the
// same in every column). Elements with the same tree and the same arithmetic give the same outputs,
// so the digest and the facts are those the view's column gives; a column that differed anywhere
// is never used, and a class without such columns is read in c alone, one call per set of right
// factors, as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "fprev/fingerprint.hpp"
#include "fprev/order_map.hpp"
#include "fprev/target.hpp"

namespace fprev::detail {

// Where a class may be read: its view's rows, and its view's column first, then the columns proven
// alike (see above); an input fixed to a row (a set row) may move to the rows of its row's group.
struct PackingClass {
  std::vector<std::size_t> rows;
  std::vector<std::size_t> columns;
  static constexpr std::size_t kNoGroup = static_cast<std::size_t>(-1);
  std::vector<std::size_t> group_of;              // per grid row: its group, kNoGroup where not in `rows`
  std::vector<std::vector<std::size_t>> groups;   // rows that computed alike, in the order of `rows`
};

// The columns each class k < view_rows.size() of `map` may be read in (its view's `view_columns[k]` first) and its
// groups of alike rows, or nothing when the signatures do not cover the grid. Rows and columns are
// alike when their signatures are equal (RevealStats::row_signatures, column_signatures); a row
// moves only within its group, so a fixed input is read in a row that added the same inputs as its
// own and gave the same bits at every column.
std::vector<PackingClass> packing_classes(const OrderMap& map, const std::vector<std::vector<std::size_t>>& view_rows,
                                          const std::vector<std::size_t>& view_columns,
                                          std::span<const std::uint64_t> row_signatures,
                                          std::span<const std::uint64_t> column_signatures);

class ColumnPacker {
 public:
  ColumnPacker(Target& target, const std::vector<PackingClass>& classes, FingerprintStats& stats);
  // Registers right factors (n values) and returns their id; inputs with one id share columns.
  std::size_t factors(std::vector<double> b);
  // Queues an input of class `klass` with right factors `factors_id`: its left factors are written
  // by `write` into a row of n zeros. `row`: the row of the class's view it belongs on; it goes
  // there or on a free row of that row's group. Returns its index.
  std::size_t add(std::size_t klass, std::size_t row, std::size_t factors_id,
                  std::function<void(std::span<double>)> write);
  // Places every queued input (greedily, in queue order) and returns the calls that takes; no call
  // is made. Nothing may be queued after it. Inputs are also turned around (below) where that
  // takes fewer calls.
  std::size_t plan();
  // Evaluates the planned calls (plan() first where it was not called) in one run, and again the
  // turned inputs, as they were, where a twin disagreed (see "Turned inputs").
  void run();
  double output(std::size_t index) const { return outputs_.at(index); }
  std::size_t calls() const { return calls_made_; }

  // Turned inputs. Element (r, c) adds the products a[r][k] * b_c[k], and a product does not depend
  // on which factor is the left one: an input may also go with its right factors on a row (of its
  // row's group) and its left factors as the right factors of a free column of its class. A call
  // then carries up to rows + columns inputs instead of rows (sgemm 512^3: 1248 inputs in 2 calls,
  // not 3). TargetInfo::column_right_factors promises that products commute; each call checks it:
  // for every set of right factors it turns, one turned input also goes the usual way (its twin),
  // and where a twin's bits differ the turned inputs are read again the usual way
  // (FingerprintStats::turned_inputs, read_again).

 private:
  struct Input {
    std::size_t klass;
    std::size_t row;
    std::size_t factors;
    std::function<void(std::span<double>)> write;
  };
  static constexpr std::size_t kFree = static_cast<std::size_t>(-1);
  struct Call {
    std::vector<std::size_t> on_row;          // per row: the input on it, kFree where none
    std::vector<std::size_t> row_factors;     // per row: the factors id it holds for turned inputs
    std::vector<std::size_t> column_factors;  // per column: the factors id it holds, kFree where none
    std::vector<std::size_t> on_column;       // per column: the turned input it holds
    std::vector<std::size_t> next_column;     // per class: where its search for a free column resumes
    std::vector<std::vector<std::size_t>> columns_of;     // per factors id: the columns holding them
    std::vector<std::vector<std::size_t>> rows_of;        // per factors id: the rows holding them
    std::vector<std::vector<std::size_t>> next_in_group;  // per class and group: every row before it is taken
    std::vector<bool> twinned;                            // per factors id: its twin is in this call
    bool row_free(std::size_t r) const { return on_row[r] == kFree && row_factors[r] == kFree; }
    bool column_free(std::size_t c) const { return column_factors[c] == kFree && on_column[c] == kFree; }
  };
  // Where an input is read: the call, the element, and whether it is turned.
  struct Spot {
    std::size_t call = kFree, row = kFree, column = kFree;
    bool turned = false;
  };
  struct Twin {
    std::size_t input;  // the turned input it copies
    Spot spot;
  };
  struct Plan {
    std::vector<Call> calls;
    std::vector<Spot> spots;  // per input (kFree call where the plan does not hold it)
    std::vector<Twin> twins;
  };
  Call new_call() const;
  std::size_t free_row(Call& call, const Input& input) const;
  std::size_t free_column(Call& call, std::size_t klass) const;
  std::size_t free_rows_left(const Call& call, const Input& input) const;
  std::size_t free_columns_left(const Call& call, std::size_t klass) const;
  // The column holding these factors that the class may read in, else its next free one.
  std::size_t factors_column(Call& call, const Input& input) const;
  // Places input i in `call` the usual way / turned when there is room; returns whether it did.
  bool place_usual(Call& call, std::size_t i, Spot& spot) const;
  bool place_turned(Plan& plan, std::size_t c, std::size_t i) const;
  Plan make_plan(const std::vector<std::size_t>& inputs, bool turn) const;
  // Evaluates the plan's calls; returns their outputs, call after call.
  std::vector<double> evaluate(const Plan& plan);
  double at(const std::vector<double>& outputs, const Spot& spot) const;

  Target& target_;
  const std::vector<PackingClass>& classes_;
  FingerprintStats& stats_;
  std::vector<std::vector<double>> factors_;
  std::vector<Input> inputs_;
  std::vector<double> outputs_;
  std::vector<std::vector<bool>> readable_;  // per class: the columns it may be read in
  Plan plan_;
  bool planned_once_ = false;
  std::size_t calls_made_ = 0;
};

}  // namespace fprev::detail
