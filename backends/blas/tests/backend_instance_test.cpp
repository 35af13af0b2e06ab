// The blas backend through the registry: instance settings, identity, platform key, threads, the
// FPREV_BLAS_LIBRARY override and case validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "blas_test_support.hpp"
#include "fprev/blas/kernel_family.hpp"
#include "fprev/blas/platform.hpp"

namespace fprev::blas {
namespace {

using testing::blas_backend;
using testing::open_blas;

TEST(BlasBackend, IsRegisteredWithItsSettings) {
  const Backend& backend = blas_backend();
  EXPECT_EQ(backend.name(), "blas");
  const auto params = backend.instance_params();
  ASSERT_EQ(params.size(), 3u);
  EXPECT_EQ(params[0].name, "library");
  EXPECT_EQ(params[0].default_value, "openblas");
  EXPECT_EQ(params[1].name, "threads");
  EXPECT_EQ(params[1].default_value, "1");
  EXPECT_EQ(params[1].min_value, 1);
  EXPECT_EQ(params[2].name, "kernel");
  EXPECT_EQ(params[2].type, ParamType::choice);
  EXPECT_EQ(params[2].default_value, "");  // absent: the library's own choice
  EXPECT_NE(std::find(params[2].choices.begin(), params[2].choices.end(), "SkylakeX"),
            params[2].choices.end());
}

TEST(BlasBackend, DefaultInstanceIsSingleThreadedOpenBlas) {
  unsetenv(kLibraryEnvironmentVariable);
  const auto instance = blas_backend().open({});
  const Identity id = instance->identity();
  EXPECT_EQ(id.library, "OpenBLAS");
  EXPECT_EQ(id.details.at("threads"), "1");
  EXPECT_EQ(id.details.at("library_requested"), "openblas");
  EXPECT_EQ(id.details.count("library_override"), 0u);
  EXPECT_TRUE(id.platform_key.ends_with("-t1")) << id.platform_key;
}

TEST(BlasBackend, IdentityNamesLibraryVersionConfigurationAndFile) {
  const Identity id = open_blas("openblas")->identity();
  EXPECT_FALSE(id.version.empty());
  EXPECT_NE(id.version, "unknown");
  EXPECT_NE(id.configuration.find(id.details.at("core")), std::string::npos);
  EXPECT_FALSE(id.details.at("file").empty());
  EXPECT_EQ(id.details.at("cpu_model"), describe_cpu().model);
  EXPECT_EQ(id.details.at("isa"), describe_cpu().widest_vector_isa());
}

// Instances that name a kernel family: the key is the family and the threads, whichever library
// runs it, so a swapped library is compared with the goldens (a diff), never "no golden".
TEST(BlasBackend, PlatformKeyIsTheFamilyAndThreadsNotTheLibraryNorTheCpu) {
  if (!missing_features(*find_kernel_family("Haswell"), describe_cpu()).empty())
    GTEST_SKIP() << "this CPU cannot run the Haswell kernels";
  const auto open_haswell = [](const std::string& library, int threads) {
    unsetenv(kLibraryEnvironmentVariable);
    return blas_backend().open(
        {{"library", library}, {"kernel", "Haswell"}, {"threads", std::to_string(threads)}});
  };
  EXPECT_EQ(open_haswell("openblas", 1)->identity().platform_key, "haswell-t1");
  EXPECT_EQ(open_haswell("openblas", 2)->identity().platform_key, "haswell-t2");
  for (const std::string& other : std::vector<std::string>{"blis", "netlib", testing::toy_library()}) {
    std::unique_ptr<BackendInstance> instance;
    try {
      instance = open_haswell(other, 1);
    } catch (const BackendUnavailable& e) {
      if (e.reason() == Unavailability::not_installed) continue;
      throw;
    }
    EXPECT_EQ(instance->identity().platform_key, "haswell-t1") << other;
  }
  const std::string cpu = describe_cpu().model;
  EXPECT_EQ(open_haswell("openblas", 1)->identity().details.at("cpu_model"), cpu);  // metadata
}

TEST(BlasBackend, ThreadCountIsSetAndRecorded) {
  EXPECT_EQ(open_blas("openblas", 2)->identity().details.at("threads"), "2");
  EXPECT_EQ(open_blas("openblas", 1)->identity().details.at("threads"), "1");
  FPREV_OPEN_OR_SKIP(blis, "blis", 2);
  EXPECT_EQ(blis->identity().details.at("threads"), "2");
}

TEST(BlasBackend, LibraryWithoutThreadApiRefusesMoreThanOneThread) {
  FPREV_OPEN_OR_SKIP(single, "netlib", 1);
  EXPECT_EQ(single->identity().details.at("threads"), "1 (no thread API; assumed single-threaded)");
  try {
    open_blas("netlib", 2);
    FAIL() << "netlib accepted threads: 2";
  } catch (const BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("no API to set its thread count"), std::string::npos)
        << e.what();
  }
}

TEST(BlasBackend, MissingLibraryIsUnavailable) {
  try {
    open_blas("/nonexistent/libblas.so.3");
    ADD_FAILURE() << "opened a library that does not exist";
  } catch (const BackendUnavailable& e) {
    EXPECT_EQ(e.reason(), Unavailability::unusable) << e.what();  // a path: named on purpose
  }
  EXPECT_THROW(open_blas("mkl"), ConfigError);
  EXPECT_THROW(open_blas("openblas", 0), ConfigError);
}

class EnvironmentOverride : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv(kLibraryEnvironmentVariable); }
};

TEST_F(EnvironmentOverride, ReplacesTheLibraryOfEveryInstanceAndSaysSo) {
  setenv(kLibraryEnvironmentVariable, testing::toy_library().c_str(), 1);
  const auto instance = blas_backend().open({{"library", "openblas"}});
  const Identity id = instance->identity();
  EXPECT_NE(id.library, "OpenBLAS");
  EXPECT_EQ(id.details.at("library_requested"), "openblas");
  EXPECT_EQ(id.details.at("library_override"),
            std::string(kLibraryEnvironmentVariable) + "=" + testing::toy_library());
  EXPECT_EQ(id.platform_key, "generic-t1");  // the toy has no kernel families
}

TEST_F(EnvironmentOverride, EmptyValueChangesNothing) {
  setenv(kLibraryEnvironmentVariable, "", 1);
  EXPECT_EQ(blas_backend().open({})->identity().library, "OpenBLAS");
}

TEST_F(EnvironmentOverride, BadValueIsReportedAgainstTheVariable) {
  setenv(kLibraryEnvironmentVariable, "not-a-blas", 1);
  try {
    blas_backend().open({});
    FAIL() << "accepted FPREV_BLAS_LIBRARY=not-a-blas";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("FPREV_BLAS_LIBRARY: ", 0), 0u) << e.what();
  }
  setenv(kLibraryEnvironmentVariable, "/nonexistent/libx.so", 1);
  try {
    blas_backend().open({});
    ADD_FAILURE() << "opened FPREV_BLAS_LIBRARY=/nonexistent/libx.so";
  } catch (const BackendUnavailable& e) {
    EXPECT_EQ(e.reason(), Unavailability::unusable);
    EXPECT_EQ(std::string(e.what()).rfind("FPREV_BLAS_LIBRARY: BLAS library '/nonexistent/libx.so' "
                                          "not found: no such file",
                                          0),
              0u)
        << e.what();
  }
}

// ---- case parameters --------------------------------------------------------------------------

Params resolved(const BackendInstance& instance, const Params& params) {
  return resolve_params(instance.case_params(), params, "test case");
}

void expect_config_error(const BackendInstance& instance, const Params& params,
                         const std::string& parameter, const std::string& fragment) {
  try {
    instance.validate_case(resolved(instance, params));
    ADD_FAILURE() << "accepted a bad case (" << fragment << ")";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.parameter(), parameter) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(BlasCases, AcceptsEveryOpWithItsShape) {
  const auto instance = open_blas("openblas");
  for (const Params& p : std::vector<Params>{
           {{"op", "dot"}, {"n", "7"}},
           {{"op", "dot"}, {"n", "7"}, {"dtype", "float64"}},
           {{"op", "gemv"}, {"m", "3"}, {"n", "5"}, {"trans", "T"}, {"beta", "1"}},
           {{"op", "gemm"}, {"m", "3"}, {"n", "4"}, {"k", "5"}, {"trans", "TN"}},
           {{"op", "gemm"}, {"m", "1"}, {"n", "1"}, {"k", "1"}}}) {
    EXPECT_NO_THROW(instance->validate_case(resolved(*instance, p)));
    const auto target = instance->make_target(resolved(*instance, p));
    EXPECT_GE(target->info().max_batch, 1u);
  }
}

TEST(BlasCases, RejectsParametersThatDoNotFitTheOp) {
  const auto instance = open_blas("openblas");
  expect_config_error(*instance, {{"op", "dot"}, {"n", "7"}, {"m", "3"}}, "m", "does not apply");
  expect_config_error(*instance, {{"op", "dot"}, {"n", "7"}, {"beta", "1"}}, "beta",
                      "does not apply");
  expect_config_error(*instance, {{"op", "gemv"}, {"n", "7"}}, "m", "needs 'm'");
  expect_config_error(*instance, {{"op", "gemv"}, {"m", "2"}, {"n", "7"}, {"trans", "TN"}},
                      "trans", "N or T");
  expect_config_error(*instance, {{"op", "gemm"}, {"m", "2"}, {"n", "7"}}, "k", "needs 'k'");
  expect_config_error(*instance, {{"op", "gemm"}, {"m", "2"}, {"n", "7"}, {"k", "3"}, {"trans", "T"}},
                      "trans", "NN, NT, TN or TT");
  expect_config_error(*instance,
                      {{"op", "gemm"}, {"m", "100000"}, {"n", "100000"}, {"k", "3"}}, "",
                      "too large");
  EXPECT_THROW(resolved(*instance, {{"op", "gemm"}, {"n", "1"}, {"beta", "2"}}), ConfigError);
  EXPECT_THROW(resolved(*instance, {{"op", "axpy"}, {"n", "1"}}), ConfigError);
}

// A size no reveal can finish is refused when the suite is read, with the floor of its cost: ddot
// of 10^9 needs at least 10^9 - 1 calls of 10^9 multiply-adds, 12 days even at 10^12 a second.
TEST(BlasCases, SizesNoRevealCanFinishAreRefusedWithTheirFloor) {
  const auto instance = open_blas("openblas");
  expect_config_error(*instance, {{"op", "dot"}, {"n", "1000000000"}, {"dtype", "float64"}}, "n",
                      "too large to reveal: at least 999999999 probes in 1e+09 calls of 1e+09 "
                      "multiply-adds each, over 12 days");
  EXPECT_NO_THROW(instance->validate_case(resolved(*instance, {{"op", "dot"}, {"n", "1000000"}, {"dtype", "float64"}})));
  // 3 x 10^8: 10^17 multiply-adds, a day at the fastest: the run-time estimate decides.
  EXPECT_NO_THROW(instance->validate_case(resolved(*instance, {{"op", "dot"}, {"n", "300000000"}})));
}

TEST(BlasCases, OpsTheLibraryLacksAreRefusedNamingTheSymbol) {
  const auto toy = open_blas(testing::toy_library());
  EXPECT_NO_THROW(toy->validate_case(resolved(*toy, {{"op", "dot"}, {"n", "4"}})));
  // The library's shortcoming (TargetError: the case fails, exit 1), not a configuration error.
  const auto expect_lacks = [&](const Params& params, const std::string& fragment) {
    try {
      toy->validate_case(resolved(*toy, params));
      ADD_FAILURE() << "accepted a case the library lacks (" << fragment << ")";
    } catch (const TargetError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_lacks({{"op", "dot"}, {"n", "4"}, {"dtype", "float64"}}, "lacks ddot_");
  expect_lacks({{"op", "gemm"}, {"m", "2"}, {"n", "2"}, {"k", "2"}, {"dtype", "float64"}}, "lacks dgemm_");
  EXPECT_THROW(toy->make_target(resolved(*toy, {{"op", "gemv"}, {"m", "2"}, {"n", "2"},
                                                 {"dtype", "float64"}})),
               TargetError);
}

TEST(BlasCases, TargetsDescribeThemselvesAndTheirSummands) {
  const auto instance = open_blas("openblas");
  const auto gemm = instance->make_target(
      resolved(*instance, {{"op", "gemm"}, {"m", "8"}, {"n", "4"}, {"k", "33"}, {"beta", "1"},
                           {"trans", "TN"}, {"dtype", "float64"}}));
  const TargetInfo& info = gemm->info();
  EXPECT_EQ(info.n, 34u);  // k products and the old C
  // A grid target: every element of C per call, inputs on the rows of op(A) or columns of op(B).
  EXPECT_EQ(info.grid, (OutputGrid{8, 4}));
  EXPECT_TRUE(info.is_grid());
  EXPECT_TRUE(info.columns_placement);
  EXPECT_EQ(info.traits.summand, SummandKind::product_shared_rhs);
  EXPECT_EQ(info.traits.input, Format::float64);
  EXPECT_EQ(info.traits.accumulator, Format::float64);
  EXPECT_NE(info.description.find("dgemm TN m=8 n=4 k=33 beta=1"), std::string::npos)
      << info.description;

  const auto gemv = instance->make_target(
      resolved(*instance, {{"op", "gemv"}, {"m", "5"}, {"n", "9"}, {"trans", "T"}}));
  EXPECT_EQ(gemv->info().n, 5u);                       // y = A^T x sums over the m rows of A
  EXPECT_EQ(gemv->info().grid, (OutputGrid{9, 1}));  // n outputs
  // One output: an ordinary single-output target.
  const auto single = instance->make_target(
      resolved(*instance, {{"op", "gemm"}, {"m", "1"}, {"n", "1"}, {"k", "6"}}));
  EXPECT_FALSE(single->info().is_grid());
  EXPECT_EQ(single->info().max_batch, 1u);

  const auto dot = instance->make_target(resolved(*instance, {{"op", "dot"}, {"n", "100"}}));
  EXPECT_EQ(dot->info().n, 100u);
  EXPECT_EQ(dot->info().max_batch, 1u);
  EXPECT_EQ(dot->info().traits.summand, SummandKind::product);
  EXPECT_EQ(dot->info().traits.output, Format::float32);
}

}  // namespace
}  // namespace fprev::blas
