// Case parameters: the three collectives, dtypes, ranks and count, and their bounds.
#include <gtest/gtest.h>

#include "mpi_case.hpp"

namespace fprev::mpi {
namespace {

MpiCase parse(const Params& params) {
  return parse_case(resolve_params(case_param_specs(), params, "test"));
}

TEST(MpiCase, DefaultsAreFloat64AndOneElement) {
  const MpiCase c = parse({{"op", "allreduce"}, {"ranks", "8"}});
  EXPECT_EQ(c.op, Op::allreduce);
  EXPECT_EQ(c.dtype, Format::float64);
  EXPECT_EQ(c.ranks, 8);
  EXPECT_EQ(c.count, 1u);
  EXPECT_EQ(c.elements(), 1u);
  EXPECT_EQ(c.describe(), "MPI_Allreduce float64 count=1 over 8 ranks");
}

TEST(MpiCase, ReduceScatterBlockReducesEveryRanksBlock) {
  const MpiCase c =
      parse({{"op", "reduce_scatter_block"}, {"ranks", "6"}, {"count", "64"}, {"dtype", "float32"}});
  EXPECT_EQ(c.elements(), 6u * 64u);
  EXPECT_EQ(c.dtype, Format::float32);
  EXPECT_EQ(c.op_name(), "reduce_scatter_block");
  EXPECT_EQ(parse({{"op", "reduce"}, {"ranks", "6"}, {"count", "64"}}).elements(), 64u);
}

TEST(MpiCase, OpAndRanksAreRequired) {
  EXPECT_THROW(parse({{"ranks", "8"}}), ConfigError);
  EXPECT_THROW(parse({{"op", "allreduce"}}), ConfigError);
}

TEST(MpiCase, BoundsAreConfigErrorsNamingTheParameter) {
  const std::vector<std::pair<Params, std::string>> bad = {
      {{{"op", "scan"}, {"ranks", "8"}}, "op"},
      {{{"op", "allreduce"}, {"ranks", "1"}}, "ranks"},
      {{{"op", "allreduce"}, {"ranks", "65"}}, "ranks"},
      {{{"op", "allreduce"}, {"ranks", "8"}, {"count", "0"}}, "count"},
      {{{"op", "allreduce"}, {"ranks", "8"}, {"dtype", "float16"}}, "dtype"},
      // 64 ranks x 64 blocks of 2^13 elements: 2^25 values per call, more than the limit.
      {{{"op", "reduce_scatter_block"}, {"ranks", "64"}, {"count", "8192"}}, "count"},
  };
  for (const auto& [params, parameter] : bad) {
    try {
      parse(params);
      ADD_FAILURE() << "accepted a bad " << parameter;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.parameter(), parameter) << e.what();
    }
  }
  EXPECT_NO_THROW(parse({{"op", "allreduce"}, {"ranks", "16"}, {"count", "1048576"}}));
}

}  // namespace
}  // namespace fprev::mpi
