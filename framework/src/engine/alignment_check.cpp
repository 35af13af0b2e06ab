// check_alignment(): the order at every placement of the data, by proofs first (fprev/alignment.hpp).
//
// Why a proof is enough at a placement: confirm() proves that the target follows a given tree (or
// map) under the same assumption a reveal makes, that it follows some fixed tree there (checked by
// its determinism, fused-node and simulation tests). So at a placement where the proof of a known
// class holds, the target's order is that class's order, with no reveal; a reveal runs only where
// every known class's proof failed, and its result opens a new class. The cost is then one proof per
// placement for an alignment-independent target (15 for float32), and about one reveal per class of
// a dependent one.
#include "fprev/alignment.hpp"

#include <algorithm>
#include <chrono>

#include "fprev/confirm.hpp"

namespace fprev {

std::size_t alignment_offsets(Format input) {
  switch (input) {
    case Format::float64: return 8;
    case Format::float32:
    case Format::tf32: return 16;
    case Format::float16:
    case Format::bfloat16: return 32;
    case Format::fp8_e4m3:
    case Format::fp8_e5m2: return 64;
  }
  return 16;
}

PlacedTarget::PlacedTarget(Target& target, std::size_t offset, std::size_t leading_pad,
                           std::shared_ptr<PlacedCounts> counts)
    : target_(target), offset_(offset), leading_pad_(leading_pad), counts_(std::move(counts)) {}

PlacedTarget::PlacedTarget(std::unique_ptr<Target> owned, std::size_t offset, std::size_t leading_pad,
                           std::shared_ptr<PlacedCounts> counts)
    : owned_(std::move(owned)), target_(*owned_), offset_(offset), leading_pad_(leading_pad),
      counts_(std::move(counts)) {}

void PlacedTarget::count_calls(std::size_t calls, std::size_t probes) {
  if (!counts_) return;
  counts_->calls += calls;
  counts_->probes += probes;
}

// A call that throws was still made: it is counted before the exception leaves.
void PlacedTarget::evaluate(const ProbeBatch& batch, std::span<double> outputs) {
  ProbeBatch placed = batch;
  placed.offset = offset_;
  placed.leading_pad = leading_pad_;
  count_calls(1, batch.probes.size());
  target_.evaluate(placed, outputs);
}

void PlacedTarget::evaluate(const ValueBatch& batch, std::span<double> outputs) {
  ValueBatch placed = batch;
  placed.offset = offset_;
  placed.leading_pad = leading_pad_;
  count_calls(1, 0);
  target_.evaluate(placed, outputs);
}

void PlacedTarget::evaluate_probe_calls(std::span<const ProbeBatch> calls, std::span<double> outputs,
                                        std::size_t& done) {
  placed_probe_calls_.assign(calls.begin(), calls.end());
  std::size_t probes = 0;
  for (ProbeBatch& call : placed_probe_calls_) {
    call.offset = offset_;
    call.leading_pad = leading_pad_;
    probes += call.probes.size();
  }
  try {
    target_.evaluate_probe_calls(placed_probe_calls_, outputs, done);
  } catch (...) {
    // The calls done, and the one that failed.
    std::size_t failed_probes = 0;
    for (std::size_t k = 0; k < std::min(calls.size(), done + 1); ++k) failed_probes += calls[k].probes.size();
    count_calls(std::min(calls.size(), done + 1), failed_probes);
    throw;
  }
  count_calls(calls.size(), probes);
}

void PlacedTarget::evaluate_value_calls(std::span<const ValueBatch> calls, std::span<double> outputs,
                                        std::size_t& done) {
  placed_value_calls_.assign(calls.begin(), calls.end());
  for (ValueBatch& call : placed_value_calls_) {
    call.offset = offset_;
    call.leading_pad = leading_pad_;
  }
  try {
    target_.evaluate_value_calls(placed_value_calls_, outputs, done);
  } catch (...) {
    count_calls(std::min(calls.size(), done + 1), 0);
    throw;
  }
  count_calls(calls.size(), 0);
}

namespace {

std::string placement_name(std::size_t offset, std::size_t leading_pad) {
  return leading_pad == 0 ? "offset " + std::to_string(offset)
                          : "offset " + std::to_string(offset) + " with every leading dimension + " +
                                std::to_string(leading_pad);
}

// A misbehaviour at a placement other than offset 0: the same diagnostic, naming where.
[[noreturn]] void rethrow_at(const RevealFailure& e, std::size_t offset, std::size_t leading_pad) {
  Diagnostic d = e.diagnostic();
  d.message = "at " + placement_name(offset, leading_pad) + " from a 64-byte boundary (alignment check): " +
              d.message;
  throw RevealFailure(std::move(d));
}

void add_placement(Placements& placements, std::size_t offset, std::size_t leading_pad) {
  if (leading_pad != 0)
    placements.padded = true;
  else
    placements.offsets.push_back(offset);
}

}  // namespace

AlignmentResult check_alignment(Target& target, const OrderMap& at_zero, const RevealOptions& options,
                                AlignmentStats* stats_out) {
  const auto start = std::chrono::steady_clock::now();
  const TargetInfo& info = target.info();
  AlignmentResult result;
  AlignmentStats stats;
  if (info.alignment == AlignmentSupport::ignores) return result;
  if (info.alignment == AlignmentSupport::not_applicable) {
    result.verdict = AlignmentVerdict::not_applicable;
    return result;
  }
  result.offsets = alignment_offsets(info.traits.input);
  result.padded = info.is_grid() && info.leading_dimensions;
  std::vector<OffsetClass> classes{{Placements{{0}, false}, at_zero}};
  std::vector<std::pair<std::size_t, std::size_t>> placements;  // (offset, leading_pad)
  for (std::size_t offset = 1; offset < result.offsets; ++offset) placements.emplace_back(offset, 0);
  if (result.padded) placements.emplace_back(0, 1);

  const auto counts = std::make_shared<PlacedCounts>();
  const auto elapsed = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (const auto& [offset, pad] : placements) {
    ++stats.placements;
    PlacedTarget placed(target, offset, pad, counts);
    RevealOptions placed_options = options;
    // The proofs share their calls between the nodes of one height (9 calls for 64 binary nodes:
    // src/engine/multi_pair_proof.cpp); a passing proof means the same.
    placed_options.multi_pair_proofs = true;
    // One budget for the whole check: each proof or reveal gets what is left of it.
    if (options.max_seconds > 0.0) {
      if (elapsed() >= options.max_seconds) throw RevealOverBudget(options.max_seconds, elapsed(), counts->probes.load());
      placed_options.max_seconds = options.max_seconds - elapsed();
    }
    if (options.make_worker)
      // Copies under their own names: clang's -Wshadow flags an init-capture named like the
      // structured binding it copies.
      placed_options.make_worker = [make = options.make_worker, at = offset, padding = pad, counts] {
        return std::make_unique<PlacedTarget>(make(), at, padding, counts);
      };
    bool found = false;
    for (OffsetClass& known : classes) {
      ++stats.proofs;
      try {
        stats.multi_pair_probes += confirm(placed, known.map, placed_options).multi_pair_probes;
      } catch (const RevealFailure& e) {
        if (e.diagnostic().finding != Finding::verification_failed) rethrow_at(e, offset, pad);
        ++stats.proofs_failed;
        continue;
      }
      add_placement(known.placements, offset, pad);
      found = true;
      break;
    }
    if (found) continue;
    ++stats.reveals;
    RevealResult revealed;
    try {
      revealed = reveal(placed, placed_options);
    } catch (const RevealFailure& e) {
      rethrow_at(e, offset, pad);
    }
    for (const OffsetClass& known : classes)
      if (same_orders(known.map, revealed.map)) {
        // Its proof failed, yet the reveal found it: the target answers alike probes differently.
        Diagnostic d;
        d.finding = Finding::batch_inconsistent;
        d.message = "at " + placement_name(offset, pad) +
                    " the proof of a known order failed, but the reveal that followed found that order";
        d.likely_cause = "the target answers the same probes differently from call to call";
        throw RevealFailure(std::move(d));
      }
    OffsetClass fresh;
    add_placement(fresh.placements, offset, pad);
    fresh.map = std::move(revealed.map);
    classes.push_back(std::move(fresh));
  }
  if (classes.size() == 1) {
    result.verdict = AlignmentVerdict::independent;
  } else {
    result.verdict = AlignmentVerdict::dependent;
    result.classes = std::move(classes);  // offset 0's first, then by first placement (the order found)
  }
  stats.probes = counts->probes.load();
  stats.target_calls = counts->calls.load();
  stats.seconds = elapsed();
  if (stats_out != nullptr) *stats_out = stats;
  return result;
}

}  // namespace fprev
