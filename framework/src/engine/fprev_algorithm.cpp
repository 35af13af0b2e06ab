// FPRev (Xie et al., USENIX ATC 2025 Alg. 4) with the low-dynamic-range technique of Alg. 5, as an explicit work list.
//
// A frame is one BUILDSUBTREE(I) call. Its probes l(i,j), j in I - {i}, i = min(I), are measured in
// waves: every frame waiting for probes goes to the target together, so independent sub-problems
// share batches. The j's are grouped by l; each group J_l becomes a child frame, and when all children
// are done the frame combines them in ascending l (Alg. 4: a child that is a complete subtree becomes
// the sibling of the current root r; a partial one — part of a fused node — becomes r's parent).
//
// Counting capacity (Alg. 5). When n - 2 units may exceed what the output counts exactly, frames
// switch on only the units they need: a child frame for J_l activates J_l plus one representative
// leaf of the parent's current subtree (so "partial" still shows as one extra leaf), and outputs that
// saturate (rounded counts) are peeled off: the saturated j's together with i form a complete subtree
// (the largest ancestor of i below the saturation threshold), revealed first as its own frame with
// only its leaves active, then treated as one node — the paper's "treating I - J as {i}" generalised.
//
// Every structural fact is checked: group sizes must add up to l (|r| + |J_l| == l), a partial group
// may only appear last and at exactly the parent's level, l values stay within the active leaves.
#include <algorithm>
#include <limits>
#include <random>
#include <span>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "algorithms.hpp"
#include "probe_session.hpp"
#include "sibling_guess.hpp"

namespace fprev::detail {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

struct Group {
  std::uint32_t l = 0;             // level in the frame's units (active leaves under the LCA)
  std::uint32_t size = 0;          // |J_l| (leaves)
  std::uint32_t witness = 0;       // one j of the group, for diagnostics
  std::uint32_t child = kNone;     // child frame, or kNone for a single leaf
  NodeId root = kNoNode;           // child's subtree root once done
  std::uint32_t child_max = 0;     // child's max l (its "n_leaves of T_c")
};

struct Frame {
  std::vector<std::uint32_t> leaves;  // I, ascending; released once probed
  std::uint32_t size = 0;             // |I|
  std::uint32_t i = 0;                // min(I)
  std::uint32_t rep = kNone;          // representative active leaf outside I (restricted mode)
  std::uint32_t outer_l = 0;          // level of the parent's fused node in this frame's units
                                      // (0: the frame must be a complete subtree)
  std::uint32_t parent = kNone;
  std::uint32_t slot = 0;             // index in the parent's groups, or kPeeledSlot
  std::vector<Group> groups;          // ascending l
  std::uint32_t peeled = kNone;       // frame revealing the saturated part (Alg. 5), if any
  NodeId peeled_root = kNoNode;
  std::uint32_t peeled_size = 0;
  std::uint32_t pending = 0;          // children not yet done
  NodeId root = kNoNode;              // result
  std::uint32_t max_l = 0;            // result: largest l of the frame (Alg. 4's n_leaves of T_c)
  // A guessed frame (sibling_guess.hpp): its probes are the guess's proof, not l(i, j) for every j;
  // a failed proof turns it into an ordinary frame.
  Shape guess;
  std::vector<std::uint32_t> expected;  // the l each proof probe must measure
};

constexpr std::uint32_t kPeeledSlot = std::numeric_limits<std::uint32_t>::max();

class FprevBuilder final : public RevealAlgorithm {
 public:
  FprevBuilder(std::size_t n, const MaskScheme& scheme, const Background* all_active,
               const RevealOptions& options)
      : all_active_(all_active),
        pivot_(options.pivot),
        rng_(options.seed),
        n_(static_cast<std::uint32_t>(n)),
        builder_(n),
        restricted_(uses_low_range_mode(n, scheme)),
        // Proofs read whole l(i,j) with every leaf active: not beyond the exact counting range.
        guess_siblings_(options.guess_siblings && !restricted_) {
    if (n_ >= 2) {
      std::vector<std::uint32_t> all(n_);
      for (std::uint32_t k = 0; k < n_; ++k) all[k] = k;
      top_ = new_frame(std::move(all), kNone, 0, kNone, 0);
    }
  }

  bool done() const override { return waiting_.empty() && wave_.empty(); }
  std::size_t leaves_placed() const override { return placed_; }
  std::size_t guesses_proven() const override { return guesses_proven_; }
  std::size_t guesses_failed() const override { return guesses_failed_; }

  std::span<const ProbeRequest> wave() override {
    if (wave_.empty() && !waiting_.empty()) build_wave();
    return requests_;
  }

  void accept(std::span<const Measurement> results) override {
    if (results.size() != requests_.size())
      fail(Finding::inconsistent_structure, "internal: a wave was answered with the wrong count");
    std::size_t offset = 0;
    for (std::uint32_t id : wave_) {
      const bool guessed = !frames_[id].guess.tokens.empty();
      const std::size_t count = guessed ? frames_[id].expected.size() : frames_[id].leaves.size() - 1;
      if (guessed)
        check_guess(id, results.subspan(offset, count));
      else
        expand(id, results.subspan(offset, count));
      offset += count;
    }
    wave_.clear();
    requests_.clear();
    backgrounds_.clear();
    finish_done_frames();
  }

  Tree finish() override {
    if (n_ < 2) return TreeBuilder(n_).build();
    if (!done() || frames_[top_].root == kNoNode)
      fail(Finding::inconsistent_structure, "the tree is incomplete");
    return builder_.build();
  }

 private:
  std::uint32_t new_frame(std::vector<std::uint32_t> leaves, std::uint32_t rep,
                          std::uint32_t outer_l, std::uint32_t parent, std::uint32_t slot) {
    const auto id = static_cast<std::uint32_t>(frames_.size());
    frames_.emplace_back();
    Frame& f = frames_.back();
    f.size = static_cast<std::uint32_t>(leaves.size());
    // Adaptive: the smallest leaf (Alg. 4), unless this sub-problem kept more than half of its
    // parent's leaves — then the parent's pivot sat high in the tree (a reversed chain), and a
    // random pivot keeps the expected cost linear.
    const bool random_pivot =
        pivot_ == Pivot::random ||
        (pivot_ == Pivot::adaptive && parent != kNone && 2 * leaves.size() > frames_[parent].size);
    f.i = leaves.size() > 1 && random_pivot
              ? leaves[std::uniform_int_distribution<std::size_t>(0, leaves.size() - 1)(rng_)]
              : leaves.front();
    f.rep = rep;
    f.outer_l = outer_l;
    f.parent = parent;
    f.slot = slot;
    if (f.size == 1) {
      f.root = f.i;
      f.max_l = 1;
      done_.push_back(id);
    } else {
      f.leaves = std::move(leaves);
      waiting_.push_back(id);
    }
    return id;
  }

  // Active leaves of a frame's probes (plus and minus included).
  std::uint32_t active_count(const Frame& f) const {
    if (!restricted_) return n_;
    return f.size + (f.rep == kNone ? 0 : 1);
  }

  // The probes of every waiting frame, as one wave: l(i, j) for j in I - {i}.
  void build_wave() {
    wave_.swap(waiting_);
    backgrounds_.reserve(wave_.size());  // stable addresses: requests point into it
    for (std::uint32_t id : wave_) {
      const Frame& f = frames_[id];
      const Background* background = all_active_;
      if (restricted_) {
        std::vector<std::uint32_t> active = f.leaves;
        if (f.rep != kNone) active.insert(std::upper_bound(active.begin(), active.end(), f.rep), f.rep);
        backgrounds_.push_back(ProbeSession::restricted(std::move(active)));
        background = &backgrounds_.back();
      }
      const std::uint32_t active = active_count(f);
      if (!f.guess.tokens.empty()) {
        add_proof_requests(id, background, active);
        continue;
      }
      for (std::uint32_t j : f.leaves)
        if (j != f.i) requests_.push_back({f.i, j, background, active});
    }
  }

  // The proof of a guessed frame. +M goes on the smaller leaf of every other pair and on the larger
  // of the rest, as confirm() does, so an arithmetic that treats +M and -M unlike shows either way.
  void add_proof_requests(std::uint32_t id, const Background* background, std::uint32_t active) {
    ShapeProof proof = shape_proof(frames_[id].guess);
    for (std::size_t k = 0; k < proof.pairs.size(); ++k) {
      const auto [a, b] = proof.pairs[k];
      requests_.push_back(k % 2 == 0 ? ProbeRequest{a, b, background, active}
                                     : ProbeRequest{b, a, background, active});
    }
    frames_[id].expected = std::move(proof.expected);
  }

  // A proven guess is the frame's subtree (a complete one); any other answer sends the frame to the
  // next wave as an ordinary Alg. 4 sub-problem, which validates whatever the target does.
  void check_guess(std::uint32_t id, std::span<const Measurement> results) {
    Frame& f = frames_[id];
    bool proven = true;
    for (std::size_t k = 0; k < results.size() && proven; ++k)
      proven = !results[k].saturated && results[k].l == f.expected[k];
    f.expected = {};
    if (!proven) {
      f.guess = {};
      ++guesses_failed_;
      waiting_.push_back(id);
      return;
    }
    f.root = build_shape(f.guess, builder_);
    f.max_l = f.size;
    f.guess = {};
    f.leaves = {};
    placed_ += f.size;
    ++guesses_proven_;
    done_.push_back(id);
  }

  // Guesses for the groups of a frame, in ascending l. A group takes the shape of the last guessed
  // group of its size (blocks added one after another: (((B0 B1) B2) B3)), else of r when it is as
  // large (lanes or halves combined pairwise). r starts as the pivot; single leaves and guessed
  // groups join it as siblings; after a group Alg. 4 must reveal, r's shape is unknown until then
  // and only earlier groups serve as models.
  std::vector<Shape> plan_guesses(std::uint32_t i, const std::vector<std::vector<std::uint32_t>>& members) const {
    std::vector<Shape> guesses(members.size());
    std::unordered_map<std::uint32_t, std::size_t> last_of_size;  // leaves -> guessed group
    Shape r = Shape::leaf(i);
    bool r_known = true;
    for (std::size_t g = 0; g < members.size(); ++g) {
      const auto size = static_cast<std::uint32_t>(members[g].size());
      if (size == 1) {
        if (r_known) r.pair_with(Shape::leaf(members[g].front()));
        continue;
      }
      const auto model = last_of_size.find(size);
      if (model != last_of_size.end())
        guesses[g] = move_shape(guesses[model->second], members[g]);
      else if (r_known && r.leaves == size)
        guesses[g] = move_shape(r, members[g]);
      if (guesses[g].tokens.empty()) {
        r_known = false;
        r = {};
        continue;
      }
      last_of_size[size] = g;
      if (r_known) r.pair_with(guesses[g]);
    }
    return guesses;
  }

  [[noreturn]] void structure_error(const Frame& f, std::uint32_t j, std::uint32_t l,
                                    const std::string& what) {
    std::ostringstream os;
    os << what << " (sub-problem of " << f.size << " leaves starting at leaf " << f.i << ", l("
       << f.i << "," << j << ") = " << l << ")";
    fail(Finding::inconsistent_structure, os.str(), describe_probe(f.i, j, active_count(f)),
         std::nullopt,
         "the l(i,j) values cannot come from one fixed summation tree: the order depends on the "
         "values (e.g. sorting by magnitude), the target is non-deterministic in a way the "
         "determinism check missed, or it keeps extra precision");
  }

  // Groups the measured l(i,j) of frame `id` and creates its child frames.
  void expand(std::uint32_t id, std::span<const Measurement> results) {
    const std::uint32_t i = frames_[id].i;
    // The j's in the order they were probed: the frame's leaves without the pivot i.
    std::vector<std::uint32_t> leaves = std::move(frames_[id].leaves);
    frames_[id].leaves = {};
    leaves.erase(std::find(leaves.begin(), leaves.end(), i));
    const std::uint32_t active = active_count(frames_[id]);

    // Order-independent summation: nothing is ever masked, every l is 2 (Collange et al., Parallel Computing 2015).
    if (leaves.size() >= 2 && frames_[id].parent == kNone &&
        std::all_of(results.begin(), results.end(),
                    [](const Measurement& m) { return !m.saturated && m.l == 2; })) {
      fail(Finding::order_independent,
           "every probe returned all active units: the masks +-M absorbed nothing, so the result "
           "does not depend on the order of additions and there is no summation tree to reveal",
           describe_probe(i, leaves[1], active), std::nullopt,
           "an order-independent summation (exact or correctly rounded, e.g. an ExBLAS-style "
           "superaccumulator), or an accumulator far wider than the declared formats");
    }

    // Group the j's by l. Sorting (l, j) pairs costs O(|I| log |I|) whatever n is, and keeps every
    // J_l ascending (Alg. 4 needs min(J_l)).
    std::vector<std::uint32_t> saturated;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> by_level;  // (l, j)
    by_level.reserve(results.size());
    for (std::size_t k = 0; k < results.size(); ++k) {
      const Measurement& m = results[k];
      const std::uint32_t j = leaves[k];
      if (m.saturated) {
        saturated.push_back(j);
        continue;
      }
      if (m.l < 2 || m.l > active) structure_error(frames_[id], j, m.l, "l(i,j) out of range");
      by_level.emplace_back(m.l, j);
    }
    std::sort(by_level.begin(), by_level.end());
    std::vector<std::vector<std::uint32_t>> members;
    std::vector<Group> groups;
    for (const auto& [l, j] : by_level) {
      if (groups.empty() || groups.back().l != l) {
        Group g;
        g.l = l;
        groups.push_back(g);
        members.emplace_back();
      }
      members.back().push_back(j);
    }
    leaves = {};

    // Sizes must add up: |r| + |J_l| == l at every level; only the last level may be the parent's
    // fused node (partial: |r| + |J_l| < l == outer_l).
    std::uint32_t size_r = saturated.empty() ? 1 : static_cast<std::uint32_t>(saturated.size() + 1);
    const Frame& f = frames_[id];
    if (!saturated.empty() && !groups.empty() && size_r >= groups.front().l)
      structure_error(f, saturated.front(), groups.front().l,
                      "a saturated (large) count next to a smaller exact one");
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const std::uint32_t l = groups[g].l;
      const auto size = static_cast<std::uint32_t>(members[g].size());
      groups[g].size = size;
      groups[g].witness = members[g].front();
      const bool last = g + 1 == groups.size();
      const bool partial_top = last && f.outer_l != 0 && l == f.outer_l && size_r + size < l;
      if (size_r + size != l && !partial_top) {
        std::ostringstream os;
        os << "a subtree of " << size_r << " leaves joined by " << size << " leaves cannot have "
           << l << " leaves";
        structure_error(f, groups[g].witness, l, os.str());
      }
      size_r += size;
    }
    if (groups.empty())
      structure_error(f, f.i, 0, "every output of the sub-problem saturated");
    if (size_r != f.size)
      structure_error(f, f.i, size_r, "the groups do not cover the sub-problem");

    std::vector<Shape> guesses;
    if (guess_siblings_ && saturated.empty()) guesses = plan_guesses(i, members);
    Frame& frame = frames_[id];
    frame.groups = std::move(groups);
    frame.pending = static_cast<std::uint32_t>(frame.groups.size());
    if (!saturated.empty()) {
      ++frame.pending;
      frame.peeled_size = static_cast<std::uint32_t>(saturated.size() + 1);
      std::vector<std::uint32_t> peeled_leaves = std::move(saturated);
      peeled_leaves.insert(std::upper_bound(peeled_leaves.begin(), peeled_leaves.end(), i), i);
      const std::uint32_t child = new_frame(std::move(peeled_leaves), kNone, 0, id, kPeeledSlot);
      frames_[id].peeled = child;
    }
    for (std::size_t g = 0; g < frames_[id].groups.size(); ++g) {
      const std::uint32_t l = frames_[id].groups[g].l;
      const std::uint32_t size = frames_[id].groups[g].size;
      if (size == 1) {  // a single leaf is a complete subtree: no frame needed
        Group& group = frames_[id].groups[g];
        group.root = group.witness;
        group.child_max = 1;
        --frames_[id].pending;
        ++placed_;
        continue;
      }
      // A child frame in restricted mode activates its own leaves plus i; its partial level is then
      // size + 1. With every leaf active, the partial level is this frame's l.
      const std::uint32_t rep = restricted_ ? i : kNone;
      const std::uint32_t outer = restricted_ ? size + 1 : l;
      const std::uint32_t child =
          new_frame(std::move(members[g]), rep, outer, id, static_cast<std::uint32_t>(g));
      if (!guesses.empty() && !guesses[g].tokens.empty()) frames_[child].guess = std::move(guesses[g]);
      frames_[id].groups[g].child = child;
    }
    if (frames_[id].pending == 0) combine(id);
  }

  void finish_done_frames() {
    while (!done_.empty()) {
      const std::uint32_t id = done_.back();
      done_.pop_back();
      const Frame& f = frames_[id];
      if (f.parent == kNone) continue;
      Frame& parent = frames_[f.parent];
      if (f.slot == kPeeledSlot) {
        if (f.max_l != f.size)  // the peeled part is a complete subtree by construction
          structure_error(f, f.i, f.max_l, "the saturated part is not a complete subtree");
        parent.peeled_root = f.root;
      } else {
        parent.groups[f.slot].root = f.root;
        parent.groups[f.slot].child_max = f.max_l;
      }
      if (--parent.pending == 0) combine(f.parent);
    }
  }

  // Alg. 4's loop over L_i in ascending order, once every child subtree exists.
  void combine(std::uint32_t id) {
    Frame& f = frames_[id];
    NodeId r = f.peeled == kNone ? f.i : f.peeled_root;
    if (f.peeled == kNone) ++placed_;  // leaf i
    for (const Group& g : f.groups) {
      if (g.child_max == g.size) {  // T' = T_c: a complete subtree, the sibling of r
        const NodeId pair[2] = {r, g.root};
        r = builder_.add_node(std::span<const NodeId>(pair, 2));
      } else {  // T' is part of a fused node: its root is r's parent
        if (builder_.leaves_under(g.root) != g.size || g.root < n_)
          structure_error(f, g.witness, g.l, "a partial subtree without an inner root");
        builder_.add_child(g.root, r);
        r = g.root;
      }
    }
    f.root = r;
    f.max_l = f.groups.empty() ? f.size : f.groups.back().l;
    f.groups = {};
    done_.push_back(id);
  }

  const Background* all_active_;
  Pivot pivot_;
  std::mt19937_64 rng_;
  std::uint32_t n_;
  TreeBuilder builder_;
  bool restricted_;
  bool guess_siblings_;
  std::size_t guesses_proven_ = 0, guesses_failed_ = 0;
  std::vector<Frame> frames_;
  std::vector<std::uint32_t> waiting_;
  std::vector<std::uint32_t> done_;
  std::size_t placed_ = 0;
  std::uint32_t top_ = 0;
  // The wave being measured: its frames, requests and (restricted mode) backgrounds.
  std::vector<std::uint32_t> wave_;
  std::vector<ProbeRequest> requests_;
  std::vector<Background> backgrounds_;
};

}  // namespace

bool uses_low_range_mode(std::size_t n, const MaskScheme& scheme) {
  return n >= 2 && n - 2 >= scheme.exact_count_limit;
}

std::unique_ptr<RevealAlgorithm> make_fprev(std::size_t n, const MaskScheme& scheme,
                                            const Background* all_active,
                                            const RevealOptions& options) {
  return std::make_unique<FprevBuilder>(n, scheme, all_active, options);
}

}  // namespace fprev::detail

namespace fprev::detail {

Tree run_waves(ProbeSession& session, RevealAlgorithm& algorithm, RevealStats& stats) {
  std::vector<Measurement> results;
  while (!algorithm.done()) {
    const std::span<const ProbeRequest> wave = algorithm.wave();
    results.resize(wave.size());
    session.measure(wave, results);
    algorithm.accept(results);
    session.report_progress(algorithm.leaves_placed());
  }
  stats.guesses_proven += algorithm.guesses_proven();
  stats.guesses_failed += algorithm.guesses_failed();
  return algorithm.finish();
}

}  // namespace fprev::detail
