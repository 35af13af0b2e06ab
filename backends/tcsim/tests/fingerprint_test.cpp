// The arithmetic fingerprint on the simulated matrix units: architectures (or Hopper settings) that
// share a tree but not the extra alignment bits are told apart, and the tree plus the measured facts
// reproduce the model's outputs bitwise (a test of the fingerprint's model against tcsim's).
#include <gtest/gtest.h>

#include "fprev/backends/tcsim.hpp"
#include "fprev/fingerprint.hpp"
#include "fprev/reveal.hpp"

namespace {

using fprev::Format;
using namespace fprev::tcsim;

GemmTargetSpec hopper(int extra_bits, Format input = Format::float16) {
  GemmTargetSpec s;
  s.model = arch_model(Arch::hopper, extra_bits);
  s.config.k_tile = default_k_tile(Arch::hopper);
  s.input = input;
  s.output = input == Format::float64 ? Format::float64 : Format::float32;
  s.k = 64;
  return s;
}

struct Measured {
  fprev::Tree tree;
  fprev::Fingerprint fingerprint;
};

Measured measure(const GemmTargetSpec& spec) {
  auto target = make_tcsim_target(spec);
  fprev::Tree tree = fprev::reveal(*target).tree;
  fprev::Fingerprint fingerprint = fprev::measure_fingerprint(*target, tree);
  return {std::move(tree), std::move(fingerprint)};
}

TEST(TcsimFingerprint, HopperExtraBitsShareTheTreeButNotTheFingerprint) {
  const Measured one = measure(hopper(1));
  const Measured two = measure(hopper(2));
  EXPECT_EQ(one.tree, two.tree);  // the masks leave room for either: the order alone cannot tell
  EXPECT_EQ(one.fingerprint.facts.at("fused-extra-bits"), "1");
  EXPECT_EQ(two.fingerprint.facts.at("fused-extra-bits"), "2");
  EXPECT_EQ(one.fingerprint.facts.at("fused-alignment"), "terms truncated, sum truncated");
  const auto change = fprev::compare_fingerprints(one.fingerprint, two.fingerprint, Format::float32);
  EXPECT_FALSE(change.same());
  ASSERT_EQ(change.changed_facts.size(), 1u);
  EXPECT_EQ(change.changed_facts[0], "fused-extra-bits: 1 -> 2");
}

TEST(TcsimFingerprint, VoltaKeepsNoExtraBit) {
  GemmTargetSpec s = hopper(1);
  s.model = arch_model(Arch::volta);
  s.config.k_tile = default_k_tile(Arch::volta);
  // k = 64 in k-tiles of 32: 15 fused steps below the root, 4 of them measured.
  EXPECT_EQ(measure(s).fingerprint.facts.at("fused-extra-bits"), "0 (4 of 15 additions tested)");
}

TEST(TcsimFingerprint, TheFactsReproduceTheModelBitwise) {
  for (Arch arch : {Arch::volta, Arch::ampere, Arch::hopper}) {
    for (Format input : {Format::float16, Format::bfloat16}) {
      GemmTargetSpec s = hopper(1, input);
      s.model = arch_model(arch);
      s.config.k_tile = default_k_tile(arch);
      const Measured m = measure(s);
      EXPECT_EQ(m.fingerprint.model, "reproduced") << to_string(input);
      EXPECT_EQ(m.fingerprint.facts.at("products"), "exact (every product of two inputs fits the accumulator)");
    }
  }
  // float64 is a chain of IEEE FMAs (DMMA).
  GemmTargetSpec dmma = hopper(1, Format::float64);
  dmma.model = arch_model(Arch::ampere);
  dmma.config.k_tile = default_k_tile(Arch::ampere);
  const Measured m = measure(dmma);
  EXPECT_EQ(m.fingerprint.facts.at("products"), "not rounded (contracted, FMA)");
  EXPECT_EQ(m.fingerprint.facts.at("partial-sums"), "float64");
  EXPECT_EQ(m.fingerprint.model, "reproduced");
}

}  // namespace
