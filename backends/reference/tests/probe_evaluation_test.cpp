// Probes evaluated through ProbeBatch (the engine's path): the masked all-one input A^{i,j} gives
// the number of active units outside the subtree of lca(i, j) (Xie et al., USENIX ATC 2025: n - l(i,j) when every
// leaf is active), for dense and sparse backgrounds and for plain and product summands.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "expected_trees.hpp"
#include "reference_test_support.hpp"

namespace fprev::reference {
namespace {

bool under(const Tree& tree, NodeId leaf, NodeId node) {
  for (NodeId v = leaf; v != kNoNode; v = tree.parent(v))
    if (v == node) return true;
  return false;
}

// Expected output in units: active leaves other than i and j that are not under lca(i, j).
double expected_count(const Tree& tree, NodeId i, NodeId j, const Background& background) {
  const NodeId lca = tree.lca(i, j);
  double count = 0;
  for (NodeId k = 0; k < tree.leaf_count(); ++k) {
    const bool active = background.all_active ||
                        std::binary_search(background.active.begin(), background.active.end(), k);
    if (k != i && k != j && active && !under(tree, k, lca)) ++count;
  }
  return count;
}

ProbeValues probe_values(const ReferenceSpec& spec) {
  // Masks large enough to absorb every count, small enough for every format used here.
  ProbeValues v;
  const bool half = output_format(spec) == Format::float16;
  const double unit_a = half ? std::ldexp(1.0, -6) : 1.0;
  const int mask_exponent = half ? 15 : (spec.dtype == Format::float64 ? 80 : 50);
  const double mask = std::ldexp(1.0, mask_exponent);
  if (spec.op == "dot") {  // the mask split over both factors
    const double left = std::ldexp(1.0, mask_exponent - mask_exponent / 2);
    const double right = std::ldexp(1.0, mask_exponent / 2);
    v.unit = {unit_a, 1.0};
    v.plus = {left, right};
    v.minus = {-left, right};
  } else {
    v.unit = {unit_a, 1.0};
    v.plus = {mask, 1.0};
    v.minus = {-mask, 1.0};
  }
  return v;
}

TEST(ProbeEvaluation, MaskedAllOneInputsCountUnitsOutsideTheLca) {
  std::mt19937_64 rng(21);
  struct Config {
    Order order;
    std::size_t lanes, block, width;
  };
  const std::vector<Config> configs = {
      {Order::sequential, 8, 64, 5},      {Order::reverse, 8, 64, 5},
      {Order::pairwise, 8, 64, 5},        {Order::strided_pairwise, 4, 64, 5},
      {Order::strided_sequential, 4, 64, 5}, {Order::blocked, 8, 6, 5},
      {Order::fused, 8, 64, 5},           {Order::random_tree, 8, 64, 5},
  };
  for (const Config& config : configs) {
    for (const std::string op : {"sum", "dot"}) {
      for (auto [dtype, output] : {std::pair{Format::float32, Format::float32},
                                   std::pair{Format::float64, Format::float64},
                                   std::pair{Format::float32, Format::float16}}) {
        ReferenceSpec spec;
        spec.op = op;
        spec.order = config.order;
        spec.dtype = dtype;
        spec.output = output;
        spec.n = 37;
        spec.lanes = config.lanes;
        spec.block = config.block;
        spec.width = config.width;
        SCOPED_TRACE(describe(spec));
        const Tree tree = expected_reference_tree(spec);
        auto target = make_reference_target(spec);
        const ProbeValues values = probe_values(spec);

        Background dense;
        dense.id = Background::next_id();
        Background sparse;
        sparse.id = Background::next_id();
        sparse.all_active = false;
        for (std::uint32_t k = 0; k < spec.n; ++k)
          if (rng() % 3 != 0) sparse.active.push_back(k);
        const Background* backgrounds[] = {&dense, &sparse};

        // Many probes in a row through the same target: the O(1) mask moves must restore the
        // background correctly, including when consecutive probes share a leaf.
        for (int p = 0; p < 200; ++p) {
          Probe probe;
          probe.plus = static_cast<std::uint32_t>(rng() % spec.n);
          do probe.minus = static_cast<std::uint32_t>(rng() % spec.n);
          while (probe.minus == probe.plus);
          probe.background = static_cast<std::uint32_t>(rng() % 2);
          ProbeBatch batch;
          batch.values = &values;
          batch.backgrounds = backgrounds;
          batch.probes = std::span<const Probe>(&probe, 1);
          double out = 0.0;
          target->evaluate(batch, std::span<double>(&out, 1));
          const double want = expected_count(tree, probe.plus, probe.minus,
                                             *backgrounds[probe.background]) *
                              values.unit.value();
          ASSERT_EQ(out, want) << "probe +" << probe.plus << " -" << probe.minus << " background "
                               << probe.background;
        }
      }
    }
  }
}

TEST(ProbeEvaluation, ValueBatchAfterProbesSeesOnlyTheValues) {
  ReferenceSpec spec;
  spec.n = 5;
  auto target = make_reference_target(spec);
  ProbeValues values;
  values.unit = {1.0, 1.0};
  values.plus = {std::ldexp(1.0, 50), 1.0};
  values.minus = {-std::ldexp(1.0, 50), 1.0};
  Background dense;
  dense.id = Background::next_id();
  const Background* backgrounds[] = {&dense};
  Probe probe{0, 4, 0};
  ProbeBatch batch{&values, backgrounds, std::span<const Probe>(&probe, 1)};
  double out = -1.0;
  target->evaluate(batch, std::span<double>(&out, 1));
  EXPECT_EQ(out, 0.0);  // sequential: lca(0, 4) is the root
  EXPECT_EQ(testing::run_values(*target, {1, 2, 3, 4, 5}), 15.0);
  target->evaluate(batch, std::span<double>(&out, 1));  // the background is rebuilt
  EXPECT_EQ(out, 0.0);
  probe = {0, 1, 0};
  target->evaluate(batch, std::span<double>(&out, 1));
  EXPECT_EQ(out, 3.0);  // lca(0, 1) = (0 1): leaves 2, 3, 4 stay outside
}

TEST(ProbeEvaluation, RejectsMismatchedOutputSpans) {
  ReferenceSpec spec;
  spec.n = 4;
  auto target = make_reference_target(spec);
  std::vector<double> a(8, 1.0);
  ValueBatch batch;
  batch.rows = 2;
  batch.a = a;
  double out[1];
  EXPECT_THROW(target->evaluate(batch, std::span<double>(out, 1)), TargetError);
}

}  // namespace
}  // namespace fprev::reference
