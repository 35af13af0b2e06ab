// The revelation engine: reveals a target's summation tree with FPRev (Xie et al., USENIX ATC 2025 Alg. 4, with the
// low-dynamic-range technique of Alg. 5 switched on automatically), BasicFPRev (Alg. 2) or the naive
// search (Sec. 3.3, n <= 8). A grid target (a GEMM, a GEMV: many outputs per call) gets an order
// map: the classes of output elements that follow the same tree, each revealed from probes
// measured at its own elements (docs/order-maps.md). A target that misbehaves never yields a tree:
// reveal() throws RevealFailure carrying a Diagnostic.
//
// Fused nodes of any width are accepted. A revealed node with three or more children is tested
// before it is reported: a fixed fused step adds its terms at once, so on values that are exact
// multiples of the largest term's unit in the last place, with an exact sum, it returns that sum
// exactly whatever its alignment width; a value-dependent order (sorting by magnitude, sorting
// within blocks, data-dependent blocking) rounds an intermediate sum and is reported as
// value_dependent with the values and the output observed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fprev/mask_scheme.hpp"
#include "fprev/order_map.hpp"
#include "fprev/target.hpp"
#include "fprev/tree.hpp"

namespace fprev {

enum class Algorithm : std::uint8_t { fprev, basic, naive };
std::string_view to_string(Algorithm algorithm);
std::optional<Algorithm> parse_algorithm(std::string_view name);

// What kind of misbehaviour was found.
enum class Finding : std::uint8_t {
  nondeterministic,        // run-to-run differences on identical inputs (atomics, Shanmugavelu et al., SC24 workshops)
  order_independent,       // exact / correctly rounded sum: no summation tree exists (Collange et al., Parallel Computing 2015)
  value_dependent,         // the order changes with the values (e.g. sorting by magnitude)
  non_finite_output,       // NaN or infinity where a count was expected
  not_whole_count,         // output is not a whole number of units
  count_out_of_range,      // more units than are active, or negative
  inconsistent_structure,  // the l(i,j) values cannot form a summation tree
  verification_failed,     // the revealed tree does not reproduce the target's results
  batch_inconsistent,      // the order of an output changes between calls (or a single-output
                           // target saw its batch's rows disagree)
  unsupported,             // the formats cannot mask this many summands, or n is too large
  target_error,            // the target itself failed (library or device error)
  ranks_disagree,          // the ranks of an allreduce received different bits
  target_fault,            // the target's process crashed, exited, hung or ran out of memory
                           // (supervised workers: fprev/worker.hpp); never recorded as a baseline
};
std::string_view to_string(Finding finding);
std::optional<Finding> parse_finding(std::string_view name);  // the inverse of to_string

// Run-to-run variability of a non-deterministic target (Shanmugavelu et al., SC24 workshops, Eq. 1 and 2): outputs of
// repeated runs B_r compared with the first run A.
struct Variability {
  std::size_t runs = 0;
  std::size_t inputs = 0;       // distinct inputs per run
  double count_variability = 0.0;  // V_c: fraction of outputs that differ from run 0
  double ermv = 0.0;               // V_ermv: mean |A - B| / |A|
  std::size_t distinct_outputs = 0;  // most distinct values seen for one input
};

struct Diagnostic {
  Finding finding = Finding::inconsistent_structure;
  std::string message;       // one paragraph a person can act on
  std::string probe;         // the probe involved, e.g. "A^{3,7} (+M at leaf 3, -M at leaf 7)"
  std::optional<double> raw_output;
  std::string likely_cause;
  std::optional<Variability> variability;
  std::string to_string() const;  // full multi-line text
};

class RevealFailure : public std::runtime_error {
 public:
  explicit RevealFailure(Diagnostic diagnostic);
  const Diagnostic& diagnostic() const { return diagnostic_; }

 private:
  Diagnostic diagnostic_;
};

struct RevealStats {
  std::size_t probes = 0;          // masked inputs evaluated
  std::size_t target_calls = 0;    // evaluate() calls (probes and value batches), verification included
  // Of target_calls, those after the tree (or map) was found: the fused-node test, the verification
  // probes, the bitwise simulation and the final comparison with the determinism check's outputs.
  std::size_t verification_calls = 0;
  std::size_t value_inputs = 0;    // random inputs evaluated (determinism, verification)
  double target_seconds = 0.0;     // time inside Target::evaluate
  double total_seconds = 0.0;      // wall time of the whole reveal
  bool low_range_mode = false;     // Alg. 5 technique used (counts exceeded the output's capacity)
  std::size_t verified_probes = 0;  // l(i,j) predictions checked after the reveal
  std::size_t simulated_inputs = 0; // random inputs reproduced bitwise by simulating the tree
  // Set when the target's arithmetic differs from the simple model (extra precision) although the
  // probes gave a consistent tree; only for targets whose traits allow it.
  std::string arithmetic_note;
  // Grid targets (order maps).
  std::size_t map_classes = 1;      // classes of the map
  std::size_t value_classes = 0;    // groups of elements with equal outputs on random inputs
  std::size_t class_splits = 0;     // classes split because their elements disagreed on a probe
  std::size_t element_checks = 0;   // (element, probe) answers compared with the element's class tree
  // The pair grid (RevealOptions::pair_grid): its calls (also in target_calls) and the probes of
  // the classes' transcripts answered there rather than in rounds (not in `probes`).
  std::size_t pair_grid_calls = 0;
  std::size_t pair_grid_answers = 0;
  // FPRev's sub-problems guessed from a sibling's shape and proven by the guess's proof probes, and
  // guesses whose proof failed (those were revealed as usual). See src/engine/sibling_guess.hpp.
  std::size_t guesses_proven = 0;
  std::size_t guesses_failed = 0;
  // Fused nodes: inputs evaluated to tell a fixed fused step from a value-dependent order.
  std::size_t fused_node_tests = 0;
  // Bits a fixed fused step keeps from its largest term's leading bit, when that is fewer than the
  // data's precision (a short accumulator, TF32 rounding on input): measured by the fused-node test
  // instead of calling the order value-dependent. 0: not narrower (or no fused node).
  int fused_alignment_bits = 0;
  // confirm() (fprev/confirm.hpp): the known tree or map was confirmed by its proof probes, with no
  // reveal; and the probes that proof set took (also when it failed and a reveal followed).
  bool confirmed = false;
  std::size_t confirm_probes = 0;
  // Of `probes`, in a confirmation with RevealOptions::multi_pair_proofs: the proof probes that
  // carried several +M/-M pairs at once (ProbeBatch::extra_masks).
  std::size_t multi_pair_probes = 0;
  // Probe streams that measured probes concurrently (1: all on the caller's target). With several,
  // target_seconds adds up the time inside every stream's target, so it can exceed total_seconds.
  std::size_t streams = 1;
  // Waves: sets of independent probes measured together (every l(i,j) of one pivot, a batch of
  // proofs). Waves run one after another; the probes of a wave spread over the streams, so the
  // waves bound what more streams (or ranks) can gain: at least one call time per wave.
  std::size_t waves = 0;
  // Distributed mode (fprev/distributed.hpp): the MPI ranks of the run, and the probes each rank's
  // workers measured during this reveal (index: rank; verification and confirmation included).
  // Set by whoever ran the reveal; 1 and empty in a serial run.
  std::size_t ranks = 1;
  std::vector<std::size_t> rank_probes;
  // Grid targets: per column of the grid, a hash of the bits its elements returned on random inputs
  // that every column of a row shared (the value partition's in a reveal, the simulation's in a
  // confirmation or verification): columns with equal signatures computed alike at every row. Per
  // row (a reveal only: there every row added all the partition's inputs; a confirmation gives
  // each row one), the same over its columns: rows with equal signatures computed alike at every
  // column. The fingerprint reads a class in such rows and columns too (measure_map_fingerprints).
  // Not reported.
  std::vector<std::uint64_t> row_signatures, column_signatures;
  // Grid targets, a reveal only: every element's output (row-major) on the fingerprint's
  // uniformity input, measured by the value partition (docs/fingerprint.md, "Every element of a
  // class"): the fingerprint compares a class's elements on it without a call of its own. Empty
  // after a confirmation. Not reported.
  std::vector<double> uniformity_outputs;
  // Grid targets with RevealOptions::element_proof_summands: every element answered every proof
  // pair of its class's tree (its order proven in full, not sampled), in element_proof_calls
  // calls. Where it was asked for and not run, element_proof_skipped says why.
  bool every_element_proven = false;
  std::size_t element_proof_calls = 0;
  std::string element_proof_skipped;
};

struct Progress {
  std::size_t probes_done = 0;
  std::size_t leaves_placed = 0;
  std::size_t leaves_total = 0;
  double seconds = 0.0;  // since the reveal started
  // The cost model's expected probes for the whole reveal (fprev/cost_estimate.hpp): an ETA is
  // seconds * (probes_expected - probes_done) / probes_done, a guess that the model bounds.
  std::size_t probes_expected = 0;
};

// Thrown when a reveal runs past RevealOptions::max_seconds: not a finding about the target (its
// order is unknown, not wrong), so the gate reports it as a case over its time budget.
class RevealOverBudget : public std::runtime_error {
 public:
  RevealOverBudget(double budget_seconds, double seconds, std::size_t probes);
  double budget_seconds() const { return budget_seconds_; }
  double seconds() const { return seconds_; }
  std::size_t probes() const { return probes_; }

 private:
  double budget_seconds_;
  double seconds_;
  std::size_t probes_;
};

// How FPRev picks the leaf i whose l(i,j) it measures in each sub-problem. Alg. 4 takes the
// smallest: n - 1 probes for a sequential sum, but n(n-1)/2 for a reversed one. A random pivot
// (Xie et al., USENIX ATC 2025 Sec. 8.2) bounds the expected cost of chains (about 2n probes either way). `adaptive`
// takes the smallest leaf, except in a sub-problem that kept more than half of its parent's leaves
// (the parent's pivot sat high in the tree, as in a reversed sum), where it takes a random one:
// n - 1 probes for a sequential sum, O(n) expected for a reversed one, and Alg. 4's cost on lanes
// and pairwise trees. The tree is the same whichever is used.
enum class Pivot : std::uint8_t { adaptive, random, smallest };

struct RevealOptions {
  Algorithm algorithm = Algorithm::fprev;
  Pivot pivot = Pivot::adaptive;
  std::uint64_t seed = 0x5eed;
  std::size_t determinism_runs = 5;   // evaluations of the same random inputs before revealing
  // Grid targets compare every element of the grid in each run (a 512 x 512 GEMM: 262,144 outputs
  // a run, against 4 for a dot), and every later call is compared too (answers cached per class,
  // the record evaluated again at the end): two runs, the second of which is the map's first value
  // partition, so determinism costs one call of its own.
  std::size_t grid_determinism_runs = 2;
  std::size_t determinism_inputs = 4; // distinct random inputs (batched when the target allows)
  std::size_t verify_probes = 64;     // random l(i,j) checked against the finished tree (0: off)
  std::size_t verify_inputs = 8;      // random inputs reproduced by simulation (binary trees)
  // FPRev guesses a sub-problem as large as the subtree built so far to have that subtree's shape
  // (lanes, blocks and pairwise sums repeat themselves) and proves the guess with |J| - 1 probes
  // instead of revealing it; a failed proof falls back to the reveal. The tree is the same either
  // way, only the probe count changes (about 2n instead of n log n for a pairwise sum).
  bool guess_siblings = true;
  // Grid targets that take a block of right factors per column (a GEMM) with at least n rows and
  // n columns: every l(i, j) is measured in two calls at the grid's own elements (the pair grid,
  // src/engine/pair_grid.hpp) and each class's FPRev reads its answers there instead of waiting for
  // rounds of one probe per line. The probes FPRev asks, and so the map, are the same either way.
  bool pair_grid = true;
  // confirm() of a single-output target that takes further masks (TargetInfo::extra_masks) proves
  // the binary nodes of the tree with probes that carry several +M/-M pairs each (9 calls for 64
  // binary nodes of one height instead of 64; src/engine/multi_pair_proof.cpp has the argument),
  // where the formats leave room for them.
  // The placement (alignment) check turns it on; the proof means the same either way.
  bool multi_pair_proofs = false;
  // Grid targets: once the map is found, every element also answers every proof pair of its
  // class's tree (the pairs that pin a tree: fprev/confirm.hpp), one pair a call, so that an
  // element whose order changed anywhere in its tree is found, not only by chance (the sampled
  // checks: docs/limits.md). About n - 1 calls for each class along a row; taken when those calls
  // add up to at most this many summands (calls x outputs x leaves), 0: never. check asks for it
  // when a fingerprint disagreed under a map that the reveal found again or the confirmation of
  // the golden's map failed, update when the fingerprint differs from the golden it replaces under
  // the same map (docs/limits.md).
  std::uint64_t element_proof_summands = 0;
  // ... and when the calls it takes, at what the reveal's calls cost, add up to at most this long.
  double element_proof_seconds = 60.0;
  std::function<void(const Progress&)> on_progress;  // called now and then; may be empty
  // Probe streams: independent probes of a single-output target (every l(i,j) of a wave) are
  // measured on `streams` targets at once, each on its own thread with its own buffers: the
  // caller's target and streams - 1 more made by `make_worker` when the first large wave comes.
  // The tree, the probes and the target calls are those of a serial reveal. Only for targets whose
  // instances may run concurrently (the library keeps no process-global state that one call
  // changes under another); 1 or an empty factory: serial. Grid targets are always serial (one
  // call already carries a probe per row).
  std::size_t streams = 1;
  std::function<std::unique_ptr<Target>()> make_worker;
  // The MPI ranks the streams are spread over in a distributed run (fprev/distributed.hpp): for
  // what the cost estimate says. The engine itself does not care where a stream runs.
  std::size_t ranks = 1;
  // Time budget of one reveal() or verify() in seconds (0: none). Checked between target calls;
  // past it the engine throws RevealOverBudget.
  double max_seconds = 0.0;
  // What the case already spent of max_seconds before the reveal started (making the target,
  // reading its golden): counted as if the reveal had spent it.
  double spent_seconds = 0.0;
};

struct RevealResult {
  // The tree of every output: set when the map has one class (always for a single-output target),
  // empty (no leaves) when the outputs follow several trees. Read `map` for those.
  Tree tree;
  // Which output elements follow which tree (a single-output target: one class, a 1 x 1 grid).
  OrderMap map;
  RevealStats stats;
  MaskScheme scheme;
};

RevealResult reveal(Target& target, const RevealOptions& options = {});

// Checks that a target still follows `tree` without a full reveal: the determinism check, the
// l(i,j) of `probes` random pairs (and of every pair involving leaf 0), and bitwise simulation on
// random inputs when the tree is binary. On a grid target every element is checked against `tree`.
// Throws RevealFailure on any disagreement.
RevealStats verify(Target& target, const Tree& tree, const RevealOptions& options = {});
// The same for an order map: every element is checked against its class's tree.
RevealStats verify(Target& target, const OrderMap& map, const RevealOptions& options = {});

// Sum of `values` in the order of `tree`, with IEEE round-to-nearest additions in `accumulator`
// and fused nodes aligned to the largest exponent and truncated to precision + extra_bits, then
// rounded to `output`. Iterative (any depth).
double simulate_sum(const Tree& tree, std::span<const double> values, Format accumulator,
                    Format output, int fused_extra_bits = 0);

}  // namespace fprev
