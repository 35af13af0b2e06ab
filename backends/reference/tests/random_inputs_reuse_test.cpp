// The engine keeps the last few sets of random inputs (the placement check draws the same ones at
// every placement: src/engine/random_inputs.cpp). A kept set must only serve a target with the same
// formats and size: a float32 kernel revealed right after a float64 one of the same length, with the
// same seed, gets inputs of its own format, or its simulation check (bitwise, on these inputs) fails.
#include <gtest/gtest.h>

#include "fprev/backends/reference.hpp"
#include "fprev/reveal.hpp"
#include "quick_options.hpp"

namespace fprev::reference {
namespace {

std::unique_ptr<Target> sequential(Format dtype, std::size_t n) {
  ReferenceSpec spec;
  spec.order = Order::sequential;
  spec.dtype = dtype;
  spec.n = n;
  return make_reference_target(spec);
}

TEST(RandomInputsReuse, AKeptSetServesOnlyTheSameFormats) {
  RevealOptions options = ::fprev::testing::quick_reveal_options();
  options.verify_inputs = 8;
  for (int round = 0; round < 2; ++round) {
    for (const Format dtype : {Format::float64, Format::float32, Format::float64, Format::float32}) {
      SCOPED_TRACE(format_info(dtype).name);
      const auto target = sequential(dtype, 64);
      RevealResult result;
      ASSERT_NO_THROW(result = reveal(*target, options));
      EXPECT_GT(result.stats.simulated_inputs, 0u);
      EXPECT_TRUE(result.stats.arithmetic_note.empty()) << result.stats.arithmetic_note;
    }
  }
}

}  // namespace
}  // namespace fprev::reference
