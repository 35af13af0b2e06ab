// check_invariance(): the orders of a case's variants, by proofs first (fprev/invariance.hpp).
//
// Why a proof is enough: confirm() proves that a target follows a given map under the assumption a
// reveal makes, that it follows some fixed tree at each element (checked by its determinism,
// fused-node and simulation tests), exactly as in the alignment check (src/engine/alignment_check.cpp).
// A variant whose proof of the reference's map (restricted to its elements) holds follows, at every
// element it has, the reference's tree of that element: invariant there. Where the proof fails the
// variant is revealed, and its map is compared element by element with the reference's, so the
// counterexample names a real difference; a reveal that finds no difference after a failed proof
// means the target answers alike probes differently, a diagnostic, never "invariant".
#include "fprev/invariance.hpp"

#include <atomic>
#include <chrono>

#include "fprev/alignment.hpp"
#include "fprev/confirm.hpp"
#include "fprev/diff.hpp"

namespace fprev {
namespace {

struct Participant {
  std::string value;
  TargetInfo info;
  std::unique_ptr<Target> kept;                // a variant's target made once (its own instance)
  const InvarianceVariant* variant = nullptr;  // null for the known one
  const OrderMap* map = nullptr;               // known or revealed
  OrderMap revealed;
};

// The variant's target for its turn: the one kept since its description was read, or a new one of
// the case's instance (the variants that share it live one at a time, so its kept workers serve
// them all).
std::unique_ptr<Target> target_for_turn(Participant& p) {
  if (p.kept) return std::move(p.kept);
  return p.variant->make();
}

bool holds_grid(const OutputGrid& outer, const OutputGrid& inner) {
  return outer.rows >= inner.rows && outer.columns >= inner.columns;
}

[[noreturn]] void rethrow_for_variant(const RevealFailure& e, const std::string& parameter, const std::string& value) {
  Diagnostic d = e.diagnostic();
  d.message = "at " + parameter + "=" + value + " (invariance check over " + parameter + "): " + d.message;
  throw RevealFailure(std::move(d));
}

// The first element (row-major over `variant`'s grid) whose tree differs from the reference's.
std::optional<InvarianceCounterexample> first_difference(const OrderMap& reference, const std::string& reference_value,
                                                         const OrderMap& variant, const std::string& value) {
  const OutputGrid& grid = variant.grid;
  for (std::size_t r = 0; r < grid.rows; ++r)
    for (std::size_t c = 0; c < grid.columns; ++c) {
      const Tree& expected = reference.class_at(r, c).tree;
      const Tree& found = variant.class_at(r, c).tree;
      if (expected == found) continue;
      InvarianceCounterexample out;
      out.value = value;
      out.base_value = reference_value;
      out.row = r;
      out.column = c;
      out.single_output = grid.single() && reference.grid.single();
      DiffOptions options;
      options.max_items = 1;
      const TreeDiff diff = diff_trees(expected, found, options);
      if (!diff.differences.empty()) {
        out.leaves = diff.differences.front().leaves_text;
        out.base_subtree = diff.differences.front().old_sexpr;
        out.variant_subtree = diff.differences.front().new_sexpr;
      }
      return out;
    }
  return std::nullopt;
}

}  // namespace

OrderMap restrict_map(const OrderMap& reference, OutputGrid grid) {
  if (!holds_grid(reference.grid, grid))
    throw InvarianceError("a grid of " + std::to_string(grid.rows) + " x " + std::to_string(grid.columns) +
                          " reaches beyond the reference's " + std::to_string(reference.grid.rows) + " x " +
                          std::to_string(reference.grid.columns));
  if (grid == reference.grid) return reference;
  std::vector<std::size_t> class_of_element(grid.size());
  for (std::size_t r = 0; r < grid.rows; ++r)
    for (std::size_t c = 0; c < grid.columns; ++c) class_of_element[r * grid.columns + c] = reference.class_index_at(r, c);
  std::vector<Tree> trees;
  trees.reserve(reference.classes.size());
  for (const OrderClass& k : reference.classes) trees.push_back(k.tree);
  return map_of_elements(grid, class_of_element, std::move(trees));
}

InvarianceResult check_invariance(const std::string& parameter, const std::vector<std::string>& values,
                                  const KnownVariant& known, std::span<const InvarianceVariant> variants,
                                  const RevealOptions& options, InvarianceStats* stats_out) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  InvarianceResult result;
  result.parameter = parameter;
  result.values = values;
  InvarianceStats stats;
  const auto probes = std::make_shared<PlacedCounts>();

  // Every value of the list once, in its order; the known variant's where it is listed, else first.
  std::vector<Participant> participants;
  bool known_listed = false;
  for (const std::string& v : values) known_listed = known_listed || v == known.value;
  // The case's own value is compared too: the verdict lists it (last) where the request did not.
  const auto known_participant = [&known] {
    Participant p;
    p.value = known.value;
    p.info = known.info;
    p.map = known.map;
    return p;
  };
  if (!known_listed) {
    participants.push_back(known_participant());
    result.values.push_back(known.value);
  }
  std::size_t next_variant = 0;
  for (const std::string& v : values) {
    if (v == known.value) {
      participants.push_back(known_participant());
      continue;
    }
    if (next_variant >= variants.size() || variants[next_variant].value != v)
      throw std::logic_error("check_invariance: no variant made for " + parameter + "=" + v);
    Participant p;
    p.value = v;
    p.variant = &variants[next_variant++];
    // Its description now, for the checks below; a target of the case's own instance is let go
    // at once (it would hold a worker of its own while the others are made).
    std::unique_ptr<Target> target = p.variant->make();
    p.info = target->info();
    if (!p.variant->shares_case_instance) p.kept = std::move(target);
    participants.push_back(std::move(p));
  }

  // What can be compared: the same summands and formats at every value.
  const TargetInfo& known_info = known.info;
  std::size_t reference = 0;
  for (std::size_t k = 0; k < participants.size(); ++k) {
    const TargetInfo& info = participants[k].info;
    if (info.n != known_info.n)
      throw InvarianceError(parameter + " changes the number of summands (" + std::to_string(known_info.n) + " at " +
                            parameter + "=" + known.value + ", " + std::to_string(info.n) + " at " + parameter + "=" +
                            participants[k].value + "): invariance compares the orders of the same summands; vary a "
                            "batch dimension (rows, columns), threads or a setting instead");
    if (info.traits.input != known_info.traits.input || info.traits.output != known_info.traits.output)
      throw InvarianceError(parameter + " changes the data's formats (at " + parameter + "=" + participants[k].value +
                            "): invariance compares the orders of the same computation");
    if (!holds_grid(participants[reference].info.grid, info.grid)) reference = k;
  }
  for (const Participant& p : participants)
    if (!holds_grid(participants[reference].info.grid, p.info.grid))
      throw InvarianceError("no value of " + parameter + " has every output element the others have (" +
                            participants[reference].value + " and " + p.value + "): vary one dimension at a time");
  // Prefer the known variant as the reference where it holds every element: no reveal then.
  for (std::size_t k = 0; k < participants.size(); ++k)
    if (participants[k].variant == nullptr &&
        holds_grid(participants[k].info.grid, participants[reference].info.grid))
      reference = k;

  RevealOptions variant_options = options;
  const auto budget = [&](RevealOptions& o) {
    if (options.max_seconds > 0.0) {
      if (elapsed() >= options.max_seconds) throw RevealOverBudget(options.max_seconds, elapsed(), probes->probes.load());
      o.max_seconds = options.max_seconds - elapsed();
    }
  };
  const auto options_for = [&](const Participant& p) {
    RevealOptions o = variant_options;
    budget(o);
    // Probe streams make targets of the variant itself, never of the known case.
    if (p.variant != nullptr)
      o.make_worker = [make = p.variant->make, probes] { return std::make_unique<PlacedTarget>(make(), 0, 0, probes); };
    return o;
  };

  Participant& ref = participants[reference];
  if (ref.map == nullptr) {
    ++stats.reveals;
    PlacedTarget counted(target_for_turn(ref), 0, 0, probes);
    try {
      ref.revealed = reveal(counted, options_for(ref)).map;
    } catch (const RevealFailure& e) {
      rethrow_for_variant(e, parameter, ref.value);
    }
    ref.map = &ref.revealed;
  }

  for (std::size_t k = 0; k < participants.size() && !result.counterexample; ++k) {
    if (k == reference) continue;
    Participant& p = participants[k];
    const OrderMap expected = restrict_map(*ref.map, p.info.grid);
    if (p.map != nullptr) {  // the known variant, not the reference: both maps are known
      result.counterexample = first_difference(*ref.map, ref.value, *p.map, p.value);
      continue;
    }
    ++stats.variants;
    ++stats.proofs;
    PlacedTarget counted(target_for_turn(p), 0, 0, probes);
    try {
      confirm(counted, expected, options_for(p));
      continue;
    } catch (const RevealFailure& e) {
      if (e.diagnostic().finding != Finding::verification_failed) rethrow_for_variant(e, parameter, p.value);
      ++stats.proofs_failed;
    }
    ++stats.reveals;
    try {
      p.revealed = reveal(counted, options_for(p)).map;
    } catch (const RevealFailure& e) {
      rethrow_for_variant(e, parameter, p.value);
    }
    result.counterexample = first_difference(*ref.map, ref.value, p.revealed, p.value);
    if (!result.counterexample) {
      Diagnostic d;
      d.finding = Finding::batch_inconsistent;
      d.message = "at " + parameter + "=" + p.value + " (invariance check over " + parameter +
                  ") the proof of the order at " + parameter + "=" + ref.value +
                  " failed, but the reveal that followed found that order at every element";
      d.likely_cause = "the target answers the same probes differently from call to call";
      throw RevealFailure(std::move(d));
    }
  }
  result.invariant = !result.counterexample.has_value();
  stats.probes = probes->probes.load();
  stats.target_calls = probes->calls.load();
  stats.seconds = elapsed();
  if (stats_out != nullptr) *stats_out = stats;
  return result;
}

}  // namespace fprev
