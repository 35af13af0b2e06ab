// Every deterministic order computes exactly what its summation tree says: on random inputs with
// mixed magnitudes and signs the kernel's output equals, bitwise, fprev::simulate_sum of the tree
// built independently from the order's definition (expected_trees.hpp).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "expected_trees.hpp"
#include "fprev/reveal.hpp"
#include "reference_test_support.hpp"

namespace fprev::reference {
namespace {

using testing::random_values;
using testing::rounded_products;
using testing::run_values;
using testing::same_bits;

struct OrderConfig {
  Order order;
  std::size_t lanes = 8, block = 64, width = 5;
  std::uint64_t seed = 1;
};

struct FormatConfig {
  Format dtype;
  Format output;
};

struct KernelCase {
  OrderConfig order;
  FormatConfig formats;
};

std::vector<KernelCase> kernel_cases() {
  const std::vector<OrderConfig> orders = {
      {Order::sequential},
      {Order::reverse},
      {Order::pairwise},
      {Order::strided_pairwise, 1},
      {Order::strided_pairwise, 3},
      {Order::strided_pairwise, 8},
      {Order::strided_pairwise, 16},
      {Order::strided_sequential, 1},
      {Order::strided_sequential, 4},
      {Order::strided_sequential, 8},
      {Order::blocked, 8, 1},
      {Order::blocked, 8, 4},
      {Order::blocked, 8, 16},
      {Order::blocked, 8, 64},
      {Order::fused, 8, 64, 2},
      {Order::fused, 8, 64, 3},
      {Order::fused, 8, 64, 5},
      {Order::fused, 8, 64, 9},
      {Order::fused, 8, 64, 17},
      {Order::random_tree, 8, 64, 5, 1},
      {Order::random_tree, 8, 64, 5, 7},
      {Order::random_tree, 8, 64, 5, 12345},
  };
  const std::vector<FormatConfig> formats = {
      {Format::float32, Format::float32},  {Format::float32, Format::float64},
      {Format::float32, Format::float16},  {Format::float32, Format::bfloat16},
      {Format::float64, Format::float64},  {Format::float64, Format::float32},
      {Format::float64, Format::float16},  {Format::float64, Format::bfloat16},
  };
  std::vector<KernelCase> out;
  for (const auto& order : orders)
    for (const auto& format : formats) out.push_back({order, format});
  return out;
}

ReferenceSpec make_spec(const KernelCase& c, const std::string& op, std::size_t n) {
  ReferenceSpec spec;
  spec.op = op;
  spec.order = c.order.order;
  spec.dtype = c.formats.dtype;
  spec.output = c.formats.output;
  spec.n = n;
  spec.lanes = c.order.lanes;
  spec.block = c.order.block;
  spec.width = c.order.width;
  spec.seed = c.order.seed;
  return spec;
}

std::string case_name(const ::testing::TestParamInfo<KernelCase>& info) {
  const KernelCase& c = info.param;
  std::string name = std::string(to_string(c.order.order));
  switch (c.order.order) {
    case Order::strided_pairwise:
    case Order::strided_sequential:
      name += "_lanes" + std::to_string(c.order.lanes);
      break;
    case Order::blocked:
      name += "_block" + std::to_string(c.order.block);
      break;
    case Order::fused:
      name += "_width" + std::to_string(c.order.width);
      break;
    case Order::random_tree:
      name += "_seed" + std::to_string(c.order.seed);
      break;
    default:
      break;
  }
  return name + "_" + std::string(fprev::to_string(c.formats.dtype)) + "_to_" +
         std::string(fprev::to_string(c.formats.output));
}

class OrderKernel : public ::testing::TestWithParam<KernelCase> {};

TEST_P(OrderKernel, MatchesSimulationOfExpectedTree) {
  const KernelCase& c = GetParam();
  const bool narrow = c.formats.output == Format::float16;
  std::mt19937_64 rng(0xfeed + static_cast<unsigned>(c.order.order));
  for (const std::string op : {"sum", "dot"}) {
    std::size_t discriminating = 0, comparable = 0;
    for (std::size_t n : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 257, 1000}) {
      const ReferenceSpec spec = make_spec(c, op, n);
      SCOPED_TRACE(describe(spec));
      const Tree expected = expected_reference_tree(spec);
      ASSERT_EQ(expected.leaf_count(), n);
      TreeBuilder chain_builder(n);
      NodeId acc = 0;
      for (NodeId k = 1; k < n; ++k) acc = chain_builder.add_node({acc, k});
      const Tree sequential = chain_builder.build();
      const bool differs_from_sequential = !(expected == sequential);

      auto target = make_reference_target(spec);
      const NumericTraits traits = target->info().traits;
      ASSERT_EQ(traits.accumulator, accumulator_format(spec));
      bool saw_difference = false;
      for (int input = 0; input < 3; ++input) {
        std::vector<double> a, b, summands;
        if (op == "sum") {
          a = narrow ? random_values(n, spec.dtype, -6, 3, rng)
                     : random_values(n, spec.dtype, -20, 20, rng);
          summands = a;
        } else {
          a = narrow ? random_values(n, spec.dtype, -3, 2, rng)
                     : random_values(n, spec.dtype, -10, 10, rng);
          b = narrow ? random_values(n, spec.dtype, -3, 1, rng)
                     : random_values(n, spec.dtype, -10, 10, rng);
          summands = rounded_products(a, b, spec.dtype);
        }
        const double got = run_values(*target, a, b);
        const double want = testing::simulate_expected(expected, summands, traits);
        ASSERT_TRUE(same_bits(got, want)) << "input " << input << ": kernel " << got
                                          << ", simulated tree " << want;
        ASSERT_TRUE(std::isfinite(got));
        const double plain = simulate_sum(sequential, summands, traits.accumulator, traits.output,
                                          traits.fused_extra_bits);
        saw_difference = saw_difference || !same_bits(got, plain);
      }
      if (differs_from_sequential && n >= 8) {
        ++comparable;
        if (saw_difference) ++discriminating;
      }
    }
    // The inputs must be able to tell orders apart, or the comparison above proves nothing.
    if (comparable > 0) {
      EXPECT_GE(discriminating * 2, comparable) << op;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDeterministicOrders, OrderKernel, ::testing::ValuesIn(kernel_cases()),
                         case_name);

TEST(ExpectedTrees, SmallTreesFollowTheDefinitions) {
  // Hand-written trees for small n: an independent check of the builders themselves.
  const auto tree = [](Order order, std::size_t n, std::size_t lanes = 8, std::size_t block = 64,
                       std::size_t width = 5) {
    ReferenceSpec spec;
    spec.order = order;
    spec.n = n;
    spec.lanes = lanes;
    spec.block = block;
    spec.width = width;
    return expected_reference_tree(spec);
  };
  const auto parse = [](const std::vector<std::vector<NodeId>>& nodes, std::size_t n) {
    TreeBuilder builder(n);
    for (const auto& children : nodes) builder.add_node(children);
    return builder.build();
  };
  // sequential ((0 1) 2) 3
  EXPECT_EQ(tree(Order::sequential, 4), parse({{0, 1}, {4, 2}, {5, 3}}, 4));
  // reverse ((3 2) 1) 0
  EXPECT_EQ(tree(Order::reverse, 4), parse({{3, 2}, {4, 1}, {5, 0}}, 4));
  // pairwise n=5: (0 1) + (2 (3 4))
  EXPECT_EQ(tree(Order::pairwise, 5), parse({{0, 1}, {3, 4}, {2, 6}, {5, 7}}, 5));
  // pairwise n=3: 0 + (1 2)
  EXPECT_EQ(tree(Order::pairwise, 3), parse({{1, 2}, {0, 3}}, 3));
  // strided_pairwise lanes=3, n=7: lanes (0 3 6) (1 4) (2 5); combined lane0 + (lane1 + lane2)
  EXPECT_EQ(tree(Order::strided_pairwise, 7, 3),
            parse({{0, 3}, {7, 6}, {1, 4}, {2, 5}, {9, 10}, {8, 11}}, 7));
  // strided_sequential lanes=3, n=7: (lane0 + lane1) + lane2
  EXPECT_EQ(tree(Order::strided_sequential, 7, 3),
            parse({{0, 3}, {7, 6}, {1, 4}, {2, 5}, {8, 9}, {11, 10}}, 7));
  // strided with more lanes than summands: the empty lanes are not in the tree
  EXPECT_EQ(tree(Order::strided_pairwise, 3, 8), tree(Order::pairwise, 3));
  // blocked block=2, n=5: ((0 1) (2 3)) 4
  EXPECT_EQ(tree(Order::blocked, 5, 8, 2), parse({{0, 1}, {2, 3}, {5, 6}, {7, 4}}, 5));
  // fused width=3, n=6: ((0 1 2) 3 4) 5
  EXPECT_EQ(tree(Order::fused, 6, 8, 64, 3), parse({{0, 1, 2}, {6, 3, 4}, {7, 5}}, 6));
  // fused with n < width: one node
  EXPECT_EQ(tree(Order::fused, 3, 8, 64, 5), parse({{0, 1, 2}}, 3));
  EXPECT_EQ(tree(Order::fused, 1).leaf_count(), 1u);
}

TEST(ExpectedTrees, RefusesOrdersWithoutATree) {
  for (Order order : {Order::nondeterministic, Order::sorted_magnitude, Order::exact, Order::nan}) {
    ReferenceSpec spec;
    spec.order = order;
    spec.n = 4;
    EXPECT_FALSE(has_summation_tree(order));
    EXPECT_THROW(expected_reference_tree(spec), std::invalid_argument);
  }
}

TEST(RandomTree, DependsOnTheSeedAndIsReproducible) {
  ReferenceSpec spec;
  spec.order = Order::random_tree;
  spec.n = 50;
  spec.seed = 3;
  const Tree a = expected_reference_tree(spec);
  EXPECT_EQ(a, expected_reference_tree(spec));
  spec.seed = 4;
  EXPECT_FALSE(a == expected_reference_tree(spec));
  // Not a chain: a random tree over 50 leaves is shallower than the sequential one.
  EXPECT_LT(a.depth(), 49u);
}

}  // namespace
}  // namespace fprev::reference
