// confirm(): the proof probe set accepts the true tree and rejects every other one. The proof
// (src/engine/confirm.cpp) is tested by editing every inner node of many random trees in every way
// an order can change, and exhaustively on all trees of up to 5 leaves; the probe counts are those
// of the argument (n - 1 for a binary tree) and far below a reveal's for lanes and pairwise trees.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>

#include "engine_test_helpers.hpp"
#include "fprev/confirm.hpp"
#include "fprev/probe_inputs.hpp"
#include "fprev/sexpr.hpp"
#include "grid_oracle_target.hpp"
#include "tampered_grid_target.hpp"
#include "random_trees.hpp"
#include "tree_mutations.hpp"

namespace fprev {
namespace {

using testing::EditableTree;

RevealOptions quick_options() {
  RevealOptions o;
  o.determinism_runs = 2;
  o.determinism_inputs = 1;
  o.verify_inputs = 1;
  return o;
}

// The finding confirm() gives for a target following `actual` against the known tree `golden`;
// nullopt when it confirms.
// `rounded`: the target's output rounded to that format (beyond its exact counting range, the
// block-wise proof: confirm.cpp).
std::optional<Finding> confirm_outcome(const Tree& actual, const Tree& golden,
                                       const RevealOptions& options = quick_options(),
                                       std::optional<Format> rounded = std::nullopt) {
  std::unique_ptr<Target> target;
  if (rounded)
    target = std::make_unique<testing::RoundedOracle>(actual, *rounded, 7);
  else
    target = std::make_unique<TreeOracleTarget>(actual, TreeOracleTarget::default_traits(actual), 7);
  try {
    confirm(*target, golden, options);
    return std::nullopt;
  } catch (const RevealFailure& e) {
    return e.diagnostic().finding;
  }
}

std::size_t pairs_of(std::size_t k) { return k * (k - 1) / 2; }

TEST(Confirm, ProofSetHasOnePairPerBinaryNodeAndAllPairsOfAFusedOne) {
  const Tree binary = parse_sexpr("(((0 1) 2) (3 4))");
  EXPECT_EQ(count_confirm_probes(binary), 4u);
  const auto pairs = confirm_pairs(binary);
  const std::set<std::pair<std::uint32_t, std::uint32_t>> got(pairs.begin(), pairs.end());
  EXPECT_EQ(got, (std::set<std::pair<std::uint32_t, std::uint32_t>>{{0, 1}, {0, 2}, {3, 4}, {0, 3}}));
  const Tree fused = parse_sexpr("((0 1 2 3) 4 (5 6))");
  EXPECT_EQ(count_confirm_probes(fused), pairs_of(4) + pairs_of(3) + 1);
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const Tree t = random_binary_tree(2 + seed * 13, seed);
    EXPECT_EQ(count_confirm_probes(t), t.leaf_count() - 1);
    EXPECT_EQ(confirm_pairs(t).size(), t.leaf_count() - 1);
  }
  EXPECT_EQ(count_confirm_probes(parse_sexpr("0")), 0u);
}

TEST(Confirm, AcceptsTheTrueTreeWithExactlyTheProofProbes) {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const std::size_t n = 1 + (seed * 7919) % 400;
    const Tree truth = seed % 2 == 0 ? random_multiway_tree(n, 2 + seed % 17, seed)
                                     : random_binary_tree(n, seed);
    TreeOracleTarget target(truth, std::nullopt, 16);
    const RevealStats stats = confirm(target, truth);
    EXPECT_TRUE(stats.confirmed) << "seed " << seed;
    EXPECT_EQ(stats.probes, count_confirm_probes(truth)) << "seed " << seed;
    EXPECT_EQ(stats.confirm_probes, stats.probes);
    EXPECT_EQ(stats.probes, target.probes_evaluated);
    if (seed % 2 == 1) {
      EXPECT_EQ(stats.probes, n - 1) << "seed " << seed;
    }
  }
}

// Every kind of edit at every inner node of the tree; each edit that changes the tree must be
// rejected. Returns how many were.
std::size_t reject_every_edit(const Tree& golden, std::mt19937_64& rng,
                              const RevealOptions& options = quick_options(),
                              std::optional<Format> rounded = std::nullopt) {
  std::size_t rejected = 0;
  const auto expect_rejected = [&](const EditableTree& edited, const char* what, NodeId v) {
    const Tree changed = edited.build();
    if (changed == golden) return;
    const std::optional<Finding> finding = confirm_outcome(changed, golden, options, rounded);
    ASSERT_TRUE(finding.has_value()) << what << " at node " << v << " not detected\ngolden  "
                                     << to_sexpr(golden) << "\nchanged " << to_sexpr(changed);
    EXPECT_EQ(*finding, Finding::verification_failed) << what << " at node " << v;
    ++rejected;
  };
  const EditableTree original(golden);
  const auto nodes = static_cast<NodeId>(original.node_count());
  std::uniform_int_distribution<NodeId> any(0, nodes - 1);
  for (NodeId v = static_cast<NodeId>(golden.leaf_count()); v < nodes; ++v) {
    const std::vector<NodeId>& kids = original.kids(v);
    // A child of v changes places with a subtree elsewhere (a cousin, an uncle, ...).
    for (int attempt = 0; attempt < 20; ++attempt) {
      const NodeId c = kids[rng() % kids.size()], w = any(rng);
      if (original.inside(w, c) || original.inside(c, w)) continue;
      EditableTree e = original;
      e.swap_subtrees(c, w);
      expect_rejected(e, "swap", v);
      break;
    }
    {
      EditableTree e = original;
      if (e.rotate(v)) expect_rejected(e, "rotation", v);
    }
    {
      EditableTree e = original;
      if (e.merge_into_parent(v)) expect_rejected(e, "merge into the parent", v);
    }
    for (std::size_t a = 0; a < kids.size() && kids.size() >= 3; ++a) {  // every split of a pair
      for (std::size_t b = a + 1; b < kids.size(); ++b) {
        EditableTree e = original;
        e.split(v, a, b);
        expect_rejected(e, "split", v);
      }
    }
    for (NodeId c : kids) {
      if (!original.is_leaf(c)) continue;
      const NodeId y = any(rng);
      if (y == c) continue;
      EditableTree e = original;
      e.move_leaf(c, y);
      expect_rejected(e, "leaf moved", v);
      break;
    }
  }
  return rejected;
}

// reject_every_edit over the trees make_tree(1..count).
template <class MakeTree>
std::size_t reject_every_edit_of(std::uint64_t count, MakeTree make_tree, std::mt19937_64& rng,
                                 const RevealOptions& options = quick_options(),
                                 std::optional<Format> rounded = std::nullopt) {
  std::size_t rejected = 0;
  for (std::uint64_t seed = 1; seed <= count && !::testing::Test::HasFatalFailure(); ++seed)
    rejected += reject_every_edit(make_tree(seed), rng, options, rounded);
  return rejected;
}

TEST(Confirm, RejectsEveryEditOfEveryNodeOfRandomBinaryTrees) {
  std::mt19937_64 rng(11);
  std::size_t rejected = reject_every_edit_of(40, [](std::uint64_t seed) {
    return random_binary_tree(seed <= 36 ? 2 + seed * 3 : 250 + seed, seed);
  }, rng);
  if (::testing::Test::HasFatalFailure()) return;
  for (const Tree& t : {left_deep_tree(120), right_deep_tree(120), balanced_tree(120), lanes_tree(120, 8)})
    rejected += reject_every_edit(t, rng);
  EXPECT_GT(rejected, 4000u);
}

TEST(Confirm, RejectsEveryEditOfEveryNodeOfRandomFusedTrees) {
  std::mt19937_64 rng(12);
  EXPECT_GT(reject_every_edit_of(40, [](std::uint64_t seed) {
    return random_multiway_tree(seed <= 36 ? 3 + seed * 3 : 200 + seed, 2 + seed % 9, seed);
  }, rng), 4000u);
}

// Beyond the exact counting range (a bfloat16 output counts 256 units exactly): the block-wise proof
// (confirm.cpp) must accept the true tree with the probes it announces, fewer than a reveal's, and
// reject the same edits at every node.
TEST(Confirm, BeyondTheExactRangeAcceptsTheTrueTreeWithFewerProbesThanAReveal) {
  // Subtrees of consecutive leaves (balanced, deep) and of scattered ones (lanes, random), which
  // the proof's leaf sets (SubtreeLeaves::split) handle apart.
  for (const Tree& truth : {balanced_tree(300), left_deep_tree(300), right_deep_tree(300), lanes_tree(300, 8),
                            random_binary_tree(400, 3), random_multiway_tree(300, 5, 4)}) {
    testing::RoundedOracle target(truth, Format::bfloat16, 7);
    const std::optional<std::size_t> announced = confirm_probe_count(target.info(), truth);
    ASSERT_TRUE(announced.has_value()) << to_sexpr(truth);
    const RevealStats stats = confirm(target, truth, quick_options());
    EXPECT_TRUE(stats.confirmed);
    EXPECT_TRUE(stats.low_range_mode);
    EXPECT_EQ(stats.confirm_probes, *announced);
    EXPECT_LE(*announced, 4 * truth.leaf_count());
    testing::RoundedOracle again(truth, Format::bfloat16, 7);
    EXPECT_LT(stats.confirm_probes, reveal(again, quick_options()).stats.probes) << to_sexpr(truth);
  }
}

TEST(Confirm, BeyondTheExactRangeRejectsEveryEditOfEveryNode) {
  std::mt19937_64 rng(21);
  // Just beyond the range (258 summands and more), where the edits are cheapest to confirm.
  std::size_t rejected = reject_every_edit_of(2, [](std::uint64_t seed) {
    return seed % 2 == 0 ? random_multiway_tree(262, 4, seed) : random_binary_tree(262, seed);
  }, rng, quick_options(), Format::bfloat16);
  if (::testing::Test::HasFatalFailure()) return;
  rejected += reject_every_edit(left_deep_tree(260), rng, quick_options(), Format::bfloat16);
  rejected += reject_every_edit(lanes_tree(264, 8), rng, quick_options(), Format::bfloat16);
  EXPECT_GT(rejected, 700u);
}

// Where blocks would cost more than 4n probes, confirm() reveals and compares, as before.
TEST(Confirm, BeyondTheExactRangeARevealWhereBlocksWouldCostMore) {
  const Tree truth = balanced_tree(2000);  // bfloat16: about 8 blocks a node
  testing::RoundedOracle target(truth, Format::bfloat16, 64);
  EXPECT_FALSE(confirm_probe_count(target.info(), truth).has_value());
  const RevealStats stats = confirm(target, truth, quick_options());
  EXPECT_FALSE(stats.confirmed);
  EXPECT_EQ(stats.confirm_probes, 0u);
}

// The placement proof's multi-pair probes (src/engine/multi_pair_proof.cpp): the same edits at
// every node must be rejected, with the probes sharing calls between the nodes of one height.
RevealOptions multi_pair_options() {
  RevealOptions o = quick_options();
  o.multi_pair_proofs = true;
  return o;
}

TEST(Confirm, MultiPairProofRejectsEveryEditOfEveryNodeOfRandomBinaryTrees) {
  std::mt19937_64 rng(13);
  std::size_t rejected = reject_every_edit_of(30, [](std::uint64_t seed) {
    return random_binary_tree(seed <= 26 ? 8 + seed * 5 : 250 + seed, seed);
  }, rng, multi_pair_options());
  if (::testing::Test::HasFatalFailure()) return;
  for (const Tree& t : {balanced_tree(128), lanes_tree(120, 8), lanes_tree(160, 32), lanes_tree(96, 6)})
    rejected += reject_every_edit(t, rng, multi_pair_options());
  EXPECT_GT(rejected, 3000u);
}

TEST(Confirm, MultiPairProofRejectsEveryEditOfEveryNodeOfRandomFusedTrees) {
  std::mt19937_64 rng(14);
  EXPECT_GT(reject_every_edit_of(30, [](std::uint64_t seed) {
    return random_multiway_tree(seed <= 26 ? 9 + seed * 5 : 200 + seed, 2 + seed % 5, seed);
  }, rng, multi_pair_options()), 2000u);
}

// Trees that trade children between two nodes of one height, which one multi-pair probe holding
// both cannot see (the same units are lost, the masks cancel as well): another probe of each node
// must. In ((0 1) (2 3)) -> ((0 3) (1 2)) the pair (0, 2) of the node above still meets at
// the same node, so only the nodes' own probes can tell.
TEST(Confirm, MultiPairProofRejectsNodesOfOneHeightTradingChildren) {
  const Tree golden = balanced_tree(64);
  std::size_t tried = 0;
  for (NodeId v = static_cast<NodeId>(golden.leaf_count()); v < golden.node_count(); ++v) {
    const auto kids = golden.children(v);
    if (golden.leaves_under(v) != 4) continue;
    // v = ((a b) (c d)); trade b and d: ((a d) (c b)), which the node's pair (a, c) cannot see.
    const NodeId left = kids[0], right = kids[1];
    EditableTree e(golden);
    e.swap_subtrees(golden.children(left)[1], golden.children(right)[1]);
    const Tree changed = e.build();
    ASSERT_NE(changed, golden);
    const std::optional<Finding> finding = confirm_outcome(changed, golden, multi_pair_options());
    ASSERT_TRUE(finding.has_value()) << "golden  " << to_sexpr(golden) << "\nchanged " << to_sexpr(changed);
    EXPECT_EQ(*finding, Finding::verification_failed);
    ++tried;
  }
  EXPECT_EQ(tried, 16u);
}

// The true tree passes in far fewer calls; float32 products (a dot) and float64 sums alike, and
// the multi-pair probes' outputs are those of the target's own arithmetic (the oracle simulates
// every value input bitwise).
TEST(Confirm, MultiPairProofAcceptsTheTrueTreeInFewerCalls) {
  NumericTraits dot;
  dot.input = dot.accumulator = dot.output = Format::float32;
  dot.summand = SummandKind::product;
  struct Case {
    Tree tree;
    bool wide;  // many binary nodes of each height: at least 3 times fewer calls
  };
  for (const NumericTraits& traits : {dot, TreeOracleTarget::default_traits(balanced_tree(2))}) {
    for (const Case& c : {Case{lanes_tree(4096, 32), true}, Case{lanes_tree(4096, 64), true},
                          Case{balanced_tree(4096), true}, Case{random_binary_tree(3000, 5), false},
                          Case{random_multiway_tree(3000, 6, 5), false}, Case{left_deep_tree(300), false}}) {
      TreeOracleTarget plain(c.tree, traits), multi(c.tree, traits);
      const RevealStats one = confirm(plain, c.tree, quick_options());
      const RevealStats many = confirm(multi, c.tree, multi_pair_options());
      EXPECT_TRUE(many.confirmed);
      EXPECT_EQ(one.multi_pair_probes, 0u);
      EXPECT_LE(many.target_calls, one.target_calls);
      EXPECT_EQ(many.target_calls, multi.calls());
      if (c.wide) {
        EXPECT_GT(many.multi_pair_probes, 0u);
        EXPECT_LT(3 * many.target_calls, one.target_calls)
            << to_string(traits.input) << " " << c.tree.leaf_count() << " leaves, depth " << c.tree.depth();
      }
    }
  }
  // 32 lanes of 128: 127 heights of 32 binary nodes in 7 probes each (35 distinct 3-subsets of 7
  // probes, 32 x 3 / 7 < 14 nodes a probe; 6 probes have only 20 3-subsets and 15 2-subsets); then
  // 16 nodes adding lanes (6 probes, 3 each: 20 subsets) and 8 (5 probes, 2 each: 10 subsets); the
  // 4, 2 and 1 above go alone (sharing would take as many calls).
  TreeOracleTarget lanes(lanes_tree(4096, 32), dot);
  const RevealStats s = confirm(lanes, lanes_tree(4096, 32), multi_pair_options());
  EXPECT_EQ(s.multi_pair_probes, 127u * 7u + 6u + 5u);
  EXPECT_EQ(s.probes, s.multi_pair_probes + 4u + 2u + 1u);
  EXPECT_EQ(s.probes, lanes.probes_evaluated);
}

// A float32 kernel of `lanes` lanes combined pairwise (lanes_tree), reading its inputs through
// ProbeVectors as the blas and eigen targets do, so the multi-pair probes go through the further
// masks and real float additions; `swap` exchanges the places of two leaves in its loop.
class FloatLanesTarget final : public testing::FloatKernelTarget {
 public:
  FloatLanesTarget(std::size_t n, std::size_t lanes, std::pair<std::size_t, std::size_t> swap = {0, 0})
      : FloatKernelTarget(n), lanes_(lanes), order_(n) {
    info_.extra_masks = true;
    for (std::size_t k = 0; k < n; ++k) order_[k] = k;
    std::swap(order_[swap.first], order_[swap.second]);
  }

 private:
  double run(const float* a) const override {
    std::vector<float> lane(lanes_);
    for (std::size_t j = 0; j < lanes_; ++j) lane[j] = a[order_[j]];
    for (std::size_t k = lanes_; k < order_.size(); ++k) lane[k % lanes_] += a[order_[k]];
    while (lane.size() > 1) {
      std::vector<float> next;
      for (std::size_t i = 0; i + 1 < lane.size(); i += 2) next.push_back(lane[i] + lane[i + 1]);
      if (lane.size() % 2 == 1) next.push_back(lane.back());
      lane = std::move(next);
    }
    return lane[0];
  }
  std::size_t lanes_;
  std::vector<std::size_t> order_;
};

TEST(Confirm, MultiPairProofOnARealFloatKernel) {
  FloatLanesTarget same(1024, 16);
  const RevealStats s = confirm(same, lanes_tree(1024, 16), multi_pair_options());
  EXPECT_TRUE(s.confirmed);
  EXPECT_GT(s.multi_pair_probes, 0u);
  EXPECT_LT(2 * s.target_calls, 1023u);  // 16 nodes a height in 6 probes, against 16 with one pair a probe
  // Two leaves of one lane, of two lanes, at the start and deep in the chains.
  for (const auto& swap : {std::pair<std::size_t, std::size_t>{3, 35}, {40, 41}, {500, 516}, {1, 1000}}) {
    FloatLanesTarget swapped(1024, 16, swap);
    EXPECT_THROW(confirm(swapped, lanes_tree(1024, 16), multi_pair_options()), RevealFailure)
        << swap.first << " <-> " << swap.second;
  }
}

TEST(Confirm, ProbeVectorsSetFurtherMasksAndPutTheUnitsBack) {
  const MaskScheme scheme = choose_mask_scheme(FloatLanesTarget(8, 2).info().traits, 8);
  Background all;
  all.id = Background::next_id();
  const Background* backgrounds[] = {&all};
  const Probe probes[] = {{0, 1, 0}, {2, 3, 0}};
  const std::uint32_t extra_begin[] = {0, 2, 2};
  const ExtraMask extras[] = {{4, {8.0, 1.0}}, {6, {-8.0, 1.0}}};
  ProbeBatch batch;
  batch.values = &scheme.values;
  batch.backgrounds = backgrounds;
  batch.probes = probes;
  batch.extra_begin = extra_begin;
  batch.extra_masks = extras;
  EXPECT_EQ(batch.leaf(0, 4).a, 8.0);
  EXPECT_EQ(batch.leaf(0, 6).a, -8.0);
  EXPECT_EQ(batch.leaf(1, 4).a, scheme.values.unit.a);
  ProbeVectors<float> vectors(8);
  vectors.load(batch, 0);
  EXPECT_EQ(vectors.a()[4], 8.0f);
  EXPECT_EQ(vectors.a()[6], -8.0f);
  vectors.load(batch, 1);
  EXPECT_EQ(vectors.a()[4], static_cast<float>(scheme.values.unit.a));
  EXPECT_EQ(vectors.a()[6], static_cast<float>(scheme.values.unit.a));
  EXPECT_EQ(vectors.a()[0], static_cast<float>(scheme.values.unit.a));
  EXPECT_EQ(vectors.a()[2], static_cast<float>(scheme.values.plus.a));
}

// All trees over up to 5 leaves (236 for n = 5), every pair: confirm passes exactly when the
// target's tree is the known one.
TEST(Confirm, TellsEveryTreeOfUpToFiveLeavesFromEveryOther) {
  for (std::size_t n = 2; n <= 5; ++n) {
    std::set<std::string> seen;
    std::vector<Tree> trees;
    for (std::uint64_t seed = 1; seed <= 40000 && trees.size() < 236; ++seed) {
      const Tree t = seed % 3 == 0 ? random_binary_tree(n, seed) : random_multiway_tree(n, n, seed);
      if (seen.insert(to_sexpr(t)).second) trees.push_back(t);
    }
    const std::size_t expected[] = {0, 1, 1, 4, 26, 236};
    ASSERT_EQ(trees.size(), expected[n]) << "n = " << n;
    for (const Tree& golden : trees)
      for (const Tree& actual : trees)
        ASSERT_EQ(confirm_outcome(actual, golden).has_value(), !(actual == golden))
            << "golden " << to_sexpr(golden) << ", target " << to_sexpr(actual);
  }
}

TEST(Confirm, CostsAThirdOfARevealForPairwiseAndWideLanesAndNeverMore) {
  // No probe set does with fewer than n - 2 probes on a binary tree: merging an inner node into
  // its parent changes only the l(i,j) of pairs meeting at that node, so every node needs a probe
  // of its own. FPRev reveals a sequential sum with n - 1 probes of its own (pivot 0 splits every
  // leaf off at once): there confirm saves only the reveal's sampled verification; 8 lanes and
  // a reversed sum cost a reveal about 2.5 n. The third is measured against FPRev's Alg. 4 as
  // published; with sibling guesses (sibling_guess_test.cpp) a reveal of lanes or a pairwise sum
  // costs about 2n, and confirm still costs less than it.
  struct Case {
    const char* name;
    Tree tree;
    std::size_t factor;  // confirm's probes times this are at most the reveal's
  };
  for (const std::size_t n : {1000, 4096}) {
    for (const Case& c : {Case{"lanes8", lanes_tree(n, 8), 2}, Case{"lanes16", lanes_tree(n, 16), 3},
                          Case{"lanes32", lanes_tree(n, 32), 3}, Case{"pairwise", balanced_tree(n), 3},
                          Case{"reverse", right_deep_tree(n), 2}, Case{"random", random_binary_tree(n, n), 3},
                          Case{"sequential", left_deep_tree(n), 1}}) {
      TreeOracleTarget revealed(c.tree, std::nullopt, 64), guessed(c.tree, std::nullopt, 64),
          confirmed(c.tree, std::nullopt, 64);
      RevealOptions alg4;
      alg4.guess_siblings = false;
      const RevealResult r = reveal(revealed, alg4);
      ASSERT_EQ(r.tree, c.tree);
      const RevealResult g = reveal(guessed);
      ASSERT_EQ(g.tree, c.tree);
      const RevealStats s = confirm(confirmed, c.tree);
      EXPECT_EQ(s.probes, n - 1) << c.name;
      EXPECT_LE(c.factor * s.probes, r.stats.probes) << c.name << " n = " << n << ": reveal "
                                                     << r.stats.probes << " probes, confirm " << s.probes;
      EXPECT_LT(s.probes, g.stats.probes) << c.name << " n = " << n;
    }
  }
}

TEST(Confirm, NamesTheProbeAndTheNodeThatDisagree) {
  const Tree golden = parse_sexpr("(((0 1) 2) (3 4))");
  TreeOracleTarget target(parse_sexpr("(((0 2) 1) (3 4))"), std::nullopt);
  try {
    confirm(target, golden);
    FAIL() << "a changed tree was confirmed";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::verification_failed);
    EXPECT_NE(e.diagnostic().message.find("l(0,1) measured 3 but the tree predicts 2"), std::string::npos)
        << e.diagnostic().message;
    EXPECT_NE(e.diagnostic().probe.find("A^{0,1}"), std::string::npos);
  }
}

TEST(Confirm, ValidatesOutputsAndLeafCounts) {
  const Tree golden = random_binary_tree(40, 3);
  TreeOracleTarget nan(golden, std::nullopt);
  nan.set_nan_probes(true);
  try {
    confirm(nan, golden);
    FAIL();
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::non_finite_output);
  }
  TreeOracleTarget wrong(golden, std::nullopt);
  const auto pairs = confirm_pairs(golden);
  wrong.set_wrong_count(pairs[5].first, pairs[5].second, 1);
  EXPECT_THROW(confirm(wrong, golden), RevealFailure);
  TreeOracleTarget other_n(random_binary_tree(41, 3), std::nullopt);
  EXPECT_THROW(confirm(other_n, golden), RevealFailure);
}

// Adds the largest magnitudes first: the masks cancel before any unit is added, whatever their
// positions, so every probe reads l = 2, as with an exact (order-independent) sum such as ExBLAS
// (Collange et al., Parallel Computing 2015). No tree gives those answers.
class LargestFirstTarget final : public testing::FloatKernelTarget {
 public:
  explicit LargestFirstTarget(std::size_t n) : FloatKernelTarget(n) {}

 private:
  double run(const float* a) const override {
    std::vector<float> v(a, a + info_.n);
    std::stable_sort(v.begin(), v.end(), [](float x, float y) { return std::fabs(x) > std::fabs(y); });
    float s = 0;
    for (float x : v) s += x;
    return s;
  }
};

TEST(Confirm, RejectsATargetThatFollowsNoTree) {
  // (0 1) and (2 3) are confirmed by their own probes whatever the target; the root's probe
  // (0, 2) is what such a target fails: it reads 2 where the tree has 4.
  LargestFirstTarget target(4);
  try {
    confirm(target, parse_sexpr("((0 1) (2 3))"));
    FAIL() << "a target following no tree was confirmed";
  } catch (const RevealFailure& e) {
    EXPECT_NE(e.diagnostic().message.find("l(0,2) measured 2 but the tree predicts 4"), std::string::npos)
        << e.diagnostic().message;
  }
}

TEST(Confirm, BeyondTheExactCountingRangeProvesBlockByBlock) {
  // float16 output counts exactly up to 2048 units: 3000 leaves are beyond, and each node's outside
  // fits in two blocks, so the block-wise proof confirms (about 2 probes a node, not a reveal).
  const Tree golden = balanced_tree(3000);
  testing::RoundedOracle same(golden, Format::float16, 64);
  EXPECT_FALSE(confirmable(same.info()));
  const RevealStats stats = confirm(same, golden);
  EXPECT_TRUE(stats.confirmed);
  EXPECT_LE(stats.confirm_probes, 2 * 2999u);
  testing::RoundedOracle changed(lanes_tree(3000, 8), Format::float16, 64);
  try {
    confirm(changed, golden);
    FAIL() << "a target following another tree was confirmed";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::verification_failed) << e.what();
    EXPECT_NE(e.diagnostic().message.find("active leaves"), std::string::npos) << e.what();
  }
}

TEST(Confirm, OrderMapsCheckEveryClassAtItsElements) {
  const std::vector<Tree> trees = {lanes_tree(64, 8), balanced_tree(64), left_deep_tree(64)};
  const auto tree_of = [](std::size_t r, std::size_t c) {
    return std::size_t{r >= 8 ? 1u : 0u} + (c >= 5 && r >= 8 ? 1u : 0u);
  };
  GridOracleTarget target({13, 9}, trees, tree_of);
  const OrderMap map = target.truth();
  const RevealStats stats = confirm(target, map);
  EXPECT_TRUE(stats.confirmed);
  EXPECT_EQ(stats.map_classes, 3u);
  // Each class's 63 pairs spread over its rows and columns; every element of a used line answers.
  EXPECT_GE(stats.element_checks, 9 * stats.probes);
  EXPECT_GE(stats.probes, 3 * 63u / 13);
  GridOracleTarget again({13, 9}, trees, tree_of);
  const RevealResult revealed = reveal(again);
  ASSERT_TRUE(same_orders(revealed.map, map));
  // A grid target computes its whole grid per call: confirm places its pairs for few calls.
  EXPECT_LT(stats.probes, revealed.stats.probes);
  EXPECT_LT(stats.target_calls, revealed.stats.target_calls)
      << "confirm " << stats.target_calls << " calls, reveal " << revealed.stats.target_calls;

  // A map whose classes overlap (or leave elements out) is refused, not half checked.
  OrderMap overlapping = map;
  overlapping.classes[1].regions = overlapping.classes[0].regions;
  EXPECT_THROW(confirm(target, overlapping), RevealFailure);

  // One class changed: a pairwise tree where the golden has lanes.
  GridOracleTarget changed({13, 9}, {balanced_tree(64), balanced_tree(64), left_deep_tree(64)}, tree_of);
  EXPECT_THROW(confirm(changed, map), RevealFailure);
  // One element changed (its row's share of the proof catches it): every element is checked.
  for (std::size_t r = 0; r < 13; ++r) {
    GridOracleTarget one({13, 9}, {trees[0], trees[1], trees[2], right_deep_tree(64)},
                         [&tree_of, r](std::size_t row, std::size_t c) {
                           return row == r && c == 4 ? std::size_t{3} : tree_of(row, c);
                         });
    EXPECT_THROW(confirm(one, map), RevealFailure) << "row " << r;
  }
}

// A grid's confirmation checks determinism on the simulation's random inputs and then compares
// every element with its class's tree on the outputs it already has: one run of those inputs, the
// proof, the same inputs once more after it (the determinism check's second run, no call for the
// simulation of its own).
TEST(Confirm, AGridConfirmationSimulatesTheInputsItsDeterminismCheckRan) {
  GridOracleTarget target({13, 9}, {lanes_tree(64, 8), balanced_tree(64)},
                          [](std::size_t r, std::size_t) { return std::size_t{r >= 8 ? 1u : 0u}; });
  const RevealStats stats = confirm(target, target.truth());
  EXPECT_EQ(target.value_calls, 1u + 1u);
  EXPECT_EQ(stats.simulated_inputs, RevealOptions{}.verify_inputs);
  EXPECT_EQ(stats.verification_calls, 1u);  // the inputs again after the proof
}

// With one run before the proof, the final comparison is the run-to-run check: a difference there
// is told apart by two more runs back to back. Answers that flip from call to call are
// run-to-run non-determinism; answers that changed once, after the first call, and stay, are an
// order that changed between calls.
TEST(Confirm, AGridConfirmationTellsNonDeterminismFromAChangedOrder) {
  const auto finding_of = [](std::function<bool(std::size_t)> changed) {
    TamperedGridTarget target(3, 4, std::move(changed));
    try {
      confirm(target, target.truth());
    } catch (const RevealFailure& e) {
      EXPECT_NE(std::string(e.what()).find("(3, 4)"), std::string::npos) << e.what();
      return e.diagnostic().finding;
    }
    ADD_FAILURE() << "confirmed a grid whose element (3, 4) changes its answer";
    return Finding::inconsistent_structure;
  };
  EXPECT_EQ(finding_of([](std::size_t call) { return call % 2 == 0; }), Finding::nondeterministic);
  EXPECT_EQ(finding_of([](std::size_t call) { return call >= 2; }), Finding::batch_inconsistent);
}

// The simulation on the recorded outputs is a real check: one element that adds one ulp to every
// value output (deterministic, answering every probe as its class does) fails the confirmation,
// and verify() of the same map, and is named.
TEST(Confirm, AGridElementWhoseSumsDifferFromItsTreeFailsTheConfirmationAndTheVerification) {
  for (const bool by_verify : {false, true}) {
    TamperedGridTarget target(4, 1, [](std::size_t) { return true; });
    try {
      if (by_verify)
        verify(target, target.truth());
      else
        confirm(target, target.truth());
      FAIL() << "element (4, 1) does not add as its tree says";
    } catch (const RevealFailure& e) {
      EXPECT_EQ(e.diagnostic().finding, Finding::verification_failed) << e.what();
      EXPECT_NE(std::string(e.what()).find("output element (4, 1)"), std::string::npos) << e.what();
    }
  }
}

// Changes a library makes in a part of its grid: its tail or head kernel of some rows, an edge
// tile, one element. The map says one tree everywhere; the target's elements in `changed` follow
// `other`. Every one must fail the confirmation.
struct GridChange {
  std::string what;
  std::size_t row, rows, column, columns;
};
bool confirmation_fails(const Tree& tree, const Tree& other, std::size_t R, std::size_t C, const GridChange& change,
                        const RevealOptions& options = {}, RevealStats* stats = nullptr) {
  GridOracleTarget golden({R, C}, {tree}, [](std::size_t, std::size_t) { return std::size_t{0}; });
  GridOracleTarget target({R, C}, {tree, other}, [&](std::size_t r, std::size_t c) {
    const bool inside = r >= change.row && r < change.row + change.rows && c >= change.column &&
                        c < change.column + change.columns;
    return std::size_t{inside ? 1u : 0u};
  });
  try {
    const RevealStats passed = confirm(target, golden.truth(), options);
    if (stats != nullptr) *stats = passed;
  } catch (const RevealFailure& e) {
    return e.diagnostic().finding == Finding::verification_failed;
  }
  return false;
}

std::vector<std::pair<std::string, Tree>> kernel_shapes(std::size_t n) {
  return {{"sequential", left_deep_tree(n)}, {"8 lanes", lanes_tree(n, 8)}, {"pairwise", balanced_tree(n)},
          {"random", random_binary_tree(n, std::uint64_t{5})}};
}

// A band of rows or columns whose order changed anywhere in the tree (its first or last summands,
// or two in the middle) answers the class's whole proof: the proof goes on the rows and on the
// columns where it fits. With the proof on one axis a band of rows answered one pair a row, and a
// band of four rows whose last two summands traded places passed (every position tried).
TEST(Confirm, ABandOfRowsOrColumnsWhoseOrderChangedAnywhereFailsTheConfirmation) {
  const std::size_t n = 64, R = 64, C = 64;
  for (const auto& [name, tree] : kernel_shapes(n))
    for (const auto& [x, y] : std::vector<std::pair<std::size_t, std::size_t>>{
             {n - 1, n - 2}, {n - 1, n - 3}, {0, 1}, {0, 2}, {n / 2, n / 2 - 1}, {n / 2, n / 2 + 3}, {20, 41}}) {
      const Tree other = with_leaves_swapped(tree, x, y);
      if (other == tree) continue;  // siblings of one node: the same tree
      for (std::size_t at = 0; at < 60; at += 7)
        for (const GridChange& change : {GridChange{"a row", at, 1, 0, C}, GridChange{"4 rows", at, 4, 0, C},
                                         GridChange{"a column", 0, R, at, 1}, GridChange{"4 columns", 0, R, at, 4}})
          EXPECT_TRUE(confirmation_fails(tree, other, R, C, change))
              << name << " with leaves " << x << " and " << y << " swapped in " << change.what << " at " << at;
    }
}

// One element, or a corner block, whose first or last summands join its tree elsewhere: every
// element answers its class's edge pairs (where leaves n - 1, 0, n - 2 and 1 join the tree). Before,
// the checks' pairs were the same neighbours for every tree, and a single element of a sequential
// sum whose last two summands traded places passed at every position tried; so did most elements
// of a lanes kernel whose first two lanes traded their first summands.
TEST(Confirm, AnElementOrABlockWhoseFirstOrLastSummandsMovedFailsTheConfirmation) {
  const std::size_t n = 64;
  for (const auto& [R, C] : std::vector<std::pair<std::size_t, std::size_t>>{{64, 64}, {64, 1}, {7, 33}})
    for (const auto& [name, tree] : kernel_shapes(n))
      for (const auto& [x, y] : std::vector<std::pair<std::size_t, std::size_t>>{
               {n - 1, n - 2}, {n - 1, n - 3}, {n - 2, n - 3}, {0, 1}, {0, 2}, {1, 2}}) {
        const Tree other = with_leaves_swapped(tree, x, y);
        if (other == tree) continue;
        for (std::size_t k = 0; k < 12; ++k) {
          const std::size_t r = (k * 5) % R, c = (k * 11) % C;
          EXPECT_TRUE(confirmation_fails(tree, other, R, C, {"an element", r, 1, c, 1}))
              << name << " " << R << " x " << C << " with leaves " << x << " and " << y << " swapped at (" << r
              << ", " << c << ")";
          if (R >= 8 && C >= 8) {
            EXPECT_TRUE(confirmation_fails(tree, other, R, C, {"a 4 x 4 block", r % (R - 4), 4, c % (C - 4), 4}))
                << name << " with leaves " << x << " and " << y << " swapped in a block at (" << r << ", " << c << ")";
          }
        }
      }
}

// One element whose summands traded places in the middle of its tree: the confirmation's sampled
// checks find it by chance only (docs/limits.md: a drifting BLAS's 30 and 31 passed `check`). With
// RevealOptions::element_proof_summands (check --prove-every-element) every element answers its
// class's whole proof after the checks, and each such element fails the confirmation, wherever it
// lies; an unchanged grid is confirmed with every element proven.
TEST(Confirm, WithEveryElementProvenAChangeInTheMiddleOfOneElementsTreeFailsTheConfirmation) {
  const std::size_t n = 48, R = 12, C = 10;
  RevealOptions prove;
  prove.element_proof_summands = std::uint64_t{1} << 30;
  std::size_t missed_without = 0, tried = 0;
  for (const auto& [name, tree] : kernel_shapes(n))
    for (const auto& [x, y] : std::vector<std::pair<std::size_t, std::size_t>>{{30, 31}, {20, 21}, {10, 40}}) {
      const Tree other = with_leaves_swapped(tree, x, y);
      if (other == tree) continue;
      for (std::size_t row = 1; row < R; row += 4)
        for (std::size_t column = 2; column < C; column += 3) {
          const GridChange change{"an element", row, 1, column, 1};
          EXPECT_TRUE(confirmation_fails(tree, other, R, C, change, prove))
              << name << " with leaves " << x << " and " << y << " swapped at (" << row << ", " << column << ")";
          ++tried;
          if (!confirmation_fails(tree, other, R, C, change)) ++missed_without;
        }
    }
  // Why the option exists: the sampled checks alone pass many of these (35 of 90 when written).
  EXPECT_GT(missed_without, 0u) << "of " << tried;
  RevealStats stats;
  EXPECT_FALSE(confirmation_fails(lanes_tree(n, 8), lanes_tree(n, 8), R, C, {"nothing", 0, 0, 0, 0}, prove, &stats));
  EXPECT_TRUE(stats.every_element_proven);
  EXPECT_EQ(stats.element_proof_calls, n - 1);  // one class: its proof pairs, one a call on the rows
}

// What the confirmation costs for it (a 64 x 64 grid of one class, columns placed): the random
// inputs, the proof on the rows and on the columns, two rounds of edge pairs on rows and columns,
// the random inputs again.
TEST(Confirm, AGridConfirmationProvesOnBothAxesAndChecksTheEdgesInEightCalls) {
  GridOracleTarget target({64, 64}, {lanes_tree(64, 8)}, [](std::size_t, std::size_t) { return std::size_t{0}; });
  const RevealStats stats = confirm(target, target.truth());
  EXPECT_EQ(target.value_calls, 2u);
  EXPECT_EQ(target.probe_calls, 2u + 4u);
  EXPECT_EQ(stats.verification_calls, 1u);
}

}  // namespace
}  // namespace fprev
