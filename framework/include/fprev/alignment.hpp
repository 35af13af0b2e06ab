// The alignment check (docs/alignment.md): does a target's order depend on where its data lies?
//
// Kernels that peel leading elements until their vector loads are aligned (Eigen's reductions, MKL
// outside its CNR mode) add in an order that depends on the input's offset from a 64-byte boundary,
// not only on n. A target that honours offsets (TargetInfo::alignment) is called at every element
// offset within 64 bytes (16 for float32, 8 for float64) and, for a GEMM/GEMV that honours
// leading_pad, once more with every leading dimension one element longer (so that its columns start
// at other offsets). At each the engine first runs the cheap proof of the tree (or map) found at
// offset 0 (confirm(), fprev/confirm.hpp), then those of the classes found so far; only where every
// proof fails does it reveal. The result is either "independent" or an order map over offsets:
// classes of placements, each with its order map (one tree for a single-output target).
#pragma once

#include <cstddef>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/format.hpp"
#include "fprev/order_map.hpp"
#include "fprev/reveal.hpp"
#include "fprev/target.hpp"

namespace fprev {

// Element offsets within 64 bytes for the input format: 8 (float64), 16 (float32, tf32), 32
// (float16, bfloat16), 64 (fp8).
std::size_t alignment_offsets(Format input);

enum class AlignmentVerdict : std::uint8_t {
  not_checked,     // the target ignores offsets (AlignmentSupport::ignores)
  not_applicable,  // the library places the buffers itself (AlignmentSupport::not_applicable)
  independent,     // the same order at every placement checked
  dependent,       // an order map over offsets (several classes)
};

// A set of placements: element offsets (at the natural leading dimensions) and, where checked,
// offset 0 with padded leading dimensions.
struct Placements {
  std::vector<std::size_t> offsets;  // ascending
  bool padded = false;               // offset 0 with every leading dimension + 1
  friend bool operator==(const Placements&, const Placements&) = default;
};

// One class of an order map over offsets: the placements at which the target follows `map`.
struct OffsetClass {
  Placements placements;
  OrderMap map;
};

struct AlignmentResult {
  AlignmentVerdict verdict = AlignmentVerdict::not_checked;
  std::size_t offsets = 0;  // element offsets 0 .. offsets-1 were checked
  bool padded = false;      // and offset 0 with padded leading dimensions (GEMM/GEMV)
  // dependent: two or more classes, canonical: the class holding offset 0 first (its map is the
  // case's order map), then by their first placement. Empty otherwise.
  std::vector<OffsetClass> classes;

  bool checked() const {
    return verdict == AlignmentVerdict::independent || verdict == AlignmentVerdict::dependent;
  }
  // "independent (offsets 0-15 checked)", "dependent (offsets 0-15 checked, 4 classes)",
  // "not applicable", "not checked": the golden's `alignment:` value.
  std::string summary() const;
};

// Parses summary()'s text strictly (the classes are not part of it: `classes` receives their count,
// 1 unless dependent). nullopt with `error` set for anything else.
std::optional<AlignmentResult> parse_alignment_summary(std::string_view text, std::size_t& classes,
                                                       std::string& error);

// Whether two results record the same thing: verdict, what was checked, and class by class the
// same placements and the same orders (same_orders of the maps).
bool same_alignment(const AlignmentResult& a, const AlignmentResult& b);

// "0,4,8,12" and ",ld+1" for the padded placement: the golden's text of a class's placements.
std::string placements_text(const Placements& placements);
// The inverse; nullopt with `error` set for text that is not canonical (ascending, below
// `offsets`, 'ld+1' only last and only where `padded` was checked).
std::optional<Placements> parse_placements(std::string_view text, std::size_t offsets, bool padded,
                                           std::string& error);

struct AlignmentStats {
  std::size_t placements = 0;  // placements checked besides offset 0
  std::size_t proofs = 0;      // confirm() runs
  std::size_t proofs_failed = 0;
  std::size_t reveals = 0;     // placements no known class's proof held at
  std::size_t probes = 0;      // probes of all the proofs and reveals
  // Of `probes`: proof probes that carried several +M/-M pairs (ProbeBatch::extra_masks).
  std::size_t multi_pair_probes = 0;
  std::size_t target_calls = 0;  // calls into the target at every placement (probes and value batches)
  double seconds = 0.0;
};

// Checks `target` at every placement against `at_zero`, the order map found (or confirmed) at
// offset 0. A target that does not honour offsets gives not_checked or not_applicable at no cost.
// Throws RevealFailure (its message naming the placement) when the target misbehaves at a placement,
// and RevealOverBudget past options.max_seconds.
AlignmentResult check_alignment(Target& target, const OrderMap& at_zero, const RevealOptions& options = {},
                                AlignmentStats* stats = nullptr);

// What the placed targets of one check evaluated (shared by its probe streams' targets).
struct PlacedCounts {
  std::atomic<std::size_t> probes{0};
  std::atomic<std::size_t> calls{0};  // evaluate() calls, a run of calls counted call by call
};

// Calls `target` with every batch placed at `offset` (and `leading_pad`): how the check reaches a
// target, and how tests call one at an offset.
class PlacedTarget final : public Target {
 public:
  // `counts`, when given, counts the probes and calls evaluated.
  PlacedTarget(Target& target, std::size_t offset, std::size_t leading_pad = 0,
               std::shared_ptr<PlacedCounts> counts = nullptr);
  PlacedTarget(std::unique_ptr<Target> owned, std::size_t offset, std::size_t leading_pad = 0,
               std::shared_ptr<PlacedCounts> counts = nullptr);
  const TargetInfo& info() const override { return target_.info(); }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override;
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override;
  // Runs stay runs (a target in a worker process gets them in one message).
  void evaluate_probe_calls(std::span<const ProbeBatch> calls, std::span<double> outputs,
                            std::size_t& done) override;
  void evaluate_value_calls(std::span<const ValueBatch> calls, std::span<double> outputs,
                            std::size_t& done) override;

 private:
  void count_calls(std::size_t calls, std::size_t probes);

  std::unique_ptr<Target> owned_;
  Target& target_;
  std::size_t offset_, leading_pad_;
  std::vector<ProbeBatch> placed_probe_calls_;
  std::vector<ValueBatch> placed_value_calls_;
  std::shared_ptr<PlacedCounts> counts_;
};

}  // namespace fprev
