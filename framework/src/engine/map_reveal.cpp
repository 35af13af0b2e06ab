// The order-map reveal of a grid target (see map_reveal.hpp and docs/order-maps.md).
#include "map_reveal.hpp"

#include "fingerprint_uniformity.hpp"

#include "checks.hpp"
#include "fprev/confirm.hpp"

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

namespace fprev::detail {
namespace {

// More classes than this is not an order map anyone can gate; it is reported instead.
constexpr std::size_t kMaxClasses = 256;
// A class whose tree keeps disagreeing with its own elements after this many fresh reveals is a
// diagnostic.
constexpr std::size_t kMaxRestarts = 3;
// Rounds of per-element checks after the reveal: each round one input per row and one per column,
// so every element checks 2 * kCheckRounds probes.
constexpr std::size_t kCheckRounds = 4;

std::uint64_t code(const Measurement& m) { return std::uint64_t{m.l} << 1 | (m.saturated ? 1 : 0); }
bool same(const Measurement& a, const Measurement& b) { return code(a) == code(b); }

std::string show(const Measurement& m) {
  return m.saturated ? std::string("beyond the exact range") : std::to_string(m.l);
}

std::string element_text(std::size_t row, std::size_t column) {
  return "(" + std::to_string(row) + ", " + std::to_string(column) + ")";
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

// Where a class's tree adds its first and last summands: for the leaves n - 1, 0, n - 2 and 1, the
// node that adds each one (its parent), then the node above, as a pair (the leaf, the smallest leaf
// of another child of that node) whose l is that node's leaf count. Tail and head kernels differ
// exactly there, whatever the tree's shape: in a sequential sum these are the pairs of the first
// and last additions, in lanes they stay inside the last and first lanes (where a tree-blind pair
// of neighbours crosses lanes and only sees how the lanes are combined). Every element answers
// the first four (check_elements: the nodes above come in where the parents' pairs coincide, as in
// a sequential sum), so that a single element, or a block of a few, whose tail or head changed is
// caught as surely as a whole band.
std::vector<std::pair<std::uint32_t, std::uint32_t>> edge_pairs(const Tree& tree) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  const auto n = static_cast<std::uint32_t>(tree.leaf_count());
  if (n < 2) return out;
  const std::uint32_t edges[] = {n - 1, 0, n - 2, 1};
  for (int level = 1; level <= 2; ++level)
    for (const std::uint32_t x : edges) {
      NodeId child = x, node = tree.parent(x);
      for (int up = 1; up < level && node != kNoNode; ++up) {
        child = node;
        node = tree.parent(node);
      }
      if (node == kNoNode) continue;
      for (const NodeId other : tree.children(node)) {
        if (other == child) continue;
        const std::uint32_t y = tree.smallest_leaf(other);
        const bool seen = std::any_of(out.begin(), out.end(), [&](const auto& p) {
          return (p.first == x && p.second == y) || (p.first == y && p.second == x);
        });
        if (!seen) out.emplace_back(x, y);
        break;
      }
    }
  return out;
}

}  // namespace

MapRevealer::MapRevealer(ProbeSession& session, const RevealOptions& options, RevealStats& stats)
    : session_(session),
      options_(options),
      stats_(stats),
      n_(session.leaves()),
      rows_(session.info().grid.rows),
      columns_(session.info().grid.columns) {
  interned_.emplace_back();  // key 0: every leaf active
  blocks_.assign(1, new_class());
  rebuild_lines();
}

MapRevealer::~MapRevealer() = default;

std::unique_ptr<RevealAlgorithm> MapRevealer::make_algorithm() const {
  const MaskScheme& scheme = session_.scheme();
  return options_.algorithm == Algorithm::basic
             ? make_basic(n_, scheme, session_.all_active())
             : make_fprev(n_, scheme, session_.all_active(), options_);
}

std::uint32_t MapRevealer::new_class() {
  const auto id = static_cast<std::uint32_t>(classes_.size());
  classes_.emplace_back();
  classes_.back().algorithm = make_algorithm();
  return id;
}

void MapRevealer::restart(std::uint32_t id) {
  MapClass& c = classes_[id];
  c.algorithm = make_algorithm();
  c.tree = Tree();
  c.cache.clear();
  c.pair_answers.clear();
  c.answers.clear();
  c.answered.clear();
}

void MapRevealer::check_class_count() const {
  std::size_t alive = 0;
  for (const MapClass& c : classes_) alive += c.alive ? 1 : 0;
  if (alive > kMaxClasses)
    fail(Finding::unsupported,
         "the output elements follow more than " + std::to_string(kMaxClasses) +
             " different summation orders",
         {}, std::nullopt,
         "an order that changes from element to element (e.g. with the element's position in "
         "memory): no order map small enough to gate");
}

ProbeKey MapRevealer::key_of(const ProbeRequest& request) {
  ProbeKey key{request.plus, request.minus, 0};
  const Background& b = *request.background;
  if (b.all_active) return key;
  auto it = background_keys_.find(b.id);
  if (it == background_keys_.end()) {
    // Equal active sets from different waves share a key (a linear search: restricted
    // backgrounds only appear beyond the output's exact counting range, with few classes).
    std::uint32_t found = 0;
    for (std::uint32_t k = 1; k < interned_.size() && found == 0; ++k)
      if (interned_[k] == b.active) found = k;
    if (found == 0) {
      found = static_cast<std::uint32_t>(interned_.size());
      interned_.push_back(b.active);
    }
    it = background_keys_.emplace(b.id, found).first;
  }
  key.background = it->second;
  return key;
}

void MapRevealer::rebuild_lines() {
  for (MapClass& c : classes_) {
    c.rows.clear();
    c.columns.clear();
  }
  std::vector<std::uint32_t> stamp(classes_.size(), 0);
  std::uint32_t now = 0;
  const auto collect = [&](std::size_t line, bool is_row) {
    ++now;
    const std::uint32_t label = is_row ? rows_[line] : columns_[line];
    const std::uint32_t others = is_row ? columns_.count() : rows_.count();
    for (std::uint32_t o = 0; o < others; ++o) {
      const std::uint32_t id = is_row ? block(label, o) : block(o, label);
      if (stamp[id] == now) continue;
      stamp[id] = now;
      (is_row ? classes_[id].rows : classes_[id].columns).push_back(line);
    }
  };
  for (std::size_t r = 0; r < rows_.lines(); ++r) collect(r, true);
  for (std::size_t c = 0; c < columns_.lines(); ++c) collect(c, false);
}

std::string MapRevealer::describe_class(std::uint32_t id) const {
  OrderClass c;
  for (std::uint32_t a = 0; a < rows_.count(); ++a)
    for (std::uint32_t b = 0; b < columns_.count(); ++b)
      if (block(a, b) == id) c.regions.push_back({rows_.ranges_of(a), columns_.ranges_of(b)});
  std::string text;
  for (const Region& r : c.regions) {
    if (!text.empty()) text += "; ";
    text += format_region(r, session_.info().grid);
  }
  return text;
}

// ---- the reveal loop ------------------------------------------------------------------------------

bool MapRevealer::advance_classes() {
  bool waiting = false;
  for (std::uint32_t id = 0; id < classes_.size(); ++id) {
    MapClass& c = classes_[id];
    if (!c.alive || !c.algorithm) continue;
    for (;;) {
      if (c.algorithm->done()) {
        stats_.guesses_proven += c.algorithm->guesses_proven();
        stats_.guesses_failed += c.algorithm->guesses_failed();
        c.tree = c.algorithm->finish();
        c.algorithm.reset();
        break;
      }
      const std::span<const ProbeRequest> wave = c.algorithm->wave();
      if (c.answers.size() != wave.size()) {
        c.answers.assign(wave.size(), Measurement{0, false});
        c.answered.assign(wave.size(), false);
      }
      bool complete = true;
      for (std::size_t k = 0; k < wave.size(); ++k) {
        if (c.answered[k]) continue;
        const ProbeKey key = key_of(wave[k]);
        auto it = c.cache.find(key);
        if (it == c.cache.end() && take_pair_answer(c, wave[k], key)) it = c.cache.find(key);
        if (it == c.cache.end()) {
          complete = false;
          continue;
        }
        c.answers[k] = it->second.value;
        c.answered[k] = true;
      }
      if (!complete) {
        waiting = true;
        break;
      }
      try {
        c.algorithm->accept(c.answers);
      } catch (const RevealFailure& failure) {
        // Answers from several elements that fit no single tree: elements of the class may follow
        // different trees, each answering a part (a GEMV row whose first summands moved answers
        // its row's probes alone). Every element answers the probes until one divides the class;
        // only answers that no division explains are the target's inconsistency.
        if (failure.diagnostic().finding == Finding::inconsistent_structure && divide_by_transcript(id)) {
          waiting = true;
          break;  // `c` is gone: the parts are new classes, revealed afresh
        }
        Diagnostic d = failure.diagnostic();
        d.message = "in the class of output elements " + describe_class(id) + ": " + d.message;
        throw RevealFailure(std::move(d));
      }
      c.answers.clear();
      c.answered.clear();
    }
  }
  return waiting;
}

void MapRevealer::reveal() {
  if (!partitioned_) {
    partitioned_ = true;
    partition_by_values();
    answer_from_pair_grid();
  }
  while (advance_classes()) {
    run_round();
    resolve_conflicts();
    std::size_t placed = 0, revealing = 0;
    for (const MapClass& c : classes_)
      if (c.alive && c.algorithm) {
        placed += c.algorithm->leaves_placed();
        ++revealing;
      }
    session_.report_progress(revealing == 0 ? n_ : placed / revealing);
  }
}

// One round: the unanswered requests of every class, placed on rows (one call) and columns (one
// call). A request needs a line through its class (a row or column holding one of its elements);
// the line serves every class with an element on it that waits for the same probe. Classes with
// the fewest lines choose first.
void MapRevealer::run_round() {
  struct Want {
    std::uint32_t class_id;
    ProbeRequest request;
    ProbeKey key;
    bool covered = false;
  };
  std::unordered_map<ProbeKey, std::vector<std::size_t>, ProbeKeyHash> by_key;  // -> wants
  std::vector<Want> wants;
  std::vector<std::uint32_t> order;
  // Every want takes a line: more than all lines of the grid cannot be placed in a round.
  const std::size_t most = rows_.lines() + columns_.lines();
  for (std::uint32_t id = 0; id < classes_.size(); ++id) {
    MapClass& c = classes_[id];
    if (!c.alive || !c.algorithm || c.algorithm->done()) continue;
    const std::span<const ProbeRequest> wave = c.algorithm->wave();
    bool any = false;
    std::size_t taken = 0;
    for (std::size_t k = 0; k < wave.size() && taken < most; ++k) {
      if (c.answered[k]) continue;
      ++taken;
      const ProbeKey key = key_of(wave[k]);
      by_key[key].push_back(wants.size());
      wants.push_back({id, wave[k], key, false});
      any = true;
    }
    if (any) order.push_back(id);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return classes_[a].rows.size() + classes_[a].columns.size() <
           classes_[b].rows.size() + classes_[b].columns.size();
  });

  const bool use_columns = session_.info().columns_placement;
  const std::size_t row_count = rows_.lines(), column_count = columns_.lines();
  std::vector<std::optional<ProbeRequest>> on_row(row_count), on_column(use_columns ? column_count : 0);
  std::vector<ProbeRequest> row_assigned, column_assigned;

  // Marks the want of every class with an element on the line as covered.
  const auto cover = [&](const ProbeKey& key, std::size_t line, bool is_row) {
    for (std::size_t w : by_key[key]) {
      Want& want = wants[w];
      if (want.covered) continue;
      const MapClass& c = classes_[want.class_id];
      const auto& lines = is_row ? c.rows : c.columns;
      if (std::binary_search(lines.begin(), lines.end(), line)) want.covered = true;
    }
  };
  // Puts the want on the next free line among `lines` (the class's rows or columns).
  const auto place = [&](Want& want, const std::vector<std::size_t>& lines, std::size_t& cursor,
                         std::vector<std::optional<ProbeRequest>>& on_line,
                         std::vector<ProbeRequest>& assigned, bool is_row) {
    while (cursor < lines.size() && on_line[lines[cursor]]) ++cursor;
    if (cursor == lines.size()) return false;
    on_line[lines[cursor]] = want.request;
    assigned.push_back(want.request);
    cover(want.key, lines[cursor], is_row);
    return true;
  };
  for (std::uint32_t id : order) {
    const MapClass& c = classes_[id];
    std::size_t row_cursor = 0, column_cursor = 0;
    for (Want& want : wants) {
      if (want.class_id != id || want.covered) continue;
      if (place(want, c.rows, row_cursor, on_row, row_assigned, true)) continue;
      if (use_columns && place(want, c.columns, column_cursor, on_column, column_assigned, false))
        continue;
      break;  // no line left for this class in this round
    }
  }
  if (row_assigned.empty() && column_assigned.empty())
    fail(Finding::inconsistent_structure, "internal: a round without any probe to place");

  // Idle lines carry replicas: probes placed on columns also go on rows (and vice versa), so that
  // each is compared across both axes.
  std::vector<ProbeRequest> for_rows = column_assigned, for_columns = row_assigned;
  for_rows.insert(for_rows.end(), row_assigned.begin(), row_assigned.end());
  for_columns.insert(for_columns.end(), column_assigned.begin(), column_assigned.end());
  std::vector<ProbeRequest> row_lines(row_count), column_lines(on_column.size());
  std::size_t next = 0;
  for (std::size_t r = 0; r < row_count; ++r)
    row_lines[r] = on_row[r] ? *on_row[r] : for_rows[next++ % for_rows.size()];
  next = 0;
  for (std::size_t col = 0; col < on_column.size(); ++col)
    column_lines[col] = on_column[col] ? *on_column[col] : for_columns[next++ % for_columns.size()];

  run_call(Placement::rows, row_lines, false);
  if (use_columns) run_call(Placement::columns, column_lines, false);
}

void MapRevealer::run_call(Placement placement, std::vector<ProbeRequest>& lines,
                           bool refine_other_axis) {
  session_.measure_grid(placement, lines, grid_);
  refine(placement, grid_, lines.size(), refine_other_axis);
  record(placement, lines, grid_);
}

// A rows-placement call compares the columns (every column of a row added the same input); a
// columns-placement call compares the rows. With `other_axis` (every line carried the same input)
// the other axis is compared too.
void MapRevealer::refine(Placement placement, const std::vector<Measurement>& grid,
                         std::size_t used_lines, bool other_axis) {
  refine_with(placement, used_lines, other_axis, [&](std::size_t e) { return code(grid[e]); });
}

template <class CodeAt>
void MapRevealer::refine_with(Placement placement, std::size_t used_lines, bool other_axis,
                              CodeAt code_at) {
  const std::size_t R = rows_.lines(), C = columns_.lines();
  const bool by_rows = placement == Placement::rows;
  const auto at = [&](std::size_t r, std::size_t c) { return code_at(r * C + c); };
  std::vector<std::uint32_t> row_parent(rows_.count()), column_parent(columns_.count());
  std::iota(row_parent.begin(), row_parent.end(), 0u);
  std::iota(column_parent.begin(), column_parent.end(), 0u);
  const std::uint32_t old_rows = rows_.count(), old_columns = columns_.count();
  // Lines of one axis, compared over the used lines of the other: equal hash and equal codes.
  const auto compare = [&](AxisLabels& labels, std::size_t count, auto line_code) {
    std::vector<std::uint64_t> hash(labels.lines(), 0);
    for (std::size_t line = 0; line < labels.lines(); ++line)
      for (std::size_t o = 0; o < count; ++o) hash[line] = mix(hash[line], line_code(line, o));
    return labels.refine(hash, [&](std::size_t a, std::size_t b) {
      for (std::size_t o = 0; o < count; ++o)
        if (line_code(a, o) != line_code(b, o)) return false;
      return true;
    });
  };
  if (by_rows || other_axis)  // columns, over the used rows
    column_parent = compare(columns_, by_rows ? used_lines : R,
                            [&](std::size_t c, std::size_t r) { return at(r, c); });
  if (!by_rows || other_axis)  // rows, over the used columns
    row_parent = compare(rows_, by_rows ? C : used_lines,
                         [&](std::size_t r, std::size_t c) { return at(r, c); });
  if (rows_.count() != old_rows || columns_.count() != old_columns) {
    std::vector<std::uint32_t> blocks(static_cast<std::size_t>(rows_.count()) * columns_.count());
    for (std::uint32_t a = 0; a < rows_.count(); ++a)
      for (std::uint32_t b = 0; b < columns_.count(); ++b)
        blocks[a * columns_.count() + b] = blocks_[row_parent[a] * old_columns + column_parent[b]];
    blocks_ = std::move(blocks);
    rebuild_lines();
  }
}

// Elements that follow one tree with one arithmetic return the same bits on the same input; the
// same random inputs on every element tell apart (almost surely) those that do not. Labels are
// refined by these outputs and the first classes are the groups of blocks with equal outputs, so
// that no class starts by mixing elements of different orders. (Equal orders with different
// arithmetic make two classes with one tree: the map merges them.)
void MapRevealer::partition_by_values() {
  const TargetInfo& info = session_.info();
  const std::size_t R = rows_.lines(), C = columns_.lines(), n = n_;
  const std::size_t count = std::max<std::size_t>(1, options_.determinism_inputs);
  partition_inputs_ = grid_value_inputs(info, options_);
  const RandomInputs& inputs = partition_inputs_;
  // After the call of input t every block is uniform in its output; later refinements only split
  // blocks. So the output of input t at an element is the value its block had right after call t,
  // kept per block (and the labels of that time), not per element.
  std::vector<Snapshot>& snapshots = partition_;
  std::vector<double> a(R * n);
  for (std::size_t t = 0; t < count; ++t) {
    for (std::size_t r = 0; r < R; ++r)
      std::copy_n(inputs.a.begin() + static_cast<std::ptrdiff_t>(t * n), n,
                  a.begin() + static_cast<std::ptrdiff_t>(r * n));
    // Input 0 on every row is the determinism check's record: its outputs are already measured.
    const bool recorded = t == 0 && first_outputs_ != nullptr && first_outputs_->size() == R * C;
    const std::vector<double> out =
        recorded ? *first_outputs_ : session_.evaluate_value_grid(Placement::rows, R, a, inputs.b);
    const auto bits = [&](std::size_t e) {
      std::uint64_t b;
      std::memcpy(&b, &out[e], sizeof b);
      return b;
    };
    refine_with(Placement::rows, R, true, bits);
    Snapshot snap;
    snap.columns = columns_.count();
    snap.value.assign(static_cast<std::size_t>(rows_.count()) * snap.columns, 0);
    for (std::size_t r = 0; r < R; ++r) snap.row_label.push_back(rows_[r]);
    for (std::size_t c = 0; c < C; ++c) snap.column_label.push_back(columns_[c]);
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t c = 0; c < C; ++c) snap.value[rows_[r] * snap.columns + columns_[c]] = bits(r * C + c);
    snapshots.push_back(std::move(snap));
  }
  // The fingerprint's uniformity input on every element too (fingerprint_uniformity.hpp): inexact
  // products and cancelling sums, where the random inputs above have exact products (contracted
  // products look alike there) and a spread of magnitudes that hides some reorderings. Elements it
  // tells apart start in classes of their own (each tree is revealed; equal trees are merged in the
  // map, and the fact "uniformity" then names them), so no element the fact names keeps a tree
  // assumed from its neighbours. The fingerprint reads these outputs instead of calling again.
  uniformity_outputs_.clear();
  if (R * C >= 2) {
    std::optional<OneInput> input;
    {
      const std::vector<FingerprintInputSet> sets = fingerprint_inputs(info);
      input = uniformity_input(sets, n);
    }
    if (input) {
      for (std::size_t r = 0; r < R; ++r)
        std::copy_n(input->a.begin(), n, a.begin() + static_cast<std::ptrdiff_t>(r * n));
      uniformity_outputs_ = session_.evaluate_value_grid(Placement::rows, R, a, input->b);
      refine_with(Placement::rows, R, true, [&](std::size_t e) {
        std::uint64_t b;
        std::memcpy(&b, &uniformity_outputs_[e], sizeof b);
        return b;
      });
    }
  }
  // One class per distinct output vector.
  std::vector<std::size_t> row_of(rows_.count()), column_of(columns_.count());
  for (std::size_t r = R; r-- > 0;) row_of[rows_[r]] = r;
  for (std::size_t c = C; c-- > 0;) column_of[columns_[c]] = c;
  std::map<std::vector<std::uint64_t>, std::uint32_t> class_of_values;
  const std::uint32_t first = blocks_.front();
  classes_[first].alive = false;
  classes_[first].algorithm.reset();
  for (std::uint32_t la = 0; la < rows_.count(); ++la)
    for (std::uint32_t lb = 0; lb < columns_.count(); ++lb) {
      std::vector<std::uint64_t> key;
      for (const Snapshot& snap : snapshots)
        key.push_back(snap.value[snap.row_label[row_of[la]] * snap.columns +
                                 snap.column_label[column_of[lb]]]);
      if (!uniformity_outputs_.empty()) {
        std::uint64_t b;
        std::memcpy(&b, &uniformity_outputs_[row_of[la] * C + column_of[lb]], sizeof b);
        key.push_back(b);
      }
      auto it = class_of_values.find(key);
      if (it == class_of_values.end()) it = class_of_values.emplace(key, new_class()).first;
      blocks_[la * columns_.count() + lb] = it->second;
    }
  stats_.value_classes = class_of_values.size();
  rebuild_lines();
  check_class_count();
}

// Every element's answer goes into its class's cache; an answer that differs from the one the
// class already holds for the probe is a conflict.
void MapRevealer::record(Placement placement, const std::vector<ProbeRequest>& lines,
                         const std::vector<Measurement>& grid) {
  const std::size_t C = columns_.lines();
  const bool by_rows = placement == Placement::rows;
  const std::uint32_t other_labels = by_rows ? columns_.count() : rows_.count();
  std::vector<std::size_t> stamp(other_labels, 0);
  for (std::size_t line = 0; line < lines.size(); ++line) {
    const ProbeKey key = key_of(lines[line]);
    const std::size_t count = by_rows ? C : rows_.lines();
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t r = by_rows ? line : k, c = by_rows ? k : line;
      const std::uint32_t label = by_rows ? columns_[c] : rows_[r];
      if (stamp[label] == line + 1) continue;  // this line's block already recorded
      stamp[label] = line + 1;
      const std::uint32_t id = class_of(r, c);
      MapClass& cls = classes_[id];
      const Measurement& m = grid[r * C + c];
      const auto [it, inserted] = cls.cache.try_emplace(key, CacheEntry{m, Element{r, c}});
      const CacheEntry& entry = it->second;
      if (inserted || same(entry.value, m)) continue;
      Conflict conflict;
      conflict.class_id = id;
      conflict.request = lines[line];
      if (!lines[line].background->all_active) {
        conflict.owned_background =
            std::make_shared<Background>(ProbeSession::restricted(lines[line].background->active));
        conflict.request.background = conflict.owned_background.get();
      }
      conflict.first = entry.where;
      conflict.first_value = entry.value;
      conflict.second = {r, c};
      conflict.second_value = m;
      conflicts_.push_back(std::move(conflict));
    }
  }
}

std::vector<Measurement> MapRevealer::broadcast_and_split(const ProbeRequest& request) {
  std::vector<ProbeRequest> lines(rows_.lines(), request);
  session_.measure_grid(Placement::rows, lines, grid_);
  std::vector<Measurement> grid = grid_;
  refine(Placement::rows, grid, lines.size(), true);
  // Every block now answers one value: divide each class by it.
  const std::size_t C = columns_.lines();
  std::vector<std::size_t> row_of(rows_.count()), column_of(columns_.count());
  for (std::size_t r = rows_.lines(); r-- > 0;) row_of[rows_[r]] = r;
  for (std::size_t c = C; c-- > 0;) column_of[columns_[c]] = c;
  const std::size_t class_count = classes_.size();
  std::vector<std::map<std::uint64_t, std::uint32_t>> parts(class_count);
  for (std::uint32_t a = 0; a < rows_.count(); ++a)
    for (std::uint32_t b = 0; b < columns_.count(); ++b) {
      const std::uint32_t id = block(a, b);
      parts[id].emplace(code(grid[row_of[a] * C + column_of[b]]), id);
    }
  bool split = false;
  for (std::uint32_t id = 0; id < class_count; ++id) {
    if (parts[id].size() < 2) continue;
    split = true;
    classes_[id].alive = false;
    classes_[id].algorithm.reset();
    for (auto& [value, part] : parts[id]) {
      (void)value;
      part = new_class();
    }
    stats_.class_splits += parts[id].size() - 1;
  }
  if (split) {
    for (std::uint32_t a = 0; a < rows_.count(); ++a)
      for (std::uint32_t b = 0; b < columns_.count(); ++b) {
        std::uint32_t& id = blocks_[a * columns_.count() + b];
        if (id < class_count && !classes_[id].alive)
          id = parts[id].at(code(grid[row_of[a] * C + column_of[b]]));
      }
    rebuild_lines();
    check_class_count();
  }
  // A class that kept its elements together held an answer to this probe only if one of its
  // elements gave it before: a different answer now means that element's order changed.
  const std::size_t before = conflicts_.size();
  record(Placement::rows, lines, grid);
  for (std::size_t k = before; k < conflicts_.size(); ++k)
    check_repeated(conflicts_[k].first, conflicts_[k].first_value, grid, request);
  conflicts_.resize(before);
  return grid;
}

bool MapRevealer::divide_by_transcript(std::uint32_t id) {
  if (classes_[id].rows.size() <= 1 && classes_[id].columns.size() <= 1) return false;  // one element
  // The current wave first (its answers just failed), then every earlier answer of the class.
  // Probes over a restricted background are left out (their active sets belong to the waves).
  std::vector<ProbeKey> keys;
  for (const ProbeRequest& request : classes_[id].algorithm->wave())
    if (request.background->all_active) keys.push_back({request.plus, request.minus, 0});
  for (const auto& [key, entry] : classes_[id].cache)
    if (key.background == 0 && std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  // A bound on the calls: a target whose answers are inconsistent at every element (an order that
  // depends on the values) pays at most this many before it is refused as before.
  constexpr std::size_t kMostBroadcasts = 256;
  if (keys.size() > kMostBroadcasts) keys.resize(kMostBroadcasts);
  const Background* all = session_.all_active();
  for (const ProbeKey& key : keys) {
    broadcast_and_split({key.plus, key.minus, all, static_cast<std::uint32_t>(n_)});
    if (!classes_[id].alive) return true;
  }
  return false;
}

void MapRevealer::check_repeated(const Element& where, const Measurement& before,
                                 const std::vector<Measurement>& grid,
                                 const ProbeRequest& request) const {
  const Measurement& now = grid[where.row * columns_.lines() + where.column];
  if (same(now, before)) return;
  fail(Finding::batch_inconsistent,
       "output element " + element_text(where.row, where.column) + " answered " + show(before) +
           " to this probe in one call and " + show(now) + " in a later one",
       describe_probe(request.plus, request.minus, request.active_count), std::nullopt,
       "the order of an output element changes between calls (it depends on the other rows or "
       "columns of the call, on the call count, or on the data), so no order map describes the "
       "target");
}

void MapRevealer::resolve_conflicts() {
  std::vector<Conflict> conflicts;
  conflicts.swap(conflicts_);
  for (const Conflict& conflict : conflicts) {
    if (!classes_[conflict.class_id].alive) continue;  // already divided by an earlier broadcast
    const std::vector<Measurement> grid = broadcast_and_split(conflict.request);
    // The broadcast must repeat what each element answered before.
    check_repeated(conflict.first, conflict.first_value, grid, conflict.request);
    check_repeated(conflict.second, conflict.second_value, grid, conflict.request);
  }
}

// ---- per-element checks ---------------------------------------------------------------------------

bool MapRevealer::check_elements(bool fix, std::size_t rounds) {
  if (fix && !check_pair_answers()) return false;
  if (rounds == 0 || rounds > kCheckRounds) rounds = kCheckRounds;
  const std::size_t R = rows_.lines(), C = columns_.lines();
  if (n_ < 2) return true;
  const auto n = static_cast<std::uint32_t>(n_);
  // The probes: the edges of the reduction, where tail kernels differ, and random pairs.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  const auto add = [&](std::uint32_t i, std::uint32_t j) {
    if (i != j && i < n && j < n) pairs.emplace_back(i, j);
  };
  add(n - 1, n - 2);
  add(n - 2, n - 1);
  add(0, n - 1);
  add(n - 1, 0);
  add(0, 1);
  add(n / 2, n - 1);
  for (std::uint32_t i = n > 16 ? n - 16 : 0; i + 1 < n; ++i) {
    add(i, n - 1);
    add(i, i + 1);
    if (i + 2 < n) add(i, i + 2);
  }
  for (std::uint32_t i = 0; i < std::min<std::uint32_t>(8, n); ++i) add(i, i + 1);
  std::mt19937_64 rng(options_.seed ^ 0x3a9c);
  std::uniform_int_distribution<std::uint32_t> leaf(0, n - 1);
  for (std::size_t k = 0; k < options_.verify_probes; ++k) add(leaf(rng), leaf(rng));

  const bool restricted = uses_low_range_mode(n_, session_.scheme());
  std::vector<std::unique_ptr<LcaIndex>> lca(classes_.size());
  std::vector<std::optional<SubtreeLeaves>> subtrees(classes_.size());
  for (std::uint32_t id = 0; id < classes_.size(); ++id) {
    if (!classes_[id].alive) continue;
    lca[id] = std::make_unique<LcaIndex>(classes_[id].tree);
    if (restricted) subtrees[id].emplace(classes_[id].tree);
  }
  // Beyond the exact counting range each line checks the class of its first element, with the
  // units of the parent of the pair's LCA in that class's tree (as tree_checks.cpp does).
  std::vector<Background> backgrounds;
  backgrounds.reserve(std::max(R, C));

  std::optional<Mismatch> mismatch;
  std::shared_ptr<Background> mismatch_background;
  // The first rounds give every element its class's edge pairs (one a call, the same on every line
  // through the class; a line through several classes serves them in turn, round by round); the
  // later rounds spread the pairs above over the lines, so that a band of rows or columns answers
  // all of them.
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> edges(classes_.size());
  for (std::uint32_t id = 0; id < classes_.size(); ++id)
    if (classes_[id].alive) edges[id] = edge_pairs(classes_[id].tree);
  const std::size_t axes = session_.info().columns_placement ? 2 : 1;
  const std::size_t edge_rounds = kCheckRounds / 2;
  std::vector<std::vector<std::uint32_t>> row_classes(R), column_classes(axes == 2 ? C : 0);
  for (std::size_t r = 0; r < R; ++r) row_classes[r] = classes_on(r, true);
  for (std::size_t c = 0; c < column_classes.size(); ++c) column_classes[c] = classes_on(c, false);
  for (std::size_t round = 0; round < rounds && !mismatch; ++round) {
    for (Placement placement : {Placement::rows, Placement::columns}) {
      if (placement == Placement::columns && !session_.info().columns_placement) continue;
      const bool by_rows = placement == Placement::rows;
      const std::size_t line_count = by_rows ? R : C;
      std::vector<ProbeRequest> lines(line_count);
      std::vector<std::uint32_t> owner(line_count, 0xffffffffu);
      backgrounds.clear();
      const std::size_t shift = round * 2 + (by_rows ? 0 : 1);
      const std::size_t slot = round * axes + (by_rows ? 0 : 1);  // this call's place among the element's
      for (std::size_t line = 0; line < line_count; ++line) {
        std::pair<std::uint32_t, std::uint32_t> chosen =
            pairs[(line + shift * (pairs.size() / (2 * kCheckRounds) + 1)) % pairs.size()];
        if (round < edge_rounds) {
          // Beyond the exact counting range a line checks only the class of its first element
          // (below), so that class's edge pairs.
          const std::vector<std::uint32_t>& here = by_rows ? row_classes[line] : column_classes[line];
          const auto& own = edges[restricted ? here.front() : here[round % here.size()]];
          if (!own.empty()) chosen = own[slot % own.size()];
        }
        const auto& [i, j] = chosen;
        if (!restricted) {
          lines[line] = {i, j, session_.all_active(), n};
          continue;
        }
        const std::uint32_t id = by_rows ? class_of(line, 0) : class_of(0, line);
        const Tree& tree = classes_[id].tree;
        const NodeId v = lca[id]->lca(i, j);
        NodeId scope = tree.parent(v) != kNoNode ? tree.parent(v) : v;
        if (tree.leaves_under(scope) - 2 >= session_.scheme().exact_count_limit) scope = v;
        std::vector<std::uint32_t> active = subtrees[id]->sorted(scope);
        const auto count = static_cast<std::uint32_t>(active.size());
        backgrounds.push_back(ProbeSession::restricted(std::move(active)));
        lines[line] = {i, j, &backgrounds.back(), count};
        owner[line] = id;
      }
      session_.measure_grid(placement, lines, grid_);
      for (std::size_t line = 0; line < line_count && !mismatch; ++line) {
        const ProbeRequest& request = lines[line];
        const std::size_t count = by_rows ? C : R;
        std::uint32_t last_class = 0xffffffffu;
        std::uint32_t predicted = 0;
        for (std::size_t k = 0; k < count; ++k) {
          const std::size_t r = by_rows ? line : k, c = by_rows ? k : line;
          const std::uint32_t id = class_of(r, c);
          if (restricted && id != owner[line]) continue;
          if (id != last_class) {
            last_class = id;
            // (restricted: the scope holds the whole LCA subtree, so every leaf under it is active)
            predicted = lca[id]->leaf_count(request.plus, request.minus);
          }
          const Measurement& m = grid_[r * C + c];
          ++stats_.element_checks;
          if (!m.saturated && m.l == predicted) continue;
          mismatch = Mismatch{r, c, id, request, m, predicted};
          if (!request.background->all_active)
            mismatch_background = std::make_shared<Background>(
                ProbeSession::restricted(request.background->active));
          if (mismatch_background) mismatch->request.background = mismatch_background.get();
          break;
        }
      }
      if (mismatch) break;
      stats_.verified_probes += line_count;
    }
  }
  if (!mismatch) return true;
  divide_by_mismatch(*mismatch, fix);
  return false;
}

std::vector<std::uint32_t> MapRevealer::classes_on(std::size_t line, bool is_row) const {
  std::vector<std::uint32_t> ids;
  const std::size_t count = is_row ? columns_.lines() : rows_.lines();
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint32_t id = is_row ? class_of(line, k) : class_of(k, line);
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

void MapRevealer::divide_by_mismatch(const Mismatch& mismatch, bool fix) {
  const auto report = [&](const std::string& what) {
    std::ostringstream os;
    os << what << ": output element " << element_text(mismatch.row, mismatch.column)
       << " (class " << describe_class(mismatch.class_id) << ") measured l(" << mismatch.request.plus
       << "," << mismatch.request.minus << ") = " << show(mismatch.measured)
       << " but its class's tree predicts " << mismatch.predicted;
    fail(Finding::verification_failed, os.str(),
         describe_probe(mismatch.request.plus, mismatch.request.minus, mismatch.request.active_count) +
             " at output element " + element_text(mismatch.row, mismatch.column),
         std::nullopt,
         "the target no longer follows this order map (its order changed), or its order depends "
         "on the values or on the element's position in a way the map does not capture");
  };
  if (!fix) report("the order map does not hold");
  if (++fixes_ > kMaxRestarts)
    report("the order map still disagrees with its elements after " + std::to_string(kMaxRestarts) +
           " splits or fresh reveals");
  // Divide every class by the probe; a class whose elements all disagree with its tree is
  // revealed afresh.
  const std::vector<Measurement> grid = broadcast_and_split(mismatch.request);
  (void)grid;
  if (classes_[mismatch.class_id].alive) restart(mismatch.class_id);
}

// ---- every element proven in full -----------------------------------------------------------------

std::optional<std::size_t> MapRevealer::element_proof_calls() const {
  if (n_ < 2 || uses_low_range_mode(n_, session_.scheme())) return std::nullopt;
  std::vector<std::size_t> proof(classes_.size(), 0);
  for (std::uint32_t id = 0; id < classes_.size(); ++id)
    if (classes_[id].alive) proof[id] = count_confirm_probes(classes_[id].tree);
  std::size_t calls = 0;
  for (std::size_t r = 0; r < rows_.lines(); ++r) {
    std::size_t here = 0;
    for (std::uint32_t id : classes_on(r, true)) here += proof[id];
    calls = std::max(calls, here);
  }
  return calls;
}

bool MapRevealer::prove_every_element_if_asked(bool fix) {
  if (options_.element_proof_summands == 0) return true;
  const std::optional<std::size_t> calls = element_proof_calls();
  if (!calls) {
    stats_.element_proof_skipped = "beyond the exact counting range the elements are not proven one by one";
    return true;
  }
  const double summands = static_cast<double>(*calls) * static_cast<double>(session_.info().grid.size()) *
                          static_cast<double>(session_.leaves());
  // The calls so far tell what one costs: a slow library is not held for minutes either.
  const double seconds = stats_.target_calls == 0 ? 0.0
                                                  : static_cast<double>(*calls) * stats_.target_seconds /
                                                        static_cast<double>(stats_.target_calls);
  if (summands > static_cast<double>(options_.element_proof_summands) || seconds > options_.element_proof_seconds) {
    std::ostringstream why;
    why << "proving every element in full would take " << *calls << " calls of the whole grid (about "
        << std::fixed << std::setprecision(0) << seconds << " s), over the limit";
    stats_.element_proof_skipped = why.str();
    return true;
  }
  stats_.element_proof_skipped.clear();
  return prove_every_element(fix);
}

bool MapRevealer::prove_every_element(bool fix) {
  const std::size_t R = rows_.lines(), C = columns_.lines();
  const std::optional<std::size_t> calls = element_proof_calls();
  if (!calls) return true;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> proofs(classes_.size());
  std::vector<std::unique_ptr<LcaIndex>> lca(classes_.size());
  for (std::uint32_t id = 0; id < classes_.size(); ++id) {
    if (!classes_[id].alive) continue;
    proofs[id] = confirm_pairs(classes_[id].tree);
    lca[id] = std::make_unique<LcaIndex>(classes_[id].tree);
  }
  // Each row carries the proofs of its classes one after another (then again from the start: the
  // elements of its other classes are checked on those pairs too).
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> queue(R);
  for (std::size_t r = 0; r < R; ++r)
    for (std::uint32_t id : classes_on(r, true)) queue[r].insert(queue[r].end(), proofs[id].begin(), proofs[id].end());
  const auto n = static_cast<std::uint32_t>(n_);
  std::vector<ProbeRequest> lines(R);
  std::vector<Mismatch> mismatches;  // one per probe that some element answered otherwise
  for (std::size_t t = 0; t < *calls; ++t) {
    for (std::size_t r = 0; r < R; ++r) {
      const auto& [i, j] = queue[r][t % queue[r].size()];
      lines[r] = {i, j, session_.all_active(), n};
    }
    session_.measure_grid(Placement::rows, lines, grid_);
    ++stats_.element_proof_calls;
    for (std::size_t r = 0; r < R; ++r) {
      std::uint32_t last_class = 0xffffffffu, predicted = 0;
      for (std::size_t c = 0; c < C; ++c) {
        const std::uint32_t id = class_of(r, c);
        if (id != last_class) {
          last_class = id;
          predicted = lca[id]->leaf_count(lines[r].plus, lines[r].minus);
        }
        const Measurement& m = grid_[r * C + c];
        ++stats_.element_checks;
        if (!m.saturated && m.l == predicted) continue;
        // The whole proof still runs: elements that changed in other ways answer other probes,
        // and all of them divide the classes in this one pass (one fix, not one per element).
        const bool seen = std::any_of(mismatches.begin(), mismatches.end(), [&](const Mismatch& x) {
          return x.request.plus == lines[r].plus && x.request.minus == lines[r].minus;
        });
        if (!seen) mismatches.push_back({r, c, id, lines[r], m, predicted});
        break;  // the row's other elements answered the same probe: its broadcast divides them
      }
    }
    stats_.verified_probes += R;
    if (!fix && !mismatches.empty()) break;  // checking a known map: the first disagreement is the verdict
  }
  if (mismatches.empty()) {
    stats_.every_element_proven = true;
    return true;
  }
  divide_by_mismatch(mismatches.front(), fix);  // without `fix`: fails there
  for (std::size_t k = 1; k < mismatches.size(); ++k) {
    broadcast_and_split(mismatches[k].request);
    if (classes_[mismatches[k].class_id].alive) restart(mismatches[k].class_id);
  }
  return false;
}

void MapRevealer::assume(const OrderMap& map) {
  const OutputGrid& grid = session_.info().grid;
  if (!(map.grid == grid))
    fail(Finding::verification_failed,
         "the order map is for a " + std::to_string(map.grid.rows) + " x " +
             std::to_string(map.grid.columns) + " grid but the target has " +
             std::to_string(grid.rows) + " x " + std::to_string(grid.columns) + " outputs");
  for (const OrderClass& c : map.classes)
    if (c.tree.leaf_count() != n_)
      fail(Finding::verification_failed, "a class's tree has " + std::to_string(c.tree.leaf_count()) +
                                             " leaves but the target adds " + std::to_string(n_) +
                                             " summands");
  // Labels: rows (columns) with the same classes along them.
  const std::size_t R = grid.rows, C = grid.columns;
  const std::vector<std::uint32_t> element = classes_of_elements(map);
  std::vector<std::uint64_t> row_hash(R, 0), column_hash(C, 0);
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) {
      row_hash[r] = mix(row_hash[r], element[r * C + c]);
      column_hash[c] = mix(column_hash[c], element[r * C + c]);
    }
  rows_ = AxisLabels(R);
  columns_ = AxisLabels(C);
  rows_.refine(row_hash, [&](std::size_t a, std::size_t b) {
    return std::equal(element.begin() + static_cast<std::ptrdiff_t>(a * C),
                      element.begin() + static_cast<std::ptrdiff_t>((a + 1) * C),
                      element.begin() + static_cast<std::ptrdiff_t>(b * C));
  });
  columns_.refine(column_hash, [&](std::size_t a, std::size_t b) {
    for (std::size_t r = 0; r < R; ++r)
      if (element[r * C + a] != element[r * C + b]) return false;
    return true;
  });
  classes_.clear();
  for (const OrderClass& c : map.classes) {
    classes_.emplace_back();
    classes_.back().tree = c.tree;
  }
  blocks_.assign(static_cast<std::size_t>(rows_.count()) * columns_.count(), 0);
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) blocks_[rows_[r] * columns_.count() + columns_[c]] = element[r * C + c];
  rebuild_lines();
}

OrderMap MapRevealer::map() const {
  OrderMap map;
  map.grid = session_.info().grid;
  // Classes with equal trees (equal orders, different arithmetic) are one class of the map.
  std::vector<std::uint32_t> index(classes_.size(), 0xffffffffu);
  for (std::uint32_t a = 0; a < rows_.count(); ++a)
    for (std::uint32_t b = 0; b < columns_.count(); ++b) {
      const std::uint32_t id = block(a, b);
      if (index[id] == 0xffffffffu) {
        for (std::uint32_t k = 0; k < map.classes.size() && index[id] == 0xffffffffu; ++k)
          if (map.classes[k].tree == classes_[id].tree) index[id] = k;
        if (index[id] == 0xffffffffu) {
          index[id] = static_cast<std::uint32_t>(map.classes.size());
          map.classes.emplace_back();
          map.classes.back().tree = classes_[id].tree;
        }
      }
      map.classes[index[id]].regions.push_back({rows_.ranges_of(a), columns_.ranges_of(b)});
    }
  canonicalize(map);
  return map;
}

std::vector<std::uint32_t> MapRevealer::element_classes() const {
  const std::size_t R = rows_.lines(), C = columns_.lines();
  std::vector<std::uint32_t> out(R * C);
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) out[r * C + c] = class_of(r, c);
  return out;
}

const Tree& MapRevealer::class_tree(std::uint32_t id) const { return classes_[id].tree; }

double MapRevealer::partition_output(std::size_t input, std::size_t row, std::size_t column) const {
  const Snapshot& snap = partition_.at(input);
  const std::uint64_t bits = snap.value[snap.row_label[row] * snap.columns + snap.column_label[column]];
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace fprev::detail
