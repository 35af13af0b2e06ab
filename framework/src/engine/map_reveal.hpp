// Order maps of grid targets (a GEMM's C, a GEMV's y): which output elements follow which tree.
//
// The grid's rows and columns carry labels (grid_labels.hpp), refined only by proof: two rows get
// different labels once some column held different answers in them to one input. A class is a set
// of blocks (row label x column label) and owns a revelation algorithm (FPRev) fed only with answers
// measured at its own elements.
//
//   1. Random inputs, each on every row of one call: labels are refined by the outputs' bits, and
//      the first classes are the groups of blocks with equal outputs (elements with one order and
//      one arithmetic return equal bits; different orders almost surely do not).
//   2. Rounds: the pending probes of all classes go on the grid in two calls, one input per row
//      (every column of the row adds it: the columns are compared) and one per column (the rows
//      are compared); a line serves every class with an element on it that waits for that probe,
//      and lines left over carry replicas. Answers refine the labels and are cached per class.
//   3. Two elements of one class that answer one probe differently split it: the probe goes to
//      every element (one call), every class is divided by its answer and the parts are revealed
//      afresh. An element whose answer to the same probe changed between calls is
//      batch_inconsistent.
//   4. Once every class has its tree, every element is checked against its class's tree with
//      sampled probes (edges of the reduction included); a disagreement splits or re-reveals the
//      class, and a class that keeps disagreeing is a diagnostic, never a tree.
// docs/order-maps.md says what this proves for each element.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "algorithms.hpp"
#include "grid_labels.hpp"

namespace fprev::detail {

struct ProbeKey {
  std::uint32_t plus = 0;
  std::uint32_t minus = 0;
  std::uint32_t background = 0;  // 0: every leaf active; else an interned active set
  friend bool operator==(const ProbeKey&, const ProbeKey&) = default;
};
struct ProbeKeyHash {
  std::size_t operator()(const ProbeKey& k) const {
    const std::uint64_t x = (std::uint64_t{k.plus} << 32 | k.minus) * 0x9e3779b97f4a7c15ull;
    return static_cast<std::size_t>(x ^ (x >> 29) ^ (std::uint64_t{k.background} * 0xbf58476d1ce4e5b9ull));
  }
};

class MapRevealer {
 public:
  MapRevealer(ProbeSession& session, const RevealOptions& options, RevealStats& stats);
  ~MapRevealer();

  // Reveals the tree of every class (classes split as their elements disagree).
  void reveal();
  // Checks every element against its class's tree with sampled probes. Returns true when all
  // agree; otherwise the disagreeing classes are split or restarted and reveal() must run again.
  // With `fix` false (checking a known map), a disagreement fails with verification_failed.
  // `rounds` (0: all) stops after that many rounds (two calls each where columns are placed).
  bool check_elements(bool fix, std::size_t rounds = 0);
  // Every element answers every proof pair of its class's tree (confirm_pairs: the pairs that pin
  // a tree, src/engine/confirm.cpp), one pair a call on the rows; a row through several classes
  // carries their proofs one after another. Returns true when every answer is its class's (and
  // sets RevealStats::every_element_proven); otherwise divides the classes as check_elements(true)
  // does and reveal() must run again (with `fix` false, checking a known map: fails with
  // verification_failed). Beyond the exact counting range it proves nothing and returns true
  // (element_proof_calls() is nullopt there).
  bool prove_every_element(bool fix = true);
  // prove_every_element() where RevealOptions::element_proof_summands asks for it and its calls
  // fit that limit and RevealOptions::element_proof_seconds; else RevealStats::element_proof_skipped
  // says why not, and it returns true.
  bool prove_every_element_if_asked(bool fix);
  // The calls prove_every_element() takes for the current map; nullopt where it cannot prove.
  std::optional<std::size_t> element_proof_calls() const;
  // Starts from a known map instead of revealing (verify() of a golden map).
  void assume(const OrderMap& map);
  // The outputs of the first value partition input (grid_value_inputs() input 0 on every row),
  // measured by the determinism check; `outputs` must outlive reveal().
  void use_first_partition(const std::vector<double>& outputs) { first_outputs_ = &outputs; }

  // The value partition's random inputs (grid_value_inputs()) and every element's output on them,
  // measured by reveal(): input t was added by every element.
  const RandomInputs& partition_inputs() const { return partition_inputs_; }
  std::size_t partition_input_count() const { return partition_.size(); }
  double partition_output(std::size_t input, std::size_t row, std::size_t column) const;
  // Every element's output (row-major) on the fingerprint's uniformity input, measured by the
  // partition (empty where it has none): RevealStats::uniformity_outputs.
  std::vector<double> take_uniformity_outputs() { return std::move(uniformity_outputs_); }

  OrderMap map() const;
  // The class tree of every element, row-major, and the trees themselves (for value checks).
  std::vector<std::uint32_t> element_classes() const;
  const Tree& class_tree(std::uint32_t id) const;

 private:
  struct Element {
    std::size_t row, column;
  };
  struct CacheEntry {
    Measurement value;
    Element where;  // the first element that gave it
  };
  struct MapClass {
    bool alive = true;
    std::unique_ptr<RevealAlgorithm> algorithm;  // null once the tree is known
    Tree tree;
    std::vector<Measurement> answers;  // the algorithm's current wave
    std::vector<bool> answered;
    std::unordered_map<ProbeKey, CacheEntry, ProbeKeyHash> cache;
    std::vector<std::size_t> rows, columns;  // lines holding at least one element of the class
    // The pair grid's answers at the class's elements (pair_grid.hpp): n x n, per ordered pair
    // (plus, minus) the count l << 32 | the first element (row-major index) that gave it, or
    // kNoPairAnswer. Empty where the pair grid did not run or two elements of the class disagreed.
    std::vector<std::uint64_t> pair_answers;
    std::size_t pair_answer_count = 0;  // element answers behind them (for element_checks)
  };
  static constexpr std::uint64_t kNoPairAnswer = ~std::uint64_t{0};
  // The outputs of one value partition input: per block of the labels of that time, as bits.
  struct Snapshot {
    std::vector<std::uint32_t> row_label, column_label;
    std::uint32_t columns = 0;
    std::vector<std::uint64_t> value;  // per block (row label x column label)
  };
  struct Mismatch {  // an element whose answer is not its class's tree's
    std::size_t row, column;
    std::uint32_t class_id;
    ProbeRequest request;
    Measurement measured;
    std::uint32_t predicted;
  };
  struct Conflict {
    std::uint32_t class_id;
    ProbeRequest request;
    std::shared_ptr<Background> owned_background;  // a copy, so the probe outlives its wave
    Measurement first_value, second_value;
    Element first, second;
  };

  std::uint32_t new_class();
  std::uint32_t block(std::uint32_t row_label, std::uint32_t column_label) const {
    return blocks_[row_label * columns_.count() + column_label];
  }
  std::uint32_t class_of(std::size_t row, std::size_t column) const {
    return block(rows_[row], columns_[column]);
  }
  void rebuild_lines();
  ProbeKey key_of(const ProbeRequest& request);
  std::string describe_class(std::uint32_t id) const;

  bool advance_classes();  // true while some class waits for answers
  void run_round();
  void run_call(Placement placement, std::vector<ProbeRequest>& lines, bool refine_other_axis);
  void refine(Placement placement, const std::vector<Measurement>& grid, std::size_t used_lines,
              bool other_axis);
  // Refines the labels from one call's outputs: code_at(r * columns + c) of every element.
  template <class CodeAt>
  void refine_with(Placement placement, std::size_t used_lines, bool other_axis, CodeAt code_at);
  void partition_by_values();
  // The pair grid's calls (pair_grid.hpp, map_pair_grid.cpp): fills the classes' pair_answers.
  void answer_from_pair_grid();
  // Moves the pair grid's answer to `request` (an all-active probe) into the class's cache; false
  // when it has none.
  bool take_pair_answer(MapClass& c, const ProbeRequest& request, const ProbeKey& key);
  // Every pair-grid answer of a class with a tree against that tree; false after a disagreement
  // (divided as check_elements divides). Frees the tables.
  bool check_pair_answers();
  void record(Placement placement, const std::vector<ProbeRequest>& lines,
              const std::vector<Measurement>& grid);
  void resolve_conflicts();
  // Puts `request` on every row, refines, and divides every class by its answer. Returns the
  // measurements of the call.
  std::vector<Measurement> broadcast_and_split(const ProbeRequest& request);
  // A class whose answers fit no single tree: puts its probes (the current wave's, then the
  // cached ones) on every element, one call each, until one divides the class. False when none
  // does (the answers are the target's own inconsistency) or the class has one element.
  bool divide_by_transcript(std::uint32_t id);
  std::unique_ptr<RevealAlgorithm> make_algorithm() const;
  void restart(std::uint32_t id);
  void check_repeated(const Element& where, const Measurement& before,
                      const std::vector<Measurement>& grid, const ProbeRequest& request) const;

  void check_class_count() const;
  // The classes along a row (is_row) or column, in the order of their first element there.
  std::vector<std::uint32_t> classes_on(std::size_t line, bool is_row) const;
  // Fails (verification_failed) unless `fix`, or past kMaxRestarts; else divides every class by
  // the mismatch's probe and re-reveals the element's class where it stayed whole.
  void divide_by_mismatch(const Mismatch& mismatch, bool fix);

  ProbeSession& session_;
  const RevealOptions& options_;
  RevealStats& stats_;
  std::size_t n_;
  AxisLabels rows_, columns_;
  std::vector<std::uint32_t> blocks_;  // row label x column label -> class id
  std::vector<MapClass> classes_;
  std::vector<Conflict> conflicts_;
  // Active sets of restricted backgrounds, interned so that equal sets share a cache key.
  std::unordered_map<std::uint64_t, std::uint32_t> background_keys_;  // Background::id -> key
  std::vector<std::vector<std::uint32_t>> interned_;
  std::vector<Measurement> grid_;  // the last call's measurements
  std::size_t fixes_ = 0;          // splits or fresh reveals caused by the per-element checks
  bool partitioned_ = false;
  const std::vector<double>* first_outputs_ = nullptr;
  RandomInputs partition_inputs_;
  std::vector<Snapshot> partition_;  // per value partition input
  std::vector<double> uniformity_outputs_;
};

}  // namespace fprev::detail
