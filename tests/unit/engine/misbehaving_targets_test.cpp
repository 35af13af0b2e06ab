// Targets that misbehave must produce their specific diagnostic and never a tree.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine_test_helpers.hpp"
#include "fprev/fingerprint.hpp"
#include "fprev/probe_inputs.hpp"
#include "fprev/summary.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

// A float32 sum whose kernel is given as a function of the input array.
class KernelTarget : public Target {
 public:
  using Kernel = std::function<double(std::vector<float>&)>;
  KernelTarget(std::size_t n, Kernel kernel) : inputs_(n), values_(n), kernel_(std::move(kernel)) {
    info_.description = "test kernel";
    info_.n = n;
  }
  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    for (std::size_t p = 0; p < batch.probes.size(); ++p) {
      inputs_.load(batch, p);
      values_.assign(inputs_.a(), inputs_.a() + info_.n);
      outputs[p] = kernel_(values_);
    }
  }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    for (std::size_t r = 0; r < batch.rows; ++r) {
      inputs_.load(batch, r);
      values_.assign(inputs_.a(), inputs_.a() + info_.n);
      outputs[r] = kernel_(values_);
    }
  }

 private:
  TargetInfo info_;
  ProbeVectors<float> inputs_;
  std::vector<float> values_;
  Kernel kernel_;
};

double sequential(const std::vector<float>& v) {
  float s = 0;
  for (float x : v) s += x;
  return s;
}

Finding finding_of(Target& target, RevealOptions options = {}) {
  try {
    const RevealResult result = reveal(target, options);
    ADD_FAILURE() << "a tree was returned for a misbehaving target";
  } catch (const RevealFailure& e) {
    EXPECT_FALSE(e.diagnostic().message.empty());
    EXPECT_FALSE(e.diagnostic().likely_cause.empty());
    return e.diagnostic().finding;
  }
  return Finding::unsupported;
}

TEST(Misbehaving, NondeterministicTargetReportsVariability) {
  std::mt19937 shuffle_rng(std::random_device{}());
  KernelTarget target(64, [&](std::vector<float>& v) {
    std::shuffle(v.begin(), v.end(), shuffle_rng);
    return sequential(v);
  });
  try {
    reveal(target);
    FAIL() << "expected a diagnostic";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::nondeterministic);
    ASSERT_TRUE(e.diagnostic().variability.has_value());
    EXPECT_GT(e.diagnostic().variability->count_variability, 0.0);
    EXPECT_LE(e.diagnostic().variability->count_variability, 1.0);
    EXPECT_GT(e.diagnostic().variability->ermv, 0.0);
    EXPECT_GE(e.diagnostic().variability->distinct_outputs, 2u);
  }
}

TEST(Misbehaving, SortingByMagnitudeIsValueDependent) {
  KernelTarget target(32, [](std::vector<float>& v) {
    std::sort(v.begin(), v.end(), [](float a, float b) { return std::fabs(a) < std::fabs(b); });
    return sequential(v);
  });
  EXPECT_EQ(finding_of(target), Finding::value_dependent);
}

// Partial sorting: each block of 4 summands sorted by magnitude, then everything added in that
// order. Probes see fused 4- and 5-term nodes (the masks of a block always come last); the values
// that a fixed fused step sums exactly show the rounding of the sorted additions.
TEST(Misbehaving, SortingWithinBlocksIsValueDependent) {
  KernelTarget target(32, [](std::vector<float>& v) {
    for (std::size_t b = 0; b < v.size(); b += 4)
      std::sort(v.begin() + static_cast<std::ptrdiff_t>(b),
                v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), b + 4)),
                [](float a, float c) { return std::fabs(a) < std::fabs(c); });
    return sequential(v);
  });
  try {
    reveal(target);
    FAIL() << "a tree was returned for a target that sorts within blocks";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::value_dependent) << e.what();
    // The diagnostic says what was observed: the values, the exact sum and the output.
    EXPECT_NE(e.diagnostic().message.find("returned"), std::string::npos) << e.what();
    EXPECT_TRUE(e.diagnostic().raw_output.has_value());
  }
}

TEST(Misbehaving, SortingBySignedValueIsValueDependent) {
  KernelTarget target(24, [](std::vector<float>& v) {
    std::sort(v.begin(), v.end());
    return sequential(v);
  });
  EXPECT_EQ(finding_of(target), Finding::value_dependent);
}

// A fixed order with fused 5-term steps (align to the largest term, truncate, one rounding) is a
// tree, whatever the width: no declaration of a maximum width is needed.
TEST(Misbehaving, FixedFusedStepsOfAnyWidthAreATree) {
  const auto fused = [](const std::vector<double>& terms) {
    int top = INT32_MIN;
    for (double t : terms)
      if (t != 0) top = std::max(top, std::ilogb(t));
    if (top == INT32_MIN) return 0.0;
    double sum = 0;  // float terms truncated to 24 bits below the top: exact in double
    for (double t : terms) sum += std::ldexp(std::trunc(std::ldexp(t, 23 - top)), top - 23);
    return static_cast<double>(static_cast<float>(sum));
  };
  for (std::size_t width : {3, 5, 9}) {
    KernelTarget target(29, [&](std::vector<float>& v) {
      std::vector<double> terms(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(width));
      double acc = fused(terms);
      for (std::size_t next = width; next < v.size();) {
        terms.assign(1, acc);
        for (std::size_t k = 0; k + 1 < width && next < v.size(); ++k) terms.push_back(v[next++]);
        acc = fused(terms);
      }
      return acc;
    });
    const RevealResult result = reveal(target);
    EXPECT_EQ(result.tree, patterns::fused_groups(29, width)) << width;
    EXPECT_GT(result.stats.fused_node_tests, 0u);
  }
}

// A fixed fused step narrower than the data (a matrix unit with a short accumulator, or data
// rounded to TF32 on input) drops the low bit of 1 + u in every pattern of the fused-node test: it
// was called value_dependent. One width explains every output, so it is a tree, and the width is
// measured (issue 26, item 13). A sort is still value_dependent (SortingWithinBlocksIsValueDependent):
// it keeps the low bit in the patterns whose order it does not expose, which no narrow step does.
TEST(Misbehaving, AFusedStepNarrowerThanTheDataIsATreeWithItsWidth) {
  for (const int bits : {12, 20}) {
    const auto fused = [bits](const std::vector<double>& terms) {
      int top = INT32_MIN;
      for (double t : terms)
        if (t != 0) top = std::max(top, std::ilogb(t));
      if (top == INT32_MIN) return 0.0;
      double sum = 0;  // terms truncated to `bits` bits from the top: exact in double
      for (double t : terms) sum += std::ldexp(std::trunc(std::ldexp(t, bits - 1 - top)), top - (bits - 1));
      return static_cast<double>(static_cast<float>(sum));
    };
    KernelTarget target(29, [&](std::vector<float>& v) {
      std::vector<double> terms(v.begin(), v.begin() + 4);
      double acc = fused(terms);
      for (std::size_t next = 4; next < v.size();) {
        terms.assign(1, acc);
        for (std::size_t k = 0; k < 3 && next < v.size(); ++k) terms.push_back(v[next++]);
        acc = fused(terms);
      }
      return acc;
    });
    const RevealResult result = reveal(target);  // threw value_dependent before the fix
    EXPECT_EQ(result.tree, patterns::fused_groups(29, 4)) << bits;
    EXPECT_EQ(result.stats.fused_alignment_bits, bits);
  }
}

// The case: float64 data into fused 4-term nodes that align to 27 bits, modelled exactly
// (fused_extra_bits -26 of float64's 53), so the bitwise simulation checks the tree too.
TEST(Misbehaving, Float64IntoA27BitFusedUnitIsATree) {
  NumericTraits traits;
  traits.input = traits.accumulator = traits.output = Format::float64;
  traits.max_fused_width = 4;
  traits.fused_extra_bits = -26;
  traits.simulate_fused = true;
  const Tree tree = patterns::fused_groups(40, 4);
  TreeOracleTarget target(tree, traits);
  const RevealResult result = reveal(target);
  EXPECT_EQ(result.tree, tree);
  EXPECT_EQ(result.stats.fused_alignment_bits, 27);
  // The fingerprint records the width, so a unit that changes it fails the check.
  const Fingerprint fingerprint = measure_fingerprint(target, result.tree);
  ASSERT_EQ(fingerprint.facts.count("fused-alignment-bits"), 1u);
  EXPECT_EQ(fingerprint.facts.at("fused-alignment-bits").rfind("27", 0), 0u) << fingerprint.facts.at("fused-alignment-bits");
  // A unit as wide as the data has no such fact (the facts of existing goldens are unchanged).
  traits.fused_extra_bits = 0;
  TreeOracleTarget full(tree, traits);
  EXPECT_EQ(measure_fingerprint(full, tree).facts.count("fused-alignment-bits"), 0u);
  EXPECT_EQ(reveal(full).stats.fused_alignment_bits, 0);
}

TEST(Misbehaving, ExactSumIsOrderIndependent) {
  KernelTarget target(32, [](std::vector<float>& v) {
    // All inputs are powers of two or small sums of them in these tests: long double holds the
    // exact sum of the probes, and the random inputs are rounded once at the end.
    long double s = 0;
    std::sort(v.begin(), v.end(), [](float a, float b) { return std::fabs(a) > std::fabs(b); });
    for (float x : v) s += x;
    return static_cast<double>(static_cast<float>(s));
  });
  const Finding f = finding_of(target);
  EXPECT_EQ(f, Finding::order_independent);
}

TEST(Misbehaving, NanOnLargeInputs) {
  KernelTarget target(16, [](std::vector<float>& v) {
    for (float x : v)
      if (std::fabs(x) > 1e30f) return std::nan("");
    return sequential(v);
  });
  EXPECT_EQ(finding_of(target), Finding::non_finite_output);
}

TEST(Misbehaving, ExtraPrecisionIsCaughtBySimulation) {
  // A float32 sum accumulated in double, declared as float32: every probe looks right (the masks
  // are far beyond double's range too), but random inputs do not match float32 adds.
  KernelTarget target(200, [](std::vector<float>& v) {
    double s = 0;
    for (float x : v) s += x;
    return static_cast<double>(static_cast<float>(s));
  });
  EXPECT_EQ(finding_of(target), Finding::verification_failed);
  // The diagnostic names the declaration a backend author changes when the arithmetic is not
  // plain IEEE adds (a compensated sum): the NumericTraits field.
  try {
    (void)reveal(target, {});
    ADD_FAILURE() << "a tree was returned";
  } catch (const RevealFailure& e) {
    EXPECT_NE(e.diagnostic().likely_cause.find("NumericTraits::exact_arithmetic_model"), std::string::npos)
        << e.diagnostic().likely_cause;
  }
}

TEST(Misbehaving, WrongCountForOnePairIsInconsistent) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Tree truth = random_binary_tree(40, seed);
    TreeOracleTarget target(truth);
    // Corrupt the probe of two siblings' LCA: l becomes one smaller.
    target.set_wrong_count(0, 1, 1);
    RevealOptions options;
    options.pivot = Pivot::smallest;  // leaf 0 is then certainly probed against leaf 1
    options.verify_probes = 0;
    try {
      const Tree revealed = reveal(target, options).tree;
      ADD_FAILURE() << "seed " << seed << ": a tree was returned";
    } catch (const RevealFailure& e) {
      const Finding f = e.diagnostic().finding;
      EXPECT_TRUE(f == Finding::inconsistent_structure || f == Finding::count_out_of_range ||
                  f == Finding::verification_failed)
          << to_string(f);
      EXPECT_FALSE(e.diagnostic().probe.empty());
    }
  }
}

TEST(Misbehaving, NanProbesNamedWithTheirRawOutput) {
  TreeOracleTarget target(balanced_tree(16));
  target.set_nan_probes(true);
  try {
    reveal(target);
    FAIL();
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::non_finite_output);
    ASSERT_TRUE(e.diagnostic().raw_output.has_value());
    EXPECT_TRUE(std::isnan(*e.diagnostic().raw_output));
    EXPECT_NE(e.diagnostic().probe.find("A^{"), std::string::npos);
  }
}

TEST(Misbehaving, FractionalCountsAreNotWhole) {
  KernelTarget target(16, [](std::vector<float>& v) {
    float unit = 0;  // the probes' unit (random inputs have no such tiny values)
    for (float x : v)
      if (std::fabs(x) < 1e-20f && x != 0) unit = x;
    return sequential(v) + 0.5 * static_cast<double>(unit);
  });
  EXPECT_EQ(finding_of(target), Finding::not_whole_count);
}

TEST(Misbehaving, CountingTooManyUnitsIsOutOfRange) {
  KernelTarget target(16, [](std::vector<float>& v) {
    float unit = 0;
    for (float x : v)
      if (std::fabs(x) < 1e-20f && x != 0) unit = x;
    return sequential(v) + 5 * static_cast<double>(unit);
  });
  RevealOptions options;
  options.pivot = Pivot::smallest;  // probe (0,1) first: l = 2, all 14 other units unmasked
  EXPECT_EQ(finding_of(target, options), Finding::count_out_of_range);
}

TEST(Misbehaving, RanksThatDisagreeAreTheirOwnFinding) {
  // A collective whose participants received different bits (an allreduce), on probes only or on
  // every input: the finding is ranks_disagree, not a generic target error.
  for (const bool on_values_too : {false, true}) {
    KernelTarget target(8, [&](std::vector<float>& v) -> double {
      const bool probe = std::any_of(v.begin(), v.end(), [](float x) { return std::fabs(x) > 1e30f; });
      if (probe || on_values_too) throw RanksDisagree("rank 3 holds other bits than rank 0");
      return sequential(v);
    });
    EXPECT_EQ(finding_of(target), Finding::ranks_disagree);
  }
  EXPECT_EQ(to_string(Finding::ranks_disagree), "ranks_disagree");
}

TEST(Misbehaving, ZeroSummandsIsUnsupported) {
  KernelTarget target(0, [](std::vector<float>&) { return 0.0; });
  EXPECT_EQ(finding_of(target), Finding::unsupported);
}

}  // namespace
}  // namespace fprev
