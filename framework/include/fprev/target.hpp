// The target interface: one concrete accumulation (backend + op + formats + shape + settings) that
// the engine probes. A target adds `n` summands in every output it produces.
//
// Two kinds of targets:
//   * single-output targets (grid 1 x 1): each input gives one output; a call evaluates a batch of
//     independent inputs, up to max_batch (a dot product: 1; a reference sum: 1);
//   * grid targets (grid rows x columns > 1): one call produces a whole grid of outputs (GEMM: C is
//     m x n; GEMV: y is rows x 1; an MPI vector: count x 1), and each output may follow its own
//     summation tree. The engine places one input on each row (Placement::rows: every element of row
//     r adds input r's summands) or on each column (Placement::columns), reads every element, and
//     reveals an order map: which elements follow which tree (see fprev/order_map.hpp and
//     docs/order-maps.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fprev/format.hpp"

namespace fprev {

// How a summand is formed from the inputs.
enum class SummandKind : std::uint8_t {
  plain,               // the summand is the input value itself (sum)
  product,             // summand k = a[k] * b[k], both factors chosen per summand (dot)
  product_shared_rhs,  // summand k = a[k] * b[k] where b is shared by every input of a batch
                       // (GEMM/GEMV with one probe per row of A: B is the same for all rows)
};

struct NumericTraits {
  Format input = Format::float32;        // format of the values (of both factors for products)
  Format accumulator = Format::float32;  // format partial sums are kept in
  Format output = Format::float32;       // format of the result the target returns
  SummandKind summand = SummandKind::plain;
  // Widest fused step of the target's arithmetic *model*, where one is known (w+1 for a matrix
  // accelerator adding w products and the accumulator in one step). It bounds the naive search's
  // enumeration and tells the bitwise simulation that even 2-child nodes may be fused steps. It is
  // NOT an acceptance criterion: the engine accepts revealed fused nodes of any width from any
  // target and tells a value-dependent order apart by a test (see reveal.hpp), so a backend need not
  // declare it.
  std::size_t max_fused_width = 2;
  // Extra low-order bits a fused multi-term sum keeps while aligning (Valpey et al., NFM 2025: 0 on Volta,
  // 1 on Ampere, 3 carry bits). The mask scheme keeps this much more headroom.
  int fused_extra_bits = 0;
  // Set when fused nodes follow fprev::simulate_sum's model exactly (align to the largest exponent,
  // keep precision + fused_extra_bits bits, truncate, round to the accumulator), so that trees with
  // fused nodes can also be verified bitwise on random inputs. Binary trees always are.
  bool simulate_fused = false;
  // True when adding in the tree's order with the formats above reproduces the target bitwise
  // (reference kernels). Real libraries may keep part of a sum in wider registers (OpenBLAS sdot
  // keeps its tail in double): set false, and a simulation mismatch becomes a note on the result
  // instead of a failure. The tree itself always rests on the validated probes.
  bool exact_arithmetic_model = true;
};

// The outputs one call of a target produces, as a grid. 1 x 1 for a single-output target.
struct OutputGrid {
  std::size_t rows = 1;
  std::size_t columns = 1;
  std::size_t size() const { return rows * columns; }
  bool single() const { return rows == 1 && columns == 1; }
  friend bool operator==(const OutputGrid&, const OutputGrid&) = default;
};

// How a grid target spreads the inputs of one call over its grid.
enum class Placement : std::uint8_t {
  rows,     // input p feeds every element of row p (GEMM: row p of op(A), B shared by all rows)
  columns,  // input p feeds every element of column p (GEMM: column p of op(B), A shared)
};
std::string_view to_string(Placement placement);

// Whether a target's results can depend on where its input lies (docs/alignment.md). Carried by
// value (the worker protocol copies TargetInfo), so it is data, not a virtual function.
enum class AlignmentSupport : std::uint8_t {
  ignores,          // the target places its buffers as it likes and ignores ProbeBatch::offset and
                    // ValueBatch::offset: the order's dependence on the address is not checked
  honours_offsets,  // the target lays its inputs (and outputs) out at the offset the batch asks for
  not_applicable,   // the library places the data itself (MPI buffers, a GPU's allocator), or the
                    // order cannot depend on host addresses (a simulation): nothing to check
};
std::string_view to_string(AlignmentSupport support);

struct TargetInfo {
  std::string description;  // one line, e.g. "reference sequential float32 sum, n=1000"
  std::size_t n = 0;        // number of summands (leaves) of every output
  NumericTraits traits;
  std::size_t max_batch = 1;  // single-output targets: inputs per evaluate() call
  OutputGrid grid;            // grid targets: the outputs of one call (1 x 1: single-output)
  // Grid targets always accept Placement::rows; this says whether they accept Placement::columns
  // too (a GEMM or GEMV: the input goes into op(B) / x and op(A) holds the shared factors).
  bool columns_placement = false;
  // Grid targets with product summands whose every column may hold right factors of its own in a
  // value call with Placement::rows (a GEMM: op(B) is a whole matrix): ValueBatch::column_factors
  // then says which of b's blocks of n factors each column multiplies. The fingerprint packs inputs
  // with different right factors into one call this way (src/engine/fingerprint_packing.hpp).
  bool column_right_factors = false;
  // Where the batches' offset (and leading_pad) are honoured (the alignment check,
  // fprev/alignment.hpp).
  AlignmentSupport alignment = AlignmentSupport::ignores;
  // GEMM/GEMV targets that honour ProbeBatch::leading_pad: their leading dimensions (lda, ldb,
  // ldc) grow by that many elements, so columns start at other offsets from a 64-byte boundary.
  bool leading_dimensions = false;
  // Single-output targets that honour ProbeBatch::extra_masks (every target that builds its probe
  // inputs with fprev::ProbeVectors or ProbeBatch::leaf does): the placement proof then sends
  // probes with several +M/-M pairs (src/engine/multi_pair_proof.cpp).
  bool extra_masks = false;
  // Jobs the backend launched to make this target: an MPI job (launcher and ranks) is 1; 0 when
  // the target runs on a job an earlier target started and left running (the mpi backend keeps
  // one per launch), and for every backend without jobs. The gate adds them up per case
  // (`stats.jobs_started`).
  std::size_t jobs_started = 0;
  bool is_grid() const { return !grid.single(); }
};

// ---- probes -------------------------------------------------------------------------------------

// A summand's value as its factors: the summand equals a * b. For plain summands b == 1.
struct SummandValue {
  double a = 0.0;
  double b = 1.0;
  double value() const { return a * b; }
};

// The numeric values of the masked all-one construction (chosen by the mask scheme). Inactive
// leaves are zero: {0, unit.b}.
struct ProbeValues {
  SummandValue unit;   // an active leaf
  SummandValue plus;   // +M at leaf i
  SummandValue minus;  // -M at leaf j
  SummandValue zero() const { return {0.0, unit.b}; }
};

// Which leaves carry the unit (the rest are zero). Ids are unique within a process, so a target
// may cache a materialised background by id.
struct Background {
  std::uint64_t id = 0;
  bool all_active = true;
  std::vector<std::uint32_t> active;  // sorted leaf indices, used when !all_active
  static std::uint64_t next_id();
};

// One probe: +M at leaf `plus`, -M at leaf `minus`, the background elsewhere.
struct Probe {
  std::uint32_t plus = 0;
  std::uint32_t minus = 0;
  std::uint32_t background = 0;  // index into ProbeBatch::backgrounds
};

// A further mask on one leaf of a probe: probes of the placement proof carry several +M/-M pairs of
// different magnitudes (src/engine/multi_pair_proof.cpp). The leaf takes `value` instead of its
// background's; it is never the probe's plus or minus leaf.
struct ExtraMask {
  std::uint32_t leaf = 0;
  SummandValue value;
};

struct ProbeBatch {
  const ProbeValues* values = nullptr;
  std::span<const Background* const> backgrounds;
  std::span<const Probe> probes;
  // Grid targets: probe p goes on row p or column p (probes.size() <= grid.rows or grid.columns;
  // lines without a probe are idle and their outputs are ignored). Single-output targets: rows.
  Placement placement = Placement::rows;
  // Where the data lies: every input (and output) buffer starts `offset` elements after a 64-byte
  // boundary, and with leading_pad > 0 the leading dimensions of a matrix grow by that many
  // elements. Honoured by targets whose TargetInfo::alignment is honours_offsets (leading_pad:
  // TargetInfo::leading_dimensions); the engine sets them only for those (the alignment check).
  std::size_t offset = 0;
  std::size_t leading_pad = 0;
  // Further masks (only for targets with TargetInfo::extra_masks; empty otherwise): those of probe
  // p are extra_masks[extra_begin[p], extra_begin[p + 1]), so extra_begin holds probes.size() + 1
  // ascending indices into extra_masks, or nothing.
  std::span<const std::uint32_t> extra_begin{};
  std::span<const ExtraMask> extra_masks{};

  // The further masks of probe p.
  std::span<const ExtraMask> extras(std::size_t p) const {
    if (extra_begin.empty()) return {};
    return extra_masks.subspan(extra_begin[p], extra_begin[p + 1] - extra_begin[p]);
  }
  // The factors of leaf k in probe p (O(log |active|) for sparse backgrounds, plus O(extras)).
  SummandValue leaf(std::size_t p, std::uint32_t k) const;
};

// Arbitrary inputs (determinism check, verification by simulation, naive search). Every value is
// exactly representable in the target's input format.
struct ValueBatch {
  std::size_t rows = 0;          // independent inputs in this call
  std::span<const double> a;     // rows x n, row-major
  // n factors shared by all rows; empty for plain summands. With column_factors, one or more
  // blocks of n factors.
  std::span<const double> b;
  // Only for grid targets with TargetInfo::column_right_factors and Placement::rows (others never
  // receive it): per column c of the grid, the block of b its elements multiply, so element (r, c)
  // adds a[r][k] * b[column_factors[c] * n + k]. Empty: every column multiplies b (n factors).
  std::span<const std::uint32_t> column_factors{};
  // Grid targets: input p goes on row p or column p, as for probes.
  Placement placement = Placement::rows;
  // As for probes: the buffers' element offset from a 64-byte boundary, and the leading
  // dimensions' padding.
  std::size_t offset = 0;
  std::size_t leading_pad = 0;
  SummandValue leaf(std::size_t row, std::size_t n, std::size_t k) const {
    return {a[row * n + k], b.empty() ? 1.0 : b[k]};
  }
  // The factors of element (row, column)'s leaf k, with or without column_factors.
  SummandValue leaf_at(std::size_t row, std::size_t column, std::size_t n, std::size_t k) const {
    if (b.empty()) return {a[row * n + k], 1.0};
    return {a[row * n + k], column_factors.empty() ? b[k] : b[column_factors[column] * n + k]};
  }
};

// A failure of the target itself (library error, device error) rather than of its order.
class TargetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The process that ran the target died, stopped answering or went over its memory limit while it
// worked (a supervised worker, fprev/worker.hpp). `fault` names what happened, e.g. "crashed
// (SIGSEGV)", "exited (status 0)", "hung", "crashed (out of memory)"; what() is the whole
// diagnostic (the call in flight, the library, the last lines it wrote). Never a pass or a skip:
// the engine reports Finding::target_fault.
class TargetFault : public TargetError {
 public:
  TargetFault(std::string fault, const std::string& message, std::string likely_cause)
      : TargetError(message), fault_(std::move(fault)), likely_cause_(std::move(likely_cause)) {}
  const std::string& fault() const { return fault_; }
  const std::string& likely_cause() const { return likely_cause_; }

 private:
  std::string fault_;
  std::string likely_cause_;
};

// A batched call whose rows or columns carry the same input but disagree. Targets that still compare
// their own outputs (single-output targets evaluating several inputs per call, e.g. a GEMM read in
// one column) throw it; the engine reports it as Finding::batch_inconsistent. Grid targets never
// need it: the engine compares every element itself and reveals an order map.
class BatchInconsistent : public TargetError {
 public:
  using TargetError::TargetError;
};

// A collective whose result every participant must hold identically (MPI_Allreduce) delivered
// different bits to different participants (ranks). No single tree describes it: the engine reports
// Finding::ranks_disagree.
class RanksDisagree : public TargetError {
 public:
  using TargetError::TargetError;
};

class Target {
 public:
  virtual ~Target() = default;
  virtual const TargetInfo& info() const = 0;
  // Single-output targets: outputs.size() == batch.probes.size() <= info().max_batch, one output
  // per probe. Grid targets: outputs.size() == info().grid.size(), every element of the grid,
  // row-major (element (r, c) at r * columns + c), with the probes placed as batch.placement says.
  // Returns each output exactly as the target produced it, converted to double (exact for every
  // supported output format).
  virtual void evaluate(const ProbeBatch& batch, std::span<double> outputs) = 0;
  // Single-output targets: outputs.size() == batch.rows <= info().max_batch. Grid targets: as for
  // probes, the whole grid with input p on row (or column) p.
  virtual void evaluate(const ValueBatch& batch, std::span<double> outputs) = 0;

  // Several calls in one go, in order, each exactly as evaluate() would get it (at most max_batch
  // inputs; a grid call's whole grid). The engine hands over the calls of a wave together so that
  // a target in another process (a supervised worker, docs/worker-protocol.md) receives them in one
  // message instead of one per call: the calls, probes and outputs are those of the loop over
  // evaluate(), only the transport changes. Outputs of call c follow those of the calls before it
  // (outputs_of_call() each). `done` counts the calls that completed, also when one throws.
  // The default is that loop.
  virtual void evaluate_probe_calls(std::span<const ProbeBatch> calls, std::span<double> outputs,
                                    std::size_t& done);
  virtual void evaluate_value_calls(std::span<const ValueBatch> calls, std::span<double> outputs,
                                    std::size_t& done);
};

// The outputs evaluate() writes for a call: the whole grid of a grid target, else one per input.
std::size_t outputs_of_call(const TargetInfo& info, const ProbeBatch& call);
std::size_t outputs_of_call(const TargetInfo& info, const ValueBatch& call);

}  // namespace fprev
