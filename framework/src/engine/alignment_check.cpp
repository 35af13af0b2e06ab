// check_alignment(): the order at every placement of the data, by proofs first (fprev/alignment.hpp).
//
// Why a proof is enough at a placement: confirm() proves that the target follows a given tree (or
// map) under the same assumption a reveal makes, that it follows some fixed tree there (checked by
// its determinism, fused-node and simulation tests). So at a placement where the proof of a known
// class holds, the target's order is that class's order, with no reveal; a reveal runs only where
// every known class's proof failed, and its result opens a new class. The cost is then one proof per
// placement for an alignment-independent target (15 for float32), and about one reveal per class of
// a dependent one. The proofs of offset 0's order at the placements are independent of each other:
// where the target's instances may run side by side (the probe streams' condition), they run on
// that many instances at once, each proof on one instance (prove_placements below).
#include "fprev/alignment.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>

#include "checks.hpp"
#include "fingerprint_uniformity.hpp"
#include "prepared_proof.hpp"
#include "fprev/confirm.hpp"
#include "fprev/fingerprint.hpp"
#include "stream_pool.hpp"

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

namespace {

// What a placement's proof against offset 0's order came to.
struct FirstProof {
  bool held = false;
  // A grid whose outputs on the reference's inputs differ from offset 0's bits although the proof
  // of offset 0's order held: not held (the reveal looks closer), and if the reveal finds offset
  // 0's order too, the arithmetic depends on the placement.
  bool bits_differ = false;
  std::size_t multi_pair_probes = 0;
  std::exception_ptr failure;  // a misbehaviour at the placement (not a failed proof), named
};

struct DataPlacement {
  std::size_t offset = 0, leading_pad = 0;
};

class PlacementRun {
 public:
  PlacementRun(const RevealOptions& options, std::shared_ptr<PlacedCounts> counts)
      : options_(options), counts_(std::move(counts)), start_(std::chrono::steady_clock::now()) {}

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  const std::shared_ptr<PlacedCounts>& counts() const { return counts_; }

  // The options of one proof or reveal at `where`. `alone`: the only one running, so it may use
  // probe streams of its own; else it runs on its lane's target only, and only lane 0 reports
  // progress (the callback need not be thread-safe).
  RevealOptions at(const DataPlacement& where, bool alone, bool reports_progress) const {
    RevealOptions placed = options_;
    // The proofs share their calls between the nodes of one height (9 calls for 64 binary nodes:
    // src/engine/multi_pair_proof.cpp); a passing proof means the same.
    placed.multi_pair_proofs = true;
    // One budget for the whole check: each proof or reveal gets what is left of it.
    if (options_.max_seconds > 0.0) {
      if (elapsed() >= options_.max_seconds)
        throw RevealOverBudget(options_.max_seconds, elapsed(), counts_->probes.load());
      placed.max_seconds = options_.max_seconds - elapsed();
    }
    if (!reports_progress) placed.on_progress = nullptr;
    if (!alone) {
      placed.streams = 1;
      placed.make_worker = nullptr;
    } else if (options_.make_worker) {
      // Copies under their own names: clang's -Wshadow flags an init-capture named like the
      // structured binding it copies.
      placed.make_worker = [make = options_.make_worker, at = where.offset, padding = where.leading_pad,
                            counts = counts_] { return std::make_unique<PlacedTarget>(make(), at, padding, counts); };
    }
    return placed;
  }

 private:
  const RevealOptions& options_;
  std::shared_ptr<PlacedCounts> counts_;
  std::chrono::steady_clock::time_point start_;
};

// The proof of offset 0's order at one placement on `target`. A grid with a reference measurement
// (detail::grid_placement_reference) is proven against it first: the proof and one call of the
// reference's inputs, where confirm() makes two runs of them around the proof; only where their
// bits differ from the reference's does the full confirm() run, to say why. Same inputs, other bits:
// something differs there even when that confirmation holds (an order change its probes do not
// see, at a few elements; or another arithmetic), so the placement is then not taken as proven.
// `arithmetic`: offset 0's outputs on one input with inexact products (outputs_on_one_input, every
// element): the random inputs behind the proof have exact products, so an arithmetic that depends on
// the placement only in how products are rounded (an unaligned path without FMA) would pass it.
// Other bits here: not held, as above.
FirstProof prove_at(Target& target, const OrderMap& at_zero, const DataPlacement& where, const RevealOptions& options,
                    const PlacementRun& run, const detail::SimulatedRecord* reference,
                    const detail::OneInputCall* one_input, const std::vector<double>& arithmetic,
                    const detail::PreparedProof* prepared) {
  FirstProof proof;
  try {
    PlacedTarget placed(target, where.offset, where.leading_pad, run.counts());
    const auto same_arithmetic = [&] {
      if (arithmetic.empty() || one_input == nullptr) return true;
      const std::vector<double> here = detail::outputs_on_one_input(placed, *one_input);
      return here.size() == arithmetic.size() &&
             std::memcmp(here.data(), arithmetic.data(), here.size() * sizeof(double)) == 0;
    };
    if (reference != nullptr && detail::confirm_grid_against_reference(placed, at_zero, options, *reference)) {
      proof.held = same_arithmetic();
      proof.bits_differ = !proof.held;
      if (proof.held) return proof;
    } else {
      proof.bits_differ = reference != nullptr;
    }
    proof.multi_pair_probes = prepared != nullptr ? detail::confirm_prepared(placed, options, *prepared).multi_pair_probes
                                                  : confirm(placed, at_zero, options).multi_pair_probes;
    if (!proof.bits_differ) proof.bits_differ = !same_arithmetic();
    proof.held = !proof.bits_differ;
  } catch (const RevealFailure& e) {
    if (e.diagnostic().finding == Finding::verification_failed) return proof;
    try {
      rethrow_at(e, where.offset, where.leading_pad);
    } catch (...) {
      proof.failure = std::current_exception();
    }
  } catch (...) {
    proof.failure = std::current_exception();
  }
  return proof;
}

// Where the target is a single-output one whose instances may run side by side (the probe
// streams' condition), the placements' proofs of offset 0's order run on `lanes` instances at once:
// the caller's target and lanes - 1 made by make_worker, each proving every lanes-th placement with
// its probes on one stream. A placement's proof is the same whichever instance runs it; a lane
// stops at its first misbehaving placement, and the caller meets the failures in placement order,
// as a serial loop would. A grid target goes side by side only while its operands are small (each
// further instance holds its own matrices, and a worker process its copies of them):
// rows x n + n x columns + rows x columns values at most kMostGridValuesSideBySide.
constexpr std::size_t kMostGridValuesSideBySide = std::size_t{4} << 20;

bool small_enough_side_by_side(const TargetInfo& info) {
  if (!info.is_grid()) return true;
  const double values = static_cast<double>(info.grid.rows) * static_cast<double>(info.n) +
                        static_cast<double>(info.n) * static_cast<double>(info.grid.columns) +
                        static_cast<double>(info.grid.rows) * static_cast<double>(info.grid.columns);
  return values <= static_cast<double>(kMostGridValuesSideBySide);
}

std::vector<FirstProof> prove_placements(Target& target, const OrderMap& at_zero,
                                         const std::vector<DataPlacement>& placements, const RevealOptions& options,
                                         const PlacementRun& run, const detail::SimulatedRecord* reference,
                                         const detail::OneInputCall* one_input,
                                         const std::vector<double>& arithmetic, const detail::PreparedProof* prepared) {
  const TargetInfo& info = target.info();
  std::size_t lanes = 1;
  if (small_enough_side_by_side(info) && options.make_worker && options.streams > 1)
    lanes = std::min(options.streams, placements.size());
  // The lanes' targets are made here, on the caller's thread.
  std::vector<std::unique_ptr<Target>> made;
  std::vector<Target*> lane_target{&target};
  for (std::size_t lane = 1; lane < lanes; ++lane) {
    made.push_back(detail::make_another_instance(options, info));
    lane_target.push_back(made.back().get());
  }
  std::vector<FirstProof> proofs(placements.size());
  // A lone lane may give its proofs probe streams of their own; only lane 0 reports progress.
  const std::function<void(std::size_t)> lane_job = [&](std::size_t lane) {
    for (std::size_t p = lane; p < placements.size(); p += lanes) {
      FirstProof& proof = proofs[p];
      try {
        proof = prove_at(*lane_target[lane], at_zero, placements[p], run.at(placements[p], lanes == 1, lane == 0),
                         run, reference, one_input, arithmetic, prepared);
      } catch (...) {  // over budget before the proof began
        proof.failure = std::current_exception();
      }
      if (proof.failure) return;
    }
  };
  if (lanes == 1) {
    lane_job(0);
  } else {
    detail::StreamPool pool(lanes - 1);
    pool.run(lanes, lane_job);  // every job catches its own failures
  }
  return proofs;
}

}  // namespace

AlignmentResult check_alignment(Target& target, const OrderMap& at_zero, const RevealOptions& options,
                                AlignmentStats* stats_out) {
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
  std::vector<DataPlacement> placements;
  for (std::size_t offset = 1; offset < result.offsets; ++offset) placements.push_back({offset, 0});
  if (result.padded) placements.push_back({0, 1});

  const PlacementRun run(options, std::make_shared<PlacedCounts>());
  // First every placement's proof of offset 0's order (side by side where the target allows); then,
  // in placement order, what a serial check does with each: a failure ends the check, a held proof
  // places it in offset 0's class, a failed one tries the other classes found so far, then reveals.
  // A grid's placements share one measurement of the simulation's inputs at offset 0.
  // And, where offset 0 is seen to follow the map (a grid: that measurement's simulation reproduced
  // every element's bits; a single output: the simulation's random inputs, once more), every
  // placement's outputs on one input with inexact products against offset 0's. A map handed to the
  // check that offset 0 does not follow is no reference for them.
  std::optional<detail::SimulatedRecord> reference;
  std::optional<detail::OneInputCall> one_input;  // built only where used
  std::vector<double> arithmetic;
  if (!placements.empty()) {
    PlacedTarget at_offset_zero(target, 0, 0, run.counts());
    bool follows = false;
    if (info.is_grid()) {
      reference = detail::grid_placement_reference(at_offset_zero, at_zero, options);
      follows = reference.has_value();
    } else if (at_zero.classes.size() == 1) {
      follows = detail::reproduces_tree_on_random_inputs(at_offset_zero, at_zero.classes.front().tree, options);
    }
    if (follows) {
      one_input = detail::one_input_call(info, detail::uniformity_input_sets(info));
      if (one_input) arithmetic = detail::outputs_on_one_input(at_offset_zero, *one_input);
    }
  }
  // A single output's proof of offset 0's tree is the same at every placement: its probes,
  // predictions and simulated sums are made once here (confirm() would make them at each).
  std::optional<detail::PreparedProof> prepared;
  if (!placements.empty() && !info.is_grid() && at_zero.grid == info.grid && at_zero.classes.size() == 1 &&
      confirmable(info) && at_zero.classes.front().tree.leaf_count() == info.n) {
    RevealOptions proof_options = options;
    proof_options.multi_pair_proofs = true;  // as PlacementRun::at asks for
    prepared = detail::prepare_proof(info, at_zero.classes.front().tree, proof_options);
  }
  const std::vector<FirstProof> first =
      prove_placements(target, at_zero, placements, options, run, reference ? &*reference : nullptr,
                       one_input ? &*one_input : nullptr, arithmetic,
                       prepared ? &*prepared : nullptr);
  for (std::size_t p = 0; p < placements.size(); ++p) {
    const auto [offset, pad] = placements[p];
    ++stats.placements;
    ++stats.proofs;
    if (first[p].failure) std::rethrow_exception(first[p].failure);
    if (first[p].held) {
      stats.multi_pair_probes += first[p].multi_pair_probes;
      add_placement(classes.front().placements, offset, pad);
      continue;
    }
    ++stats.proofs_failed;
    const RevealOptions placed_options = run.at(placements[p], true, true);
    PlacedTarget placed(target, offset, pad, run.counts());
    bool found = false;
    for (std::size_t known = 1; known < classes.size() && !found; ++known) {
      ++stats.proofs;
      try {
        stats.multi_pair_probes += confirm(placed, classes[known].map, placed_options).multi_pair_probes;
      } catch (const RevealFailure& e) {
        if (e.diagnostic().finding != Finding::verification_failed) rethrow_at(e, offset, pad);
        ++stats.proofs_failed;
        continue;
      }
      add_placement(classes[known].placements, offset, pad);
      found = true;
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
        if (first[p].bits_differ && &known == &classes.front()) {
          // Offset 0's order everywhere, by the proof and by the reveal, and yet other bits.
          Diagnostic d;
          d.finding = Finding::verification_failed;
          d.message = "at " + placement_name(offset, pad) +
                      " every output element follows offset 0's order (the proof and a reveal agree), but "
                      "the outputs on the same inputs differ bitwise from offset 0's";
          d.likely_cause = "the arithmetic depends on where the data lies (e.g. an aligned path that "
                           "contracts products or keeps wider sums), so results are not reproducible "
                           "across placements";
          throw RevealFailure(std::move(d));
        }
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
  stats.probes = run.counts()->probes.load();
  stats.target_calls = run.counts()->calls.load();
  stats.seconds = run.elapsed();
  if (stats_out != nullptr) *stats_out = stats;
  return result;
}

}  // namespace fprev
