// Checks around a reveal: determinism before, verification of the tree after, and the test that
// tells a fixed fused node from a value-dependent order.
#pragma once

#include <functional>
#include <optional>
#include <span>

#include "algorithms.hpp"

namespace fprev::detail {

// Random inputs and what the target returned for them.
struct ValueRecord {
  std::size_t inputs = 0;    // rows of a (grid targets: one per row of the grid)
  std::size_t distinct = 0;  // distinct random inputs among them
  std::size_t runs = 0;      // back-to-back runs compared when it was recorded
  std::vector<double> a, b;
  std::vector<std::uint32_t> column_factors;  // ValueBatch::column_factors (grid records); empty: b for all
  std::vector<double> outputs;
};

// Single-output targets: repeated random inputs; grid targets: every element of repeated calls,
// the first of grid_value_inputs() on every row. Returns the inputs and outputs, for
// check_unchanged after the reveal (and, on a grid, as the order map's first value partition).
ValueRecord check_determinism(ProbeSession& session, const RevealOptions& options,
                              const RandomInputs* made = nullptr);
// A single-output target's determinism inputs (check_determinism's; `made` there where they are
// made once for many checks).
RandomInputs determinism_inputs(const TargetInfo& info, const RevealOptions& options);
// The random inputs a grid target's order map is first partitioned by (each on every row of a call).
RandomInputs grid_value_inputs(const TargetInfo& info, const RevealOptions& options);

// A grid target whose map is known (a confirmation): the determinism check runs on the grid
// simulation's random inputs (row r adds input r mod count, count = min(verify_inputs, rows)), so
// that the simulation compares the outputs it already has instead of making a call of its own.
// `simulation` receives the inputs; count is 0 (and the record check_determinism's) where no
// input is to be simulated (verify_inputs 0, fewer than two summands).
struct SimulatedRecord {
  ValueRecord record;
  RandomInputs simulation;
  std::size_t count = 0;
  // Targets whose columns take right factors of their own (TargetInfo::column_right_factors):
  // column c adds the right factors column_b[c mod q] (q x n, q = min(count, columns) >= 2, the
  // record's b with column_factors c mod q), so that
  // each row is compared with the rows of its input on q inputs, and each column with the columns
  // of its factors on `count` (RevealStats::row_signatures, column_signatures). Empty otherwise:
  // every column adds simulation.b.
  std::vector<double> column_b;
};
// With `final_run_follows` (a confirmation, whose check_unchanged after the proof is a run of the
// same inputs), one run fewer is made before: grid_determinism_runs counts that final run too.
SimulatedRecord check_grid_determinism_for_simulation(ProbeSession& session, const RevealOptions& options,
                                                      bool final_run_follows = false);
// The simulation's inputs on a grid (verify_inputs >= 1, n >= 2), evaluated `runs` times and
// compared run to run.
SimulatedRecord grid_simulation_record(ProbeSession& session, const RevealOptions& options, std::size_t runs);
// The recorded inputs once more (no comparison).
std::vector<double> evaluate_record_again(ProbeSession& session, const ValueRecord& record);
// The placement proofs of a grid (alignment_check.cpp) share one measurement of the simulation's
// inputs: taken once where `map` is known (offset 0) and simulated against it there; nullopt where
// that does not apply (no simulation inputs, a map not confirmed by probes, a simulation that
// disagrees: every placement then makes its full confirm()).
std::optional<SimulatedRecord> grid_placement_reference(Target& target, const OrderMap& map,
                                                        const RevealOptions& options);
// confirm() of `map` at another placement against that reference: the proof, the fused-node tests,
// then the reference's inputs once, which must give its bits at every element (the same trees and
// the same arithmetic give the same bits; the run to run and the simulation checks were made on
// them). nullopt where some element's bits differ: the full confirm() then decides, with its own
// determinism check and simulation. Throws RevealFailure (verification_failed) where a proof probe
// disagrees, as confirm() does.
std::optional<RevealStats> confirm_grid_against_reference(Target& target, const OrderMap& map,
                                                          const RevealOptions& options,
                                                          const SimulatedRecord& reference);
// RevealStats::row_signatures and column_signatures from the value partition of a reveal:
// `inputs` inputs, each added by every element; output(t, r, c) is element (r, c)'s output on input
// t (FNV-1a over the bits). A line's signature is kept only where it rests on two inputs or more.
void grid_signatures(const OutputGrid& grid, std::size_t inputs,
                     const std::function<double(std::size_t, std::size_t, std::size_t)>& output, RevealStats& stats);
// The same from a grid record (its first run): row r added input r mod count, column c the right
// factors c mod q (SimulatedRecord::column_b; q = 1 without them). Rows are compared on q inputs,
// columns on count. An element `reproduced` marks (its output is its class's tree's sum: see
// compare_recorded_grid_simulation) is alike with every other such element, whatever its inputs;
// the others are alike where their inputs and bits are the same.
void grid_signatures(const OutputGrid& grid, const SimulatedRecord& measured, RevealStats& stats,
                     const std::vector<bool>& reproduced = {});

// Compares every element of the record's first run with its class's tree (compare_grid_simulation)
// and returns, per element, whether its output was the tree's sum bitwise (empty: nothing compared).
std::vector<bool> compare_recorded_grid_simulation(const TargetInfo& info, const SimulatedRecord& measured,
                                                   const std::vector<std::uint32_t>& element_class,
                                                   const std::function<const Tree&(std::uint32_t)>& tree_of,
                                                   RevealStats& stats);
// Evaluates the recorded inputs again: an output that differs now means the order changed between
// calls (batch_inconsistent), something no run-to-run comparison of back-to-back calls can see.
// A record of a single run has had no back-to-back comparison: on a difference the inputs are run
// twice more back to back, and outputs that differ there are `nondeterministic`.
void check_unchanged(ProbeSession& session, const ValueRecord& record);

// Compares a single-output target with `tree`: `probe_count` random l(i,j) (plus every l(0,j) when
// `all_from_first` is set) and, where the arithmetic model applies, bitwise simulation of
// `input_count` random inputs. Throws RevealFailure(verification_failed) on any disagreement.
void check_tree(ProbeSession& session, const Tree& tree, const RevealOptions& options,
                std::size_t probe_count, bool all_from_first, RevealStats& stats);
// The simulation part of check_tree in two steps: the tree's sums on the simulation's random inputs
// (nullopt where nothing is simulated: no inputs asked for, or a fused arithmetic without a model),
// then the target's outputs on those inputs compared with them bitwise.
std::optional<std::vector<double>> simulated_outputs(const TargetInfo& info, const Tree& tree,
                                                     const RevealOptions& options);
// `made`: the simulation's inputs where they are made once for many checks (simulation_inputs).
void check_simulated_outputs(ProbeSession& session, const RevealOptions& options,
                             const std::optional<std::vector<double>>& expected, RevealStats& stats,
                             const RandomInputs* made = nullptr);
RandomInputs simulation_inputs(const TargetInfo& info, const RevealOptions& options);

// The class of every element of a map's grid, row-major, from the regions (one walk over the grid,
// not a search per element). A map whose regions do not partition its grid fails
// (verification_failed).
std::vector<std::uint32_t> classes_of_elements(const OrderMap& map);

// Grid targets: bitwise simulation of random inputs, every element against its class's tree
// (`element_class` row-major, trees by class id): a mismatch is a note for targets without an exact
// arithmetic model, a failure otherwise. On outputs already measured: `input_count` rows of
// `inputs`, input t added by every element of the rows r with reaches(t, r), whose outputs are
// output_at(t, r * columns + c). With `column_b` (q x n, SimulatedRecord::column_b), column c's
// right factors are column_b[c mod q] instead of inputs.b.
void compare_grid_simulation(const TargetInfo& info, const RandomInputs& inputs, std::size_t input_count,
                             const std::function<bool(std::size_t input, std::size_t row)>& reaches,
                             const std::function<double(std::size_t input, std::size_t element)>& output_at,
                             const std::vector<std::uint32_t>& element_class,
                             const std::function<const Tree&(std::uint32_t)>& tree_of, RevealStats& stats,
                             std::span<const double> column_b = {}, std::vector<bool>* matched = nullptr);

// The fused-node test (fused_node_test.cpp). For every node of `tree` with three or more children
// (a sample of at most a few), inputs on which any fixed fused step returns its exact sum, while an
// order that sorts by value rounds an intermediate sum. `evaluate` runs the inputs (rows x n
// values of a, shared b) on the elements concerned and returns, per input, the outputs observed
// there (several for a grid class). Throws RevealFailure(value_dependent) with what it observed.
using FusedTestRunner = std::function<std::vector<std::vector<double>>(
    std::size_t inputs, const std::vector<double>& a, const std::vector<double>& b)>;
void check_fused_nodes(const TargetInfo& info, const Tree& tree, const FusedTestRunner& evaluate,
                       RevealStats& stats, const std::string& where = {});

// A random input that adding in the tree's order does not reproduce bitwise: a note on the stats
// for targets whose arithmetic is not modelled exactly (the order rests on the probes), a
// verification_failed diagnostic otherwise. Returns true when it was only a note.
// Whether a single-output `target` returns `tree`'s simulated sum bitwise on options.verify_inputs
// random inputs (the simulation check's inputs, without its verdict); false where the tree has no
// model here (fused nodes) or there are no such inputs. The alignment check asks it before it takes
// offset 0's outputs as the reference for the other placements.
bool reproduces_tree_on_random_inputs(Target& target, const Tree& tree, const RevealOptions& options);

bool simulation_mismatch(const NumericTraits& traits, const std::string& what, const std::string& probe,
                         double output, RevealStats& stats);

// The leaves under `node`, ascending (iterative).
std::vector<std::uint32_t> leaves_of(const Tree& tree, NodeId node);

// The leaves under every node of a tree, for code that asks for many nodes' leaf sets (the
// restricted proof asks for every inner node's, at every placement; the checks beyond the exact
// counting range one per probe): one depth-first order of the
// leaves, in which each node's leaves are a contiguous range (O(n) once), so a node's split of all
// leaves into its own and the rest, both ascending, costs one scan of n stamps instead of a walk of
// its subtree and a sort.
class SubtreeLeaves {
 public:
  explicit SubtreeLeaves(const Tree& tree);
  // The leaves under `node` in depth-first order (not sorted).
  std::span<const std::uint32_t> depth_first(NodeId node) const;
  // The leaves under `node`, ascending (what leaves_of gives, without walking the subtree).
  std::vector<std::uint32_t> sorted(NodeId node) const;
  // `inside`: the leaves under `node`, `outside`: every other leaf; both ascending (replaced).
  void split(NodeId node, std::vector<std::uint32_t>& inside, std::vector<std::uint32_t>& outside);

 private:
  const Tree* tree_;
  std::vector<std::uint32_t> order_;  // the leaves, depth-first
  std::vector<std::uint32_t> first_;  // node -> position of its first leaf in order_
  std::vector<std::uint32_t> stamp_;  // leaf -> the last node (+ 1) whose split marked it
};

// Runs `run` run_count times: every output finite, and bitwise the same in every run; otherwise a
// nondeterministic (or non_finite_output) diagnostic naming the output with `name`.
// Returns the outputs of the first run.
std::vector<double> compare_runs(std::size_t run_count,
                                 const std::function<std::vector<double>()>& run,
                                 const std::function<std::string(std::size_t)>& name);

}  // namespace fprev::detail
