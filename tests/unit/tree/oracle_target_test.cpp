// TreeOracleTarget (tests/support): probe outputs against the definition of the masked all-one
// construction, batching, counters, misuse, misbehaviour, and value batches.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "fprev/tree.hpp"
#include "oracle_target.hpp"
#include "random_trees.hpp"
#include "tree_test_helpers.hpp"

namespace fprev {
namespace {

using tree_tests::expect_throw_with;

ProbeValues probe_values(double unit) {
  ProbeValues values;
  values.unit = {unit, 1.0};
  values.plus = {std::ldexp(1.0, 60), 1.0};
  values.minus = {-std::ldexp(1.0, 60), 1.0};
  return values;
}

Background all_active() {
  Background b;
  b.id = Background::next_id();
  b.all_active = true;
  return b;
}

Background sparse(std::vector<std::uint32_t> active, bool with_id = true) {
  Background b;
  b.id = with_id ? Background::next_id() : 0;
  b.all_active = false;
  b.active = std::move(active);
  return b;
}

// Evaluates probes one call per max_batch chunk; returns the outputs.
std::vector<double> run(TreeOracleTarget& target, const ProbeValues& values,
                        const std::vector<const Background*>& backgrounds,
                        const std::vector<Probe>& probes) {
  std::vector<double> outputs(probes.size());
  const std::size_t chunk = target.info().max_batch;
  for (std::size_t start = 0; start < probes.size(); start += chunk) {
    const std::size_t count = std::min(chunk, probes.size() - start);
    ProbeBatch batch;
    batch.values = &values;
    batch.backgrounds = backgrounds;
    batch.probes = std::span<const Probe>(probes).subspan(start, count);
    target.evaluate(batch, std::span<double>(outputs).subspan(start, count));
  }
  return outputs;
}

// The definition: active leaves, other than plus and minus, outside the subtree of the lowest
// common ancestor (found by marking plus's ancestors, the subtree by walking down from it).
std::uint64_t brute_count(const Tree& tree, const Probe& probe, const Background& background) {
  std::vector<bool> above_plus(tree.node_count(), false);
  for (NodeId v = probe.plus; v != kNoNode; v = tree.parent(v)) above_plus[v] = true;
  NodeId lca = probe.minus;
  while (!above_plus[lca]) lca = tree.parent(lca);
  std::vector<bool> under(tree.leaf_count(), false);
  std::vector<NodeId> stack{lca};
  while (!stack.empty()) {
    const NodeId v = stack.back();
    stack.pop_back();
    if (tree.is_leaf(v)) under[v] = true;
    for (NodeId child : tree.children(v)) stack.push_back(child);
  }
  std::uint64_t count = 0;
  for (NodeId k = 0; k < tree.leaf_count(); ++k) {
    const bool active = background.all_active ||
                        std::find(background.active.begin(), background.active.end(), k) !=
                            background.active.end();
    if (active && k != probe.plus && k != probe.minus && !under[k]) ++count;
  }
  return count;
}

// Xie et al., USENIX ATC 2025 Algorithm 1 with n = 8.
Tree paper_algorithm_1_tree() {
  TreeBuilder builder(8);
  NodeId sum = builder.add_node({0, 1});
  for (NodeId i = 2; i < 8; i += 2) sum = builder.add_node({sum, builder.add_node({i, i + 1})});
  return builder.build();
}

TEST(TreeOracleTarget, ReproducesPaperTable1Outputs) {
  TreeOracleTarget target(paper_algorithm_1_tree());
  const ProbeValues values = probe_values(1.0);
  const Background background = all_active();
  const std::vector<Probe> probes{{0, 1, 0}, {0, 2, 0}, {0, 3, 0}, {0, 4, 0}, {0, 5, 0},
                                  {0, 6, 0}, {0, 7, 0}, {2, 3, 0}, {2, 4, 0}};
  // Xie et al., USENIX ATC 2025 Table 1, "Output" column.
  const std::vector<double> expected{6, 4, 4, 2, 2, 0, 0, 6, 2};
  EXPECT_EQ(run(target, values, {&background}, probes), expected);
  EXPECT_EQ(target.probes_evaluated, 9u);
  EXPECT_EQ(target.probe_calls, 9u);  // max_batch 1 by default
}

TEST(TreeOracleTarget, RandomTreesMatchTheDefinition) {
  std::mt19937_64 rng(21);
  for (int round = 0; round < 24; ++round) {
    const std::size_t n = 2 + rng() % 250;
    Tree tree = round % 2 == 0 ? random_binary_tree(n, rng) : random_multiway_tree(n, 6, rng);
    const Tree copy = tree;
    const std::size_t max_batch = 1 + rng() % 16;
    TreeOracleTarget target(std::move(tree), std::nullopt, max_batch);

    // Backgrounds: everything, random subsets (some with id 0), and the empty set.
    std::vector<Background> owned;
    owned.push_back(all_active());
    for (int b = 0; b < 4; ++b) {
      std::vector<std::uint32_t> active;
      const double density = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
      std::bernoulli_distribution pick(density);
      for (std::uint32_t k = 0; k < n; ++k) {
        if (pick(rng)) active.push_back(k);
      }
      owned.push_back(sparse(std::move(active), b != 3));
    }
    owned.push_back(sparse({}));
    std::vector<const Background*> backgrounds;
    for (const Background& b : owned) backgrounds.push_back(&b);

    std::vector<Probe> probes;
    std::uniform_int_distribution<std::uint32_t> leaf(0, static_cast<std::uint32_t>(n - 1));
    while (probes.size() < 60) {
      const std::uint32_t i = leaf(rng), j = leaf(rng);
      if (i == j) continue;
      probes.push_back({i, j, static_cast<std::uint32_t>(rng() % backgrounds.size())});
    }
    const double unit = std::ldexp(1.0, -10);
    const std::vector<double> outputs = run(target, probe_values(unit), backgrounds, probes);
    for (std::size_t p = 0; p < probes.size(); ++p) {
      const double expected =
          static_cast<double>(brute_count(copy, probes[p], *backgrounds[probes[p].background])) *
          unit;
      ASSERT_EQ(outputs[p], expected) << "n=" << n << " probe " << probes[p].plus << ","
                                      << probes[p].minus << " background "
                                      << probes[p].background;
    }
    EXPECT_EQ(target.probes_evaluated, probes.size());
    EXPECT_EQ(target.probe_calls, (probes.size() + max_batch - 1) / max_batch);
    EXPECT_EQ(target.calls(), target.probe_calls);
  }
}

TEST(TreeOracleTarget, MillionLeafSequentialSumWithSparseBackground) {
  // Sequential sum: the LCA of i < j covers leaves 0..j, so the survivors are the active leaves
  // above max(i, j).
  const std::uint32_t n = 1000000;
  TreeOracleTarget target(left_deep_tree(n), std::nullopt, 64);
  std::vector<std::uint32_t> every_third;
  for (std::uint32_t k = 0; k < n; k += 3) every_third.push_back(k);
  const Background thirds = sparse(every_third);
  const Background all = all_active();
  std::mt19937_64 rng(22);
  std::uniform_int_distribution<std::uint32_t> leaf(0, n - 1);
  std::vector<Probe> probes;
  while (probes.size() < 20000) {
    const std::uint32_t i = leaf(rng), j = leaf(rng);
    if (i != j) probes.push_back({i, j, static_cast<std::uint32_t>(probes.size() % 2)});
  }
  const std::vector<double> outputs = run(target, probe_values(1.0), {&all, &thirds}, probes);
  for (std::size_t p = 0; p < probes.size(); ++p) {
    const std::uint32_t top = std::max(probes[p].plus, probes[p].minus);
    // Multiples of 3 in (top, n).
    const std::uint64_t expected = probes[p].background == 0
                                       ? n - 1 - top
                                       : (n - 1) / 3 - top / 3;
    ASSERT_EQ(outputs[p], static_cast<double>(expected)) << probes[p].plus << "," << probes[p].minus;
  }
}

TEST(TreeOracleTarget, DefaultTraitsAndInfo) {
  TreeBuilder builder(6);
  builder.add_node({builder.add_node({0, 1, 2, 3}), 4, 5});
  const TreeOracleTarget wide(builder.build());
  EXPECT_EQ(wide.info().n, 6u);
  EXPECT_EQ(wide.info().max_batch, 1u);
  EXPECT_EQ(wide.info().traits.max_fused_width, 4u);
  EXPECT_EQ(wide.info().traits.input, Format::float64);
  EXPECT_EQ(wide.info().traits.accumulator, Format::float64);
  EXPECT_EQ(wide.info().traits.output, Format::float64);
  EXPECT_EQ(wide.info().traits.summand, SummandKind::plain);
  EXPECT_FALSE(wide.info().description.empty());

  const TreeOracleTarget single(TreeBuilder(1).build());
  EXPECT_EQ(single.info().traits.max_fused_width, 2u);

  NumericTraits traits;
  traits.accumulator = Format::float16;
  const TreeOracleTarget custom(left_deep_tree(4), traits, 3);
  EXPECT_EQ(custom.info().traits.accumulator, Format::float16);
  EXPECT_EQ(custom.info().max_batch, 3u);

  EXPECT_THROW(TreeOracleTarget(Tree{}), std::invalid_argument);
}

TEST(TreeOracleTarget, RejectsInvalidProbes) {
  TreeOracleTarget target(left_deep_tree(5), std::nullopt, 2);
  const ProbeValues values = probe_values(1.0);
  const Background all = all_active();
  auto evaluate = [&](std::vector<Probe> probes, std::size_t outputs,
                      std::vector<const Background*> backgrounds) {
    std::vector<double> out(outputs);
    ProbeBatch batch;
    batch.values = &values;
    batch.backgrounds = backgrounds;
    batch.probes = probes;
    target.evaluate(batch, out);
  };
  expect_throw_with<std::logic_error>([&] { evaluate({{1, 1, 0}}, 1, {&all}); }, "same leaf");
  expect_throw_with<std::logic_error>([&] { evaluate({{5, 1, 0}}, 1, {&all}); }, "out of range");
  expect_throw_with<std::logic_error>([&] { evaluate({{1, 7, 0}}, 1, {&all}); }, "out of range");
  expect_throw_with<std::logic_error>([&] { evaluate({{0, 1, 1}}, 1, {&all}); }, "background index 1");
  expect_throw_with<std::logic_error>([&] { evaluate({{0, 1, 0}}, 2, {&all}); }, "1 probes but 2 outputs");
  expect_throw_with<std::logic_error>(
      [&] { evaluate({{0, 1, 0}, {0, 2, 0}, {0, 3, 0}}, 3, {&all}); }, "max_batch is 2");
  const Background unsorted = sparse({3, 1});
  expect_throw_with<std::logic_error>([&] { evaluate({{0, 1, 0}}, 1, {&unsorted}); }, "sorted");
  const Background outside = sparse({1, 5});
  expect_throw_with<std::logic_error>([&] { evaluate({{0, 1, 0}}, 1, {&outside}); }, "lists leaf 5");
  ProbeBatch no_values;
  std::vector<double> out(0);
  expect_throw_with<std::logic_error>([&] { target.evaluate(no_values, out); }, "without values");
  EXPECT_EQ(target.probes_evaluated, 0u);
}

TEST(TreeOracleTarget, WrongCountForOnePair) {
  TreeOracleTarget target(paper_algorithm_1_tree());
  target.set_wrong_count(2, 4, -3);
  const ProbeValues values = probe_values(1.0);
  const Background all = all_active();
  const std::vector<double> outputs =
      run(target, values, {&all}, {{2, 4, 0}, {4, 2, 0}, {2, 3, 0}, {0, 4, 0}});
  // Table 1: l(2,4) = 6 gives 2 survivors; the pair's answer is off by -3 in both orders.
  EXPECT_EQ(outputs, (std::vector<double>{-1, -1, 6, 2}));
  target.clear_wrong_count();
  EXPECT_EQ(run(target, values, {&all}, {{2, 4, 0}}), (std::vector<double>{2}));
}

TEST(TreeOracleTarget, NanProbes) {
  TreeOracleTarget target(paper_algorithm_1_tree());
  target.set_nan_probes(true);
  const ProbeValues values = probe_values(1.0);
  const Background all = all_active();
  const std::vector<double> outputs = run(target, values, {&all}, {{0, 1, 0}, {2, 4, 0}});
  EXPECT_TRUE(std::isnan(outputs[0]));
  EXPECT_TRUE(std::isnan(outputs[1]));
  target.set_nan_probes(false);
  EXPECT_EQ(run(target, values, {&all}, {{0, 1, 0}}), (std::vector<double>{6}));
}

TEST(TreeOracleTarget, CachedBackgroundsStayCorrectAcrossManyCalls) {
  // Many distinct backgrounds over a long run (the cache is bounded and dropped now and then).
  std::mt19937_64 rng(23);
  const Tree tree = random_binary_tree(64, rng);
  TreeOracleTarget target(Tree(tree), std::nullopt, 4);
  const ProbeValues values = probe_values(1.0);
  for (int call = 0; call < 600; ++call) {
    std::vector<std::uint32_t> active;
    for (std::uint32_t k = 0; k < 64; ++k) {
      if (rng() % 2 == 0) active.push_back(k);
    }
    const Background background = sparse(active);
    const std::vector<Probe> probes{{static_cast<std::uint32_t>(call % 63), 63, 0}};
    const std::vector<double> outputs = run(target, values, {&background}, probes);
    ASSERT_EQ(outputs[0], static_cast<double>(brute_count(tree, probes[0], background)));
  }
}

TEST(TreeOracleTarget, ValueBatchesFollowTheTreeOrder) {
  // float32 accumulation of 1 and four 2^-24: added to 1 one at a time each is a tie that rounds
  // back to 1; added among themselves first they make 2^-22, which 1 can hold.
  NumericTraits traits;
  traits.input = traits.accumulator = traits.output = Format::float32;
  TreeOracleTarget sequential(left_deep_tree(5), traits, 2);
  TreeOracleTarget reverse(right_deep_tree(5), traits, 2);
  const double tiny = std::ldexp(1.0, -24);
  const std::vector<double> a{1, tiny, tiny, tiny, tiny,  // row 0
                              tiny, tiny, tiny, tiny, 1};  // row 1: the 1 comes last
  ValueBatch batch;
  batch.rows = 2;
  batch.a = a;
  std::vector<double> out(2);
  sequential.evaluate(batch, out);
  EXPECT_EQ(out[0], 1.0);
  EXPECT_EQ(out[1], 1.0 + std::ldexp(1.0, -22));
  reverse.evaluate(batch, out);
  EXPECT_EQ(out[0], 1.0 + std::ldexp(1.0, -22));
  EXPECT_EQ(out[1], 1.0);
  EXPECT_EQ(sequential.value_calls, 1u);
  EXPECT_EQ(sequential.value_rows_evaluated, 2u);

  // Products: a[k] * b[k] with b shared; 2^-12 * 2^-12 = 2^-24.
  const std::vector<double> factors{1, std::ldexp(1.0, -12), std::ldexp(1.0, -12),
                                    std::ldexp(1.0, -12), std::ldexp(1.0, -12)};
  ValueBatch products;
  products.rows = 1;
  products.a = factors;
  products.b = factors;
  std::vector<double> one(1);
  reverse.evaluate(products, one);
  EXPECT_EQ(one[0], 1.0 + std::ldexp(1.0, -22));

  ValueBatch too_many;
  too_many.rows = 3;
  std::vector<double> three(3);
  const std::vector<double> values(15, 1.0);
  too_many.a = values;
  expect_throw_with<std::logic_error>([&] { sequential.evaluate(too_many, three); }, "max_batch is 2");
}

}  // namespace
}  // namespace fprev
