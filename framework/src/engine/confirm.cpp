// confirm(): checks a known tree with a probe set that proves it, instead of a full reveal.
//
// Why the proof probes pin the tree. A summation tree over leaves {0..n-1} (no node with one
// child) is determined by its clusters: the leaf sets L(v) of its nodes. A probe A^{i,j} with every
// leaf active measures l'(i,j) = |C'(i,j)|, where C'(i,j) is the cluster of LCA'(i,j) in the tree T'
// the target follows (Xie et al., USENIX ATC 2025 Sec. 4: the units under LCA(i,j) are absorbed by
// the masks, the others survive). Two clusters of one tree are nested or disjoint. Let T be the
// known tree; for an inner node v with children c_1..c_k (ordered by smallest leaf) let x_m be the
// smallest leaf of c_m. The proof set is {(x_a, x_b) : 1 <= a < b <= k} for every inner node v.
//
// 1. Every cluster of T is a cluster of T'. By induction from the leaves up: suppose L(c_m) is a
//    cluster of T' for every child (true for leaves). Take C = C'(x_1, x_m) for some m >= 2. C and
//    L(c_1) are clusters of T' sharing x_1, so they are nested; C holds x_m, which L(c_1) does not,
//    so L(c_1) is inside C; likewise L(c_m) is inside C. All the C'(x_1, x_m), m = 2..k, hold x_1,
//    so they are nested too, and they were all measured at |L(v)|: nested sets of equal size are
//    equal, so one cluster C holds every L(c_m), i.e. all of L(v), and |C| = |L(v)| makes
//    C = L(v). (For a binary node this is its single pair: l'(x_1, x_2) = |L(v)|.)
// 2. T' has no cluster T lacks. Such a cluster D is compatible (nested or disjoint) with every
//    cluster of T, by 1. Let v be the smallest node of T with D inside L(v), D != L(v). For each
//    child c_m, D is inside L(c_m) (impossible: v was the smallest, and D is no single leaf, which
//    are clusters of T), or holds L(c_m), or misses it; so D is the union of the clusters of two or
//    more, but not all, children of v. Then v has k >= 3 children, and D holds two of them, c_a and
//    c_b: C'(x_a, x_b) lies inside D, so l'(x_a, x_b) <= |D| < |L(v)|, and the probe (x_a, x_b)
//    tells. With T's clusters all in T' and none besides, T' = T.
//    For a binary T this part is free: T has 2n - 1 clusters, the most any tree over n leaves has.
//
// Cost: a binary node needs its one pair, n - 1 probes in all. A fused node (k >= 3) needs all
// k(k-1)/2 pairs of its children, and no probe set can do with fewer: if no probe splits c_a from
// c_b, the tree that adds c_a and c_b first (a new node D = L(c_a) + L(c_b) under v) answers every
// other probe as T does, because only the LCA of a pair split between c_a and c_b moves, whatever
// the probe's active leaves. The same bound holds for reveal: any algorithm telling a k-way fused
// node from its refinements measures k(k-1)/2 pairs there. Nor can a binary tree do with much
// fewer than n - 1: merging a non-root inner node into its parent moves only the LCA of pairs that
// meet at that node, so each needs a probe of its own (n - 2 at least).
//
// The root's probe is not needed by the argument when the root is binary (two clusters covering
// all leaves fix it), but it is kept: it is the one probe whose masks sit on opposite sides of the
// whole sum, and it fails for a target that stopped following any tree, e.g. an exact
// (order-independent) sum returns l = 2 for every pair.
//
// What the argument assumes, as every FPRev result does: the target follows one fixed tree. That
// is checked as reveal() checks it: determinism before the probes, the same outputs after them,
// every output decoded and validated, the fused-node test against value-dependent orders, bitwise
// simulation where the arithmetic is modelled.
//
// Beyond the exact counting range (Alg. 5's regime) a probe with every leaf active no longer reads
// |C'(i,j)|: the units that survive may be too many to count. One with only the leaves A active
// (the others zero) reads |C'(i,j) n A|, exactly when the active units outside C'(i,j) are fewer
// than the range's limit. The single-output proof then measures each proof pair (x_a, x_b) of node
// v once for every block B of a partition of the leaves outside L(v) into blocks of fewer than
// exact_count_limit leaves, with A = L(v) u B (one probe with A = all leaves when L(v) is all of
// them). In T the reading is |L(v)| each time, with |B| units surviving: exact. Part 1 above holds
// with these readings: by induction the children's leaf sets are clusters of T', so C = C'(x_1, x_m)
// contains L(c_1) u L(c_m); |C n (L(v) u B)| = |L(v)| for every block says that C holds no leaf of
// any block (C's part inside L(v) has at most |L(v)| leaves), so C lies inside L(v); the C'(x_1, x_m)
// are nested and together hold all of L(v), so the largest is L(v), and each was read at |L(v)|:
// all are L(v). Part 2 needs only C'(x_a, x_b) inside L(v), read at |L(v)|, which it is. So
// T' = T, at about n - 1 times the blocks a node's outside needs probes (n = 3000 with a float16
// output, limit 2048: two blocks, about 6,000 probes, where a reveal took 18,800). Where that would
// cost more than 4n probes (a short range for a long sum: bfloat16's 256), confirm() reveals and
// compares instead.
#include "fprev/confirm.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "entry_checks.hpp"
#include "map_reveal.hpp"
#include "multi_pair_proof.hpp"
#include "prepared_proof.hpp"

namespace fprev {

using namespace detail;

std::vector<std::pair<std::uint32_t, std::uint32_t>> confirm_pairs(const Tree& tree) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  pairs.reserve(count_confirm_probes(tree));
  for (NodeId v = static_cast<NodeId>(tree.leaf_count()); v < tree.node_count(); ++v) {
    const std::span<const NodeId> children = tree.children(v);
    for (std::size_t a = 0; a < children.size(); ++a)
      for (std::size_t b = a + 1; b < children.size(); ++b)
        pairs.emplace_back(tree.smallest_leaf(children[a]), tree.smallest_leaf(children[b]));
  }
  return pairs;
}

std::size_t count_confirm_probes(const Tree& tree) {
  std::size_t count = 0;
  for (NodeId v = static_cast<NodeId>(tree.leaf_count()); v < tree.node_count(); ++v) {
    const std::size_t k = tree.children(v).size();
    count += k * (k - 1) / 2;
  }
  return count;
}

bool confirmable(const TargetInfo& info) {
  if (info.n < 2) return true;
  try {
    return !uses_low_range_mode(info.n, choose_mask_scheme(info.traits, info.n));
  } catch (const MaskSchemeError&) {
    return false;  // reveal() reports it
  }
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void check_leaf_count(const Tree& tree, std::size_t n) {
  if (tree.leaf_count() != n)
    fail(Finding::verification_failed, "the tree has " + std::to_string(tree.leaf_count()) +
                                           " leaves but the target adds " + std::to_string(n) +
                                           " summands");
}

// The proof pairs as probes: +M goes on the smaller leaf of every other pair and on the larger
// leaf of the rest. l(i,j) = l(j,i) in any tree, but an arithmetic that keeps +M + u == M without
// keeping -M + u == -M (rounding toward zero) breaks the masked construction only when -M comes
// first; alternating catches it on either orientation of the tree, as a reveal's sampled probes do.
std::vector<std::pair<std::uint32_t, std::uint32_t>> alternated(std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs) {
  for (std::size_t k = 1; k < pairs.size(); k += 2) std::swap(pairs[k].first, pairs[k].second);
  return pairs;
}
std::vector<std::pair<std::uint32_t, std::uint32_t>> probe_pairs(const Tree& tree) {
  return alternated(confirm_pairs(tree));
}

[[noreturn]] void fail_proof(const Tree& tree, const LcaIndex& lca, std::uint32_t i, std::uint32_t j,
                             const Measurement& measured, std::uint32_t n, const std::string& where) {
  const NodeId v = lca.lca(i, j);
  std::ostringstream os;
  os << "l(" << i << "," << j << ") measured " << measured.l << " but the tree predicts "
     << tree.leaves_under(v) << where << ": the node adding the parts of leaves " << i << " and "
     << j << " (" << tree.children(v).size() << " children, " << tree.leaves_under(v)
     << " leaves) is not where the target adds them";
  fail(Finding::verification_failed, os.str(), describe_probe(i, j, n), std::nullopt,
       measured.l < tree.leaves_under(v)
           ? "the target adds these parts in a smaller subtree first (a changed order, or a fused "
             "step split into smaller ones)"
           : "the target adds these parts later than the tree does (a changed order, or several "
             "steps fused into one)");
}

// The l(i,j) `tree` predicts for each pair.
std::vector<std::uint32_t> predicted_l(const Tree& tree, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs) {
  std::vector<std::uint32_t> predicted;
  if (pairs.empty()) return predicted;
  const LcaIndex lca(tree);
  predicted.reserve(pairs.size());
  for (const auto& [i, j] : pairs) predicted.push_back(lca.leaf_count(i, j));
  return predicted;
}

// Single-output targets: proof pairs, batched, each against the l(i,j) the tree predicts.
void measure_pairs(ProbeSession& session, const Tree& tree, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs,
                   const std::vector<std::uint32_t>& predicted, RevealStats& stats) {
  const auto n = static_cast<std::uint32_t>(tree.leaf_count());
  std::vector<ProbeRequest> requests;
  requests.reserve(pairs.size());
  for (const auto& [i, j] : pairs) requests.push_back({i, j, session.all_active(), n});
  std::vector<Measurement> measured(requests.size());
  const std::size_t before = stats.probes;
  session.measure(requests, measured);
  stats.confirm_probes += stats.probes - before;
  for (std::size_t k = 0; k < requests.size(); ++k) {
    if (!measured[k].saturated && measured[k].l == predicted[k]) continue;
    const LcaIndex lca(tree);
    fail_proof(tree, lca, requests[k].plus, requests[k].minus, measured[k], n, "");
  }
}

}  // namespace

namespace detail {

PreparedProof prepare_proof(const TargetInfo& info, const Tree& tree, const RevealOptions& options) {
  PreparedProof proof;
  proof.tree = &tree;
  std::optional<MultiPairScheme> multi;
  if (options.multi_pair_proofs) multi = multi_pair_scheme(info, scheme_for(info));
  if (multi) {
    proof.plan = plan_multi_pair_proof(tree, multi->max_pairs);
    proof.single_pairs = alternated(proof.plan->single_pairs);
    proof.multi = build_multi_pair_probes(tree, *proof.plan, *multi);
  } else {
    proof.single_pairs = probe_pairs(tree);
  }
  proof.single_predicted = predicted_l(tree, proof.single_pairs);
  proof.simulated = simulated_outputs(info, tree, options);
  proof.determinism_inputs = determinism_inputs(info, options);
  if (proof.simulated) proof.simulation_inputs = simulation_inputs(info, options);
  return proof;
}

}  // namespace detail

namespace {

// Single-output targets: the whole proof, its binary nodes on multi-pair probes where the options
// ask for them and the formats allow (multi_pair_proof.cpp), else one pair a probe.
void measure_proof(ProbeSession& session, const PreparedProof& proof, RevealStats& stats) {
  measure_pairs(session, *proof.tree, proof.single_pairs, proof.single_predicted, stats);
  if (proof.plan) measure_multi_pair_probes(session, *proof.tree, *proof.plan, proof.multi, stats);
}

// After a single-output proof: the fused-node tests, the bitwise simulation (the prepared proof's
// expected sums where there is one) and the determinism input once more.
void finish_single_confirmation(ProbeSession& session, const Tree& tree, const RevealOptions& options,
                                const ValueRecord& before, std::chrono::steady_clock::time_point start,
                                RevealStats& stats, const PreparedProof* proof = nullptr) {
  const std::size_t calls_before_verification = stats.target_calls;
  check_fused_nodes(session.info(), tree, single_runner(session), stats);
  if (proof != nullptr)
    check_simulated_outputs(session, options, proof->simulated, stats, &proof->simulation_inputs);
  else
    check_tree(session, tree, options, 0, false, stats);  // simulation only: the probes are done
  check_unchanged(session, before);
  stats.verification_calls = stats.target_calls - calls_before_verification;
  stats.confirmed = true;
  stats.total_seconds = seconds_since(start);
}

// Grid targets. A proof pair of class K placed on a line (a row, or a column where the target
// accepts columns placement) that holds elements of K is measured at every element of K on that
// line. A grid target computes its whole grid in every call, so calls are what costs: a pair takes
// a line whose queue is below its axis's longest when there is one (that call happens anyway),
// else it opens a call on the axis where its class has the most lines (room for the pairs that
// follow). Classes with the fewest elements choose first. Every element of a used line answers and
// is compared with what its own class's tree predicts; lines whose queue is done carry more of
// their class's proof. So each pair of a class is measured at every element of the class on some
// line, and every element answers its lines' share of its class's proof.
struct GridQueues {
  struct Queued {
    std::uint32_t plus, minus;
  };
  std::vector<std::vector<Queued>> rows, columns;
  std::size_t longest_row = 0, longest_column = 0;
};

// The rows (or columns) that hold an element of class `id`, ascending.
std::vector<std::size_t> class_lines(const OutputGrid& grid, const std::vector<std::uint32_t>& element_class,
                                     std::uint32_t id, bool rows) {
  const std::size_t R = grid.rows, C = grid.columns;
  std::vector<std::size_t> lines;
  for (std::size_t line = 0; line < (rows ? R : C); ++line)
    for (std::size_t k = 0; k < (rows ? C : R); ++k)
      if (element_class[rows ? line * C + k : k * C + line] == id) {
        lines.push_back(line);
        break;
      }
  return lines;
}

// Each pair goes to a free slot (a line whose queue is below its axis's longest: that call happens
// anyway), the shortest first (rows before columns, then the lowest line, on a tie), else opens a
// call on the axis with the most lines of the class (then the axis with fewer lines in all: fewer
// probes per call), on its lowest line. The class's lines are kept ordered by (queue length, line)
// on each axis, so a pair costs O(log lines), not a look at every line (a GEMV of 1024 rows has
// 1023 pairs: a million looks per proof, at every placement).
void place_class_pairs(const TargetInfo& info, const std::vector<std::uint32_t>& element_class,
                       std::uint32_t id, const std::vector<GridQueues::Queued>& pairs, GridQueues& q) {
  const std::size_t R = info.grid.rows, C = info.grid.columns;
  using Slots = std::set<std::pair<std::size_t, std::size_t>>;  // (queue length, line)
  const auto slots_of = [&](bool rows) {
    Slots slots;
    if (rows || info.columns_placement)
      for (std::size_t line : class_lines(info.grid, element_class, id, rows))
        slots.emplace((rows ? q.rows : q.columns)[line].size(), line);
    return slots;
  };
  Slots row_slots = slots_of(true), column_slots = slots_of(false);
  const std::size_t row_room = row_slots.size(), column_room = column_slots.size();
  for (const GridQueues::Queued& pair : pairs) {
    const bool row_free = !row_slots.empty() && row_slots.begin()->first < q.longest_row;
    const bool column_free = !column_slots.empty() && column_slots.begin()->first < q.longest_column;
    bool on_row;
    if (row_free || column_free) {
      on_row = row_free && (!column_free || row_slots.begin()->first <= column_slots.begin()->first);
    } else {
      on_row = column_slots.empty() || row_room > column_room ||
               (row_room == column_room && (R < C || (R == C && q.longest_row <= q.longest_column)));
    }
    Slots& slots = on_row ? row_slots : column_slots;
    // Not free: every line of the axis has the longest queue, and the lowest line comes first.
    const auto [length, line] = *slots.begin();
    slots.erase(slots.begin());
    auto& queue = on_row ? q.rows[line] : q.columns[line];
    queue.push_back(pair);
    slots.emplace(length + 1, line);
    auto& longest = on_row ? q.longest_row : q.longest_column;
    longest = std::max(longest, queue.size());
  }
}

// Calls the proof on the second axis may add to what that axis makes anyway.
constexpr std::size_t kMostExtraProofCalls = 4;

// Each pair above is measured on one line: a row of the class answers the pairs placed on its row
// and on the columns it crosses. A band of rows (a tail kernel's, an edge tile's) whose order
// changed where none of those pairs looks would pass. So every pair of a class is also placed on
// the other axis, where the class's whole proof fits there in the calls that axis makes anyway
// (one, when it makes none) and at most kMostExtraProofCalls more (k - 1 pairs on fewer lines).
// Then every row of the class answers its whole proof on the columns (where the class is a block
// of rows x columns: a row of a checkerboard class crosses the class in some columns only), and
// every column on the rows, and a change of a whole row or column of such a class is caught,
// whatever it changed. Where the whole proof does not fit (a GEMV's one column would need a call
// per pair), nothing more is placed: a part of a proof proves nothing about the rest.
void place_on_the_other_axis(const TargetInfo& info, const std::vector<std::uint32_t>& element_class,
                             std::uint32_t id, const std::vector<GridQueues::Queued>& pairs, GridQueues& q) {
  if (!info.columns_placement || pairs.empty()) return;
  for (const bool on_rows : {true, false}) {
    const std::vector<std::size_t> lines = class_lines(info.grid, element_class, id, on_rows);
    auto& queues = on_rows ? q.rows : q.columns;
    auto& longest = on_rows ? q.longest_row : q.longest_column;
    // The pairs already on this axis (placed there by place_class_pairs) count as placed.
    std::vector<std::uint64_t> placed;
    for (std::size_t line : lines)
      for (const GridQueues::Queued& pair : queues[line])
        placed.push_back(std::uint64_t{pair.plus} << 32 | pair.minus);
    std::sort(placed.begin(), placed.end());
    std::vector<GridQueues::Queued> missing;
    for (const GridQueues::Queued& pair : pairs)
      if (!std::binary_search(placed.begin(), placed.end(), std::uint64_t{pair.plus} << 32 | pair.minus))
        missing.push_back(pair);
    if (missing.empty()) continue;
    // The calls this axis makes anyway (one, when it makes none), and up to kMostExtraProofCalls
    // more where the class has fewer lines on it than pairs (k - 1 > m or n).
    const auto room_at = [&](std::size_t limit) {
      std::size_t room = 0;
      for (std::size_t line : lines) room += limit - std::min(limit, queues[line].size());
      return room;
    };
    const std::size_t base = std::max<std::size_t>(longest, 1);
    std::size_t limit = base;
    while (room_at(limit) < missing.size() && limit < base + kMostExtraProofCalls) ++limit;
    if (room_at(limit) < missing.size()) continue;
    std::size_t next = 0;
    for (std::size_t line : lines)
      while (queues[line].size() < limit && next < missing.size()) queues[line].push_back(missing[next++]);
    longest = std::max(longest, limit);
  }
}

void run_grid_calls(ProbeSession& session, const OrderMap& map, Placement placement,
                    const std::vector<std::vector<GridQueues::Queued>>& queue,
                    const std::vector<std::vector<GridQueues::Queued>>& class_pairs,
                    const std::vector<std::uint32_t>& element_class,
                    const std::vector<std::unique_ptr<LcaIndex>>& lca, RevealStats& stats) {
  const TargetInfo& info = session.info();
  const std::size_t R = info.grid.rows, C = info.grid.columns;
  const auto n = static_cast<std::uint32_t>(info.n);
  const bool by_rows = placement == Placement::rows;
  const std::size_t line_count = by_rows ? R : C, across = by_rows ? C : R;
  std::size_t calls = 0;
  for (const auto& line : queue) calls = std::max(calls, line.size());
  std::vector<ProbeRequest> lines;
  std::vector<Measurement> grid;
  for (std::size_t t = 0; t < calls; ++t) {
    std::size_t used = 0;
    for (std::size_t line = 0; line < line_count; ++line)
      if (queue[line].size() > t) used = line + 1;
    lines.clear();
    for (std::size_t line = 0; line < used; ++line) {
      GridQueues::Queued pair{0, 1};
      if (t < queue[line].size()) {
        pair = queue[line][t];
      } else {  // more of the class of the line's first element
        const auto& more = class_pairs[element_class[by_rows ? line * C : line]];
        if (!more.empty()) pair = more[(line + t * line_count) % more.size()];
      }
      lines.push_back({pair.plus, pair.minus, session.all_active(), n});
    }
    const std::size_t before = stats.probes;
    session.measure_grid(placement, lines, grid);
    stats.confirm_probes += stats.probes - before;
    for (std::size_t line = 0; line < used; ++line)
      for (std::size_t k = 0; k < across; ++k) {
        const std::size_t r = by_rows ? line : k, c = by_rows ? k : line;
        const std::uint32_t id = element_class[r * C + c];
        const std::uint32_t i = lines[line].plus, j = lines[line].minus;
        const Measurement& m = grid[r * C + c];
        ++stats.element_checks;
        if (!m.saturated && m.l == lca[id]->leaf_count(i, j)) continue;
        fail_proof(map.classes[id].tree, *lca[id], i, j, m, n,
                   " at output element (" + std::to_string(r) + ", " + std::to_string(c) +
                       "), class " + std::to_string(id));
      }
  }
}

void measure_grid_proof(ProbeSession& session, const OrderMap& map,
                        const std::vector<std::uint32_t>& element_class, RevealStats& stats, bool both_axes) {
  const TargetInfo& info = session.info();
  GridQueues q;
  q.rows.resize(info.grid.rows);
  q.columns.resize(info.grid.columns);
  std::vector<std::unique_ptr<LcaIndex>> lca;
  std::vector<std::vector<GridQueues::Queued>> class_pairs(map.classes.size());
  std::vector<std::size_t> class_elements(map.classes.size(), 0);
  for (std::uint32_t id : element_class) ++class_elements[id];
  std::vector<std::uint32_t> order(map.classes.size());
  for (std::uint32_t id = 0; id < map.classes.size(); ++id) {
    lca.push_back(std::make_unique<LcaIndex>(map.classes[id].tree));
    for (const auto& [i, j] : probe_pairs(map.classes[id].tree)) class_pairs[id].push_back({i, j});
    order[id] = id;
  }
  // Small classes have few lines to choose from: they go first (fewest elements, as a proxy).
  std::stable_sort(order.begin(), order.end(), [&class_elements](std::uint32_t a, std::uint32_t b) {
    return class_elements[a] < class_elements[b];
  });
  for (std::uint32_t id : order) place_class_pairs(info, element_class, id, class_pairs[id], q);
  if (both_axes)
    for (std::uint32_t id : order) place_on_the_other_axis(info, element_class, id, class_pairs[id], q);
  run_grid_calls(session, map, Placement::rows, q.rows, class_pairs, element_class, lca, stats);
  run_grid_calls(session, map, Placement::columns, q.columns, class_pairs, element_class, lca, stats);
}

// Beyond the exact counting range (the argument at the top): every proof pair of node v, once per
// block of the leaves outside L(v). Probes are measured in chunks, so that the active lists (up to
// about 2 x the limit leaves a probe) stay within a bounded memory.
constexpr std::size_t kMostActiveEntriesAChunk = std::size_t{1} << 23;

std::size_t blocks_outside(std::size_t n, std::size_t inside, std::uint64_t limit) {
  const std::size_t outside = n - inside;
  const auto block = static_cast<std::size_t>(limit - 1);
  return outside == 0 ? 1 : (outside + block - 1) / block;
}

std::size_t restricted_proof_probes(const Tree& tree, std::uint64_t limit) {
  std::size_t probes = 0;
  for (NodeId v = static_cast<NodeId>(tree.leaf_count()); v < tree.node_count(); ++v) {
    const std::size_t k = tree.children(v).size();
    probes += k * (k - 1) / 2 * blocks_outside(tree.leaf_count(), tree.leaves_under(v), limit);
  }
  return probes;
}

bool restricted_proof_pays(const Tree& tree, const MaskScheme& scheme) {
  return scheme.exact_count_limit >= 2 &&
         restricted_proof_probes(tree, scheme.exact_count_limit) <= 4 * tree.leaf_count();
}

void measure_restricted_proof(ProbeSession& session, const Tree& tree, RevealStats& stats) {
  const auto n = static_cast<std::uint32_t>(tree.leaf_count());
  const auto block = static_cast<std::size_t>(session.scheme().exact_count_limit - 1);
  std::deque<Background> backgrounds;  // stable addresses for the requests
  std::vector<ProbeRequest> requests;
  std::vector<NodeId> node_of;
  std::size_t entries = 0;
  const auto measure_chunk = [&] {
    std::vector<Measurement> measured(requests.size());
    const std::size_t before = stats.probes;
    session.measure(requests, measured);
    stats.confirm_probes += stats.probes - before;
    for (std::size_t k = 0; k < requests.size(); ++k) {
      const NodeId v = node_of[k];
      if (!measured[k].saturated && measured[k].l == tree.leaves_under(v)) continue;
      const std::uint32_t i = requests[k].plus, j = requests[k].minus;
      std::ostringstream os;
      os << "l(" << i << "," << j << ") counted within " << requests[k].active_count << " active leaves measured "
         << (measured[k].saturated ? std::string("beyond the exact range") : std::to_string(measured[k].l))
         << " but the tree predicts " << tree.leaves_under(v) << ": the node adding the parts of leaves " << i
         << " and " << j << " (" << tree.children(v).size() << " children, " << tree.leaves_under(v)
         << " leaves) is not where the target adds them";
      fail(Finding::verification_failed, os.str(), describe_probe(i, j, requests[k].active_count), std::nullopt,
           measured[k].saturated || measured[k].l < tree.leaves_under(v)
               ? "the target adds these parts in a smaller subtree first, or with leaves from elsewhere (a "
                 "changed order, or a fused step split into smaller ones)"
               : "the target adds these parts later than the tree does (a changed order, or several steps "
                 "fused into one)");
    }
    backgrounds.clear();
    requests.clear();
    node_of.clear();
    entries = 0;
  };
  std::size_t pair_index = 0;
  SubtreeLeaves subtrees(tree);
  std::vector<std::uint32_t> inside, outside;  // ascending
  for (NodeId v = static_cast<NodeId>(n); v < tree.node_count(); ++v) {
    subtrees.split(v, inside, outside);
    const std::span<const NodeId> children = tree.children(v);
    for (std::size_t a = 0; a < children.size(); ++a)
      for (std::size_t b = a + 1; b < children.size(); ++b, ++pair_index) {
        std::uint32_t plus = tree.smallest_leaf(children[a]), minus = tree.smallest_leaf(children[b]);
        if (pair_index % 2 == 1) std::swap(plus, minus);  // alternated, as the other proofs
        for (std::size_t first = 0; first == 0 || first < outside.size(); first += block) {
          const std::size_t last = std::min(outside.size(), first + block);
          std::vector<std::uint32_t> active;
          active.reserve(inside.size() + last - first);
          std::merge(inside.begin(), inside.end(), outside.begin() + static_cast<std::ptrdiff_t>(first),
                     outside.begin() + static_cast<std::ptrdiff_t>(last), std::back_inserter(active));
          entries += active.size();
          const auto active_count = static_cast<std::uint32_t>(active.size());
          backgrounds.push_back(ProbeSession::restricted(std::move(active)));
          requests.push_back({plus, minus, &backgrounds.back(), active_count});
          node_of.push_back(v);
          if (outside.empty()) break;
        }
        if (entries >= kMostActiveEntriesAChunk) measure_chunk();
      }
  }
  if (!requests.empty()) measure_chunk();
}

// Outside the exact counting range: reveal, then compare.
RevealStats confirm_by_reveal(Target& target, const OrderMap& map, const RevealOptions& options) {
  RevealResult revealed = reveal(target, options);
  if (!same_orders(revealed.map, map))
    fail(Finding::verification_failed,
         "the target's revealed order differs from the known one (checked by a full reveal: the "
         "output format cannot count every leaf exactly)",
         {}, std::nullopt, "the target's order changed");
  return revealed.stats;
}

}  // namespace

std::optional<std::size_t> confirm_probe_count(const TargetInfo& info, const Tree& tree) {
  if (confirmable(info)) return count_confirm_probes(tree);
  if (info.is_grid() || tree.leaf_count() != info.n) return std::nullopt;
  MaskScheme scheme;
  try {
    scheme = choose_mask_scheme(info.traits, info.n);
  } catch (const MaskSchemeError&) {
    return std::nullopt;
  }
  if (!restricted_proof_pays(tree, scheme)) return std::nullopt;
  return restricted_proof_probes(tree, scheme.exact_count_limit);
}

RevealStats confirm(Target& target, const Tree& tree, const RevealOptions& options) {
  const TargetInfo& info = target.info();
  if (info.is_grid()) return confirm(target, OrderMap::uniform(info.grid, tree), options);
  check_leaf_count(tree, info.n);
  const MaskScheme scheme = scheme_for(info);  // fails with `unsupported` where there is none
  if (confirmable(info)) return confirm_prepared(target, options, prepare_proof(info, tree, options));
  const auto start = std::chrono::steady_clock::now();
  const std::optional<std::size_t> proof_probes = confirm_probe_count(info, tree);
  if (!proof_probes) return confirm_by_reveal(target, OrderMap::uniform(info.grid, tree), options);
  RevealStats stats;
  stats.low_range_mode = true;
  ProbeSession session(target, scheme, options, stats);
  session.expect_probes(*proof_probes);
  const ValueRecord before = check_determinism(session, options);
  measure_restricted_proof(session, tree, stats);
  finish_single_confirmation(session, tree, options, before, start, stats);
  return stats;
}

namespace detail {

RevealStats confirm_prepared(Target& target, const RevealOptions& options, const PreparedProof& proof) {
  const auto start = std::chrono::steady_clock::now();
  const TargetInfo& info = target.info();
  const Tree& tree = *proof.tree;
  check_leaf_count(tree, info.n);
  RevealStats stats;
  ProbeSession session(target, scheme_for(info), options, stats);
  session.expect_probes(count_confirm_probes(tree));
  const ValueRecord before = check_determinism(session, options, &proof.determinism_inputs);
  measure_proof(session, proof, stats);
  finish_single_confirmation(session, tree, options, before, start, stats, &proof);
  return stats;
}

}  // namespace detail

namespace {

// A grid's proof of `map`, then every class's fused-node tests at its elements; the element classes
// for what follows. The verification calls are those from the fused-node tests on.
struct GridProof {
  std::vector<std::uint32_t> element_class;
  std::size_t calls_before_verification = 0;
};
// The per-element checks of a confirmation: the rounds that give every element its class's edge
// pairs (map_reveal.cpp). The reveal's later rounds spread pairs over the lines so that bands
// answer many; here the proof on both axes gives every row and column of a class the whole proof.
constexpr std::size_t kConfirmCheckRounds = 2;

// With `element_checks` (a confirmation at offset 0), the proof goes on both axes where it fits and
// is followed by the per-element checks; the proofs at the other placements go without them: each
// compares every element's bits with offset 0's on random inputs (confirm_grid_against_reference).
GridProof prove_grid_map(ProbeSession& session, const OrderMap& map, RevealStats& stats,
                         const RevealOptions* element_checks = nullptr) {
  GridProof proof{classes_of_elements(map), 0};
  measure_grid_proof(session, map, proof.element_class, stats, element_checks != nullptr);
  if (element_checks != nullptr) {
    MapRevealer checker(session, *element_checks, stats);
    checker.assume(map);
    checker.check_elements(false, kConfirmCheckRounds);
    // Asked for (check --prove-every-element): every element answers its class's whole proof, so
    // that an element whose order changed in the middle of its tree fails too, not by chance.
    checker.prove_every_element_if_asked(false);
  }
  proof.calls_before_verification = stats.target_calls;
  check_fused_nodes_per_class(session, proof.element_class,
                              [&map](std::uint32_t id) -> const Tree& { return map.classes[id].tree; }, stats);
  return proof;
}

void finish_grid_confirmation(RevealStats& stats, const GridProof& proof, const OrderMap& map,
                              std::chrono::steady_clock::time_point start) {
  stats.verification_calls = stats.target_calls - proof.calls_before_verification;
  stats.confirmed = true;
  stats.map_classes = map.classes.size();
  stats.total_seconds = seconds_since(start);
}

}  // namespace

RevealStats confirm(Target& target, const OrderMap& map, const RevealOptions& options) {
  const TargetInfo& info = target.info();
  if (!info.is_grid()) {
    check_single_output_map(info, map);
    return confirm(target, map.classes.front().tree, options);
  }
  const auto start = std::chrono::steady_clock::now();
  check_grid(info);
  if (!(map.grid == info.grid))
    fail(Finding::verification_failed,
         "the order map is for a " + std::to_string(map.grid.rows) + " x " +
             std::to_string(map.grid.columns) + " grid but the target has " +
             std::to_string(info.grid.rows) + " x " + std::to_string(info.grid.columns) + " outputs");
  for (const OrderClass& c : map.classes) check_leaf_count(c.tree, info.n);
  const MaskScheme scheme = scheme_for(info);
  if (!confirmable(info)) return confirm_by_reveal(target, map, options);
  RevealStats stats;
  ProbeSession session(target, scheme, options, stats);
  // The determinism check's inputs are the simulation's, and its second run is the final
  // comparison after the proof: two calls fewer, the same checks (every element run to run on
  // them, then against its class's tree on them, after the final comparison, so that an order that
  // changed during the proof is named for that; check_unchanged tells that from run-to-run
  // non-determinism by two more runs back to back).
  const SimulatedRecord before = check_grid_determinism_for_simulation(session, options, /*final_run_follows=*/true);
  // The proof is measured at every element of the lines its pairs are placed on: each element
  // answers its lines' share, so an element, or a block of a few, whose order changed only where
  // no pair of its lines looks (the last summands added in another order by a corner's tail
  // kernel) would pass. The proof on both axes covers whole rows and columns; the edge pairs of
  // the per-element checks (every element answers where its class's first and last summands join
  // the tree, map_reveal.cpp) cover single elements and small blocks.
  const GridProof proof = prove_grid_map(session, map, stats, &options);
  check_unchanged(session, before.record);
  const std::vector<bool> reproduced = compare_recorded_grid_simulation(
      info, before, proof.element_class, [&map](std::uint32_t id) -> const Tree& { return map.classes[id].tree; },
      stats);
  grid_signatures(info.grid, before, stats, reproduced);
  finish_grid_confirmation(stats, proof, map, start);
  return stats;
}

namespace detail {

std::optional<SimulatedRecord> grid_placement_reference(Target& target, const OrderMap& map,
                                                        const RevealOptions& options) {
  const TargetInfo& info = target.info();
  if (!info.is_grid() || info.n < 2 || options.verify_inputs == 0 || !confirmable(info) || !(map.grid == info.grid))
    return std::nullopt;
  const MaskScheme scheme = scheme_for(info);
  RevealStats stats;
  ProbeSession session(target, scheme, options, stats);
  SimulatedRecord reference = grid_simulation_record(session, options, 1);
  const std::vector<std::uint32_t> element_class = classes_of_elements(map);
  try {
    compare_recorded_grid_simulation(info, reference, element_class,
                                     [&map](std::uint32_t id) -> const Tree& { return map.classes[id].tree; }, stats);
  } catch (const RevealFailure&) {
    return std::nullopt;
  }
  return reference;
}

std::optional<RevealStats> confirm_grid_against_reference(Target& target, const OrderMap& map,
                                                          const RevealOptions& options,
                                                          const SimulatedRecord& reference) {
  const auto start = std::chrono::steady_clock::now();
  const TargetInfo& info = target.info();
  const MaskScheme scheme = scheme_for(info);
  RevealStats stats;
  ProbeSession session(target, scheme, options, stats);
  const GridProof proof = prove_grid_map(session, map, stats);
  const std::vector<double> now = evaluate_record_again(session, reference.record);
  for (std::size_t e = 0; e < now.size(); ++e)
    if (std::memcmp(&now[e], &reference.record.outputs[e], sizeof(double)) != 0) return std::nullopt;
  finish_grid_confirmation(stats, proof, map, start);
  return stats;
}

}  // namespace detail

}  // namespace fprev
