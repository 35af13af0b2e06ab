// From a trace to a suite (fprev/blas/trace.hpp): which case each call is, by the BLAS's own
// definitions (a row-major CBLAS call is the column-major call with the operands swapped, the
// reference CBLAS's cblas_dgemm does exactly that), the instance, what is left out and why, and a
// trace file that does not parse.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "fprev/blas/trace.hpp"

namespace fprev::blas {
namespace {

Trace one_library_trace() {
  Trace trace;
  trace.libraries.push_back({"/usr/lib/libopenblas.so.0", "openblas", "OpenBLAS 0.3.21", "Haswell", ""});
  return trace;
}

TracedCall call(const std::string& op, const std::string& dtype, std::int64_t m, std::int64_t n, std::int64_t k) {
  TracedCall c;
  c.op = op;
  c.dtype = dtype;
  c.m = m;
  c.n = n;
  c.k = k;
  c.inc_x = c.inc_y = 1;
  c.threads = 1;
  c.library = 0;
  c.count = 1;
  return c;
}

TEST(TracedSuite, ARowMajorGemmIsTheColumnMajorCallWithTheOperandsSwapped) {
  Trace trace = one_library_trace();
  TracedCall c = call("gemm", "float64", 64, 32, 16);  // C 64 x 32 = A 64 x 16 . B 16 x 32
  c.cblas = c.row_major = true;
  c.trans_a = 'T';  // row-major C = A^T B  ->  column-major C^T = B^T A
  trace.calls.push_back(c);
  const TracedCases traced = traced_cases(trace, {});
  ASSERT_EQ(traced.cases.size(), 1u);
  EXPECT_EQ(traced.cases[0].params, (Params{{"op", "gemm"}, {"dtype", "float64"}, {"trans", "NT"}, {"beta", "0"},
                                            {"m", "32"}, {"n", "64"}, {"k", "16"}}));
}

TEST(TracedSuite, ARowMajorGemvSwapsItsShapeAndFlipsItsTranspose) {
  Trace trace = one_library_trace();
  TracedCall c = call("gemv", "float32", 40, 24, 0);
  c.cblas = c.row_major = true;
  c.trans_a = 'N';
  c.beta = 2;  // neither 0 nor 1: the old y is still a summand
  trace.calls.push_back(c);
  const TracedCases traced = traced_cases(trace, {});
  ASSERT_EQ(traced.cases.size(), 1u);
  EXPECT_EQ(traced.cases[0].params, (Params{{"op", "gemv"}, {"dtype", "float32"}, {"trans", "T"}, {"beta", "1"},
                                            {"m", "24"}, {"n", "40"}}));
}

TEST(TracedSuite, CallsThatGiveOneCaseAreOneCaseMostFrequentFirst) {
  Trace trace = one_library_trace();
  TracedCall dot = call("dot", "float32", 0, 1000, 0);
  dot.count = 5;
  dot.sites = {"a.out(f+0x1)"};
  trace.calls.push_back(dot);
  dot.inc_x = 2;  // another stride: the same case
  dot.count = 3;
  dot.sites = {"a.out(g+0x2)"};
  trace.calls.push_back(dot);
  TracedCall gemm = call("gemm", "float32", 8, 8, 8);
  gemm.count = 7;
  trace.calls.push_back(gemm);
  const TracedCases traced = traced_cases(trace, {});
  ASSERT_EQ(traced.cases.size(), 2u);
  EXPECT_EQ(traced.cases[0].params.at("op"), "dot");
  EXPECT_EQ(traced.cases[0].count, 8u);
  EXPECT_EQ(traced.cases[0].sites, (std::vector<std::string>{"a.out(f+0x1)", "a.out(g+0x2)"}));
  EXPECT_EQ(traced.cases[1].count, 7u);

  TracedSuiteOptions top;
  top.top = 1;
  const TracedCases one = traced_cases(trace, top);
  ASSERT_EQ(one.cases.size(), 1u);
  EXPECT_EQ(one.cases[0].params.at("op"), "dot");
  EXPECT_NE(std::find(one.not_gated.begin(), one.not_gated.end(), "beyond the 1 most frequent (--top): 7 calls"),
            one.not_gated.end());
}

TEST(TracedSuite, CallsThatSumNothingAndOtherRoutinesAreListedAsNotGated) {
  Trace trace = one_library_trace();
  trace.calls.push_back(call("gemm", "float64", 8, 8, 0));
  trace.other_calls["cblas_dsyrk"] = 4;
  const TracedCases traced = traced_cases(trace, {});
  EXPECT_TRUE(traced.cases.empty());
  EXPECT_EQ(traced.not_gated, (std::vector<std::string>{"dgemm_: k < 1: no products summed: 1 call",
                                                        "cblas_dsyrk: 4 calls (not a kind the gate reveals)"}));
}

TEST(TracedSuite, TheInstanceIsPinnedTheWayTheProgramRan) {
  Trace trace = one_library_trace();
  trace.libraries[0].coretype = "haswell";
  TracedCall c = call("dot", "float64", 0, 33, 0);
  c.threads = 2;
  trace.calls.push_back(c);
  const TracedCases traced = traced_cases(trace, {});
  ASSERT_EQ(traced.cases.size(), 1u);
  EXPECT_EQ(traced.cases[0].instance, "openblas-haswell-t2");
  EXPECT_EQ(traced.cases[0].settings, (Params{{"library", "openblas"}, {"threads", "2"}, {"kernel", "Haswell"}}));
}

TEST(TracedSuite, AMalformedTraceFileIsNamedWithItsLine) {
  const auto directory = std::filesystem::temp_directory_path() / ("fprev-trace-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  std::ofstream(directory / "trace.1") << "fprev-blas-trace\t1\ncall\tdot\tfloat16\n";
  try {
    read_trace_directory(directory);
    ADD_FAILURE() << "a malformed trace was read";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("trace.1:2 has 3 fields in a 'call' record, expected 23"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(directory);
}

}  // namespace
}  // namespace fprev::blas
