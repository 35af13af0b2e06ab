// The worked example of Xie et al., USENIX ATC 2025 (Algorithm 1, Table 1, Figure 2): sum += a[i] + a[i+1] for
// i = 0, 2, 4, 6. Its outputs for the masked all-one arrays and l(i,j) are printed in Table 1.
#include <gtest/gtest.h>

#include "engine_test_helpers.hpp"
#include "fprev/mask_scheme.hpp"
#include "fprev/probe_inputs.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"

namespace fprev {
namespace {

class Algorithm1 final : public testing::FloatKernelTarget {
 public:
  Algorithm1() : FloatKernelTarget(8) { info_.description = "Xie et al., USENIX ATC 2025 Algorithm 1"; }

 private:
  double run(const float* a) const override {
    float sum = 0;
    for (int i = 0; i < 8; i += 2) sum += a[i] + a[i + 1];
    return sum;
  }
};

struct Table1Row {
  std::uint32_t i, j;
  double output;
  std::uint32_t l;
};

TEST(Table1, OutputsAndLcaSizesOfAlgorithm1) {
  // The rows of Xie et al., USENIX ATC 2025 Table 1 (i, j, output, l).
  const Table1Row rows[] = {{0, 1, 6, 2}, {0, 2, 4, 4}, {0, 3, 4, 4}, {0, 4, 2, 6}, {0, 5, 2, 6},
                            {0, 6, 0, 8}, {0, 7, 0, 8}, {2, 3, 6, 2}, {2, 4, 2, 6}};
  Algorithm1 target;
  const MaskScheme scheme = choose_mask_scheme(target.info().traits, 8);
  ASSERT_EQ(scheme.output_unit, scheme.values.unit.value());
  Background all;
  all.id = Background::next_id();
  const Background* backgrounds[] = {&all};
  for (const Table1Row& row : rows) {
    const Probe probe{row.i, row.j, 0};
    ProbeBatch batch;
    batch.values = &scheme.values;
    batch.backgrounds = backgrounds;
    batch.probes = std::span<const Probe>(&probe, 1);
    double output = 0;
    target.evaluate(batch, std::span<double>(&output, 1));
    EXPECT_EQ(output / scheme.output_unit, row.output) << "A^{" << row.i << "," << row.j << "}";
    EXPECT_EQ(8 - output / scheme.output_unit, row.l);
  }
}

TEST(Table1, RevealGivesFigure2AndItsLcaSizes) {
  Algorithm1 target;
  const RevealResult result = reveal(target);
  // Figure 2: ((((0 1) (2 3)) (4 5)) (6 7))
  EXPECT_EQ(result.tree, parse_sexpr("((((0 1) (2 3)) (4 5)) (6 7))"));
  EXPECT_EQ(result.tree.lca_leaf_count(0, 1), 2u);
  EXPECT_EQ(result.tree.lca_leaf_count(0, 3), 4u);
  EXPECT_EQ(result.tree.lca_leaf_count(2, 4), 6u);
  EXPECT_EQ(result.tree.lca_leaf_count(0, 7), 8u);
  EXPECT_GT(result.stats.simulated_inputs, 0u);  // reproduced bitwise on random inputs too
}

TEST(Table1, BasicAndNaiveAgree) {
  Algorithm1 target;
  RevealOptions options;
  options.algorithm = Algorithm::basic;
  const Tree basic = reveal(target, options).tree;
  options.algorithm = Algorithm::naive;
  const Tree naive = reveal(target, options).tree;
  EXPECT_EQ(basic, parse_sexpr("((((0 1) (2 3)) (4 5)) (6 7))"));
  EXPECT_EQ(naive, basic);
}

}  // namespace
}  // namespace fprev
