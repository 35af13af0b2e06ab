// The reference kernels add in known orders with plain IEEE arithmetic (narrow outputs accumulate in
// the narrow format): the fingerprint must describe exactly that, and the tree plus the facts must
// reproduce every output bitwise (a test of the fingerprint's model).
#include <gtest/gtest.h>

#include "fprev/backends/reference.hpp"
#include "fprev/fingerprint.hpp"
#include "fprev/reveal.hpp"

namespace {

using fprev::Format;
using fprev::reference::Order;
using fprev::reference::ReferenceSpec;

ReferenceSpec spec(const char* op, Order order, Format dtype, std::size_t n,
                   std::optional<Format> output = std::nullopt) {
  ReferenceSpec s;
  s.op = op;
  s.order = order;
  s.dtype = dtype;
  s.n = n;
  s.output = output;
  return s;
}

TEST(ReferenceFingerprint, FactsDescribeTheKernelsAndReproduceThem) {
  const struct {
    ReferenceSpec spec;
    const char* partial_sums;
  } cases[] = {
      {spec("sum", Order::sequential, Format::float32, 100), "float32"},
      {spec("sum", Order::pairwise, Format::float64, 100), "float64"},
      {spec("dot", Order::strided_pairwise, Format::float32, 77), "float32"},
      {spec("dot", Order::sequential, Format::float64, 33), "float64"},
      {spec("sum", Order::pairwise, Format::float32, 300, Format::float16), "float16"},
      {spec("sum", Order::strided_pairwise, Format::float32, 200, Format::bfloat16), "bfloat16"},
      {spec("sum", Order::fused, Format::float32, 40), "float32"},
  };
  for (const auto& c : cases) {
    auto target = fprev::reference::make_reference_target(c.spec);
    const auto tree = fprev::reveal(*target).tree;
    const auto f = fprev::measure_fingerprint(*target, tree);
    const std::string what = fprev::reference::describe(c.spec);
    if (tree.max_arity() == 2) {
      EXPECT_EQ(f.facts.at("partial-sums"), c.partial_sums) << what;
      EXPECT_EQ(f.facts.at("rounding"), "nearest-even") << what;
    }
    if (c.spec.op == "dot") {
      EXPECT_EQ(f.facts.at("products"), "rounded") << what;
    }
    EXPECT_EQ(f.model, "reproduced") << what;
  }
}

}  // namespace
