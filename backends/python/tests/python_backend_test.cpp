// The python backend's gate side: case and setting checks, and the refusals made before any
// interpreter starts (CPU features of an injected host, an interpreter that does not exist).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fprev/fingerprint.hpp"
#include "fprev/python/python_backend.hpp"
#include "fprev/reveal.hpp"
#include "fprev/python/python_case.hpp"

namespace fprev::python {
namespace {

Params resolved_case(Params given) { return resolve_params(case_param_specs(), given, "test"); }

std::string config_parameter(const Params& given) {
  try {
    check_case(resolved_case(given));
  } catch (const ConfigError& e) {
    return e.parameter();
  }
  return "accepted";
}

TEST(PythonCase, ShapesFollowTheOp) {
  EXPECT_EQ(config_parameter({{"op", "sum"}, {"n", "1000"}}), "accepted");
  EXPECT_EQ(config_parameter({{"op", "sum"}, {"n", "10"}, {"m", "3"}}), "m");
  EXPECT_EQ(config_parameter({{"op", "dot"}, {"n", "10"}, {"trans", "T"}}), "trans");
  EXPECT_EQ(config_parameter({{"op", "gemv"}, {"n", "10"}}), "m");
  EXPECT_EQ(config_parameter({{"op", "gemv"}, {"n", "10"}, {"m", "4"}, {"trans", "NN"}}), "trans");
  EXPECT_EQ(config_parameter({{"op", "gemv"}, {"n", "10"}, {"m", "4"}, {"k", "4"}}), "k");
  EXPECT_EQ(config_parameter({{"op", "gemm"}, {"n", "10"}, {"m", "4"}}), "k");
  EXPECT_EQ(config_parameter({{"op", "gemm"}, {"n", "10"}, {"m", "4"}, {"k", "4"}, {"trans", "T"}}), "trans");
  EXPECT_EQ(config_parameter({{"op", "gemm"}, {"n", "10"}, {"m", "4"}, {"k", "4"}, {"trans", "TN"}}), "accepted");
  // A reveal that would take longer than a week is refused on the reduction's parameter.
  EXPECT_EQ(config_parameter({{"op", "gemm"}, {"n", "1000000"}, {"m", "1000000"}, {"k", "1000000"}}), "k");
}

TEST(PythonSettings, CheckedAgainstEachOther) {
  const auto parameter = [](const Params& given) -> std::string {
    try {
      parse_settings(given);
    } catch (const ConfigError& e) {
      return e.parameter();
    }
    return "accepted";
  };
  EXPECT_EQ(parameter({{"library", "torch"}, {"capability", "avx512"}}), "accepted");
  EXPECT_EQ(parameter({{"library", "numpy"}, {"capability", "avx2"}}), "capability");
  EXPECT_EQ(parameter({{"library", "numpy"}, {"device", "cuda"}}), "device");
  EXPECT_EQ(parameter({{"library", "cupy"}}), "device");  // CuPy has no CPU arrays
  EXPECT_EQ(parameter({{"library", "cupy"}, {"device", "cuda"}}), "accepted");
  EXPECT_EQ(parameter({{"library", "jax"}, {"device", "cuda"}}), "accepted");
  EXPECT_EQ(parameter({{"library", "torch"}, {"device", "cuda"}, {"blas_kernel", "Haswell"}}), "blas_kernel");
  EXPECT_EQ(parameter({{"function", "mysums.total"}}), "function");
  EXPECT_EQ(parameter({{"function", "mysums:total"}}), "accepted");
  EXPECT_EQ(parameter({{"library", "tensorflow"}}), "library");
  EXPECT_FALSE(parse_settings({}).python_named);
  // resolved with its default, as the gate opens every instance: still python3 on PATH, searched
  EXPECT_FALSE(parse_settings({{"python", "python3"}}).python_named);
  EXPECT_EQ(parse_settings({}).python, "python3");
  EXPECT_TRUE(parse_settings({{"python", "/usr/bin/python3"}}).python_named);
}

// A function given as a file is refused where it is written (suite line, command line), with the
// module form to write instead.
TEST(PythonSettings, FunctionGivenAsAFileSaysWhatToWrite) {
  EXPECT_EQ(function_spec_problem("mysums:total"), "");
  EXPECT_EQ(function_spec_problem("pkg.sub.mod:Class.method"), "");
  const std::string file = function_spec_problem("mysums.py:total");
  EXPECT_NE(file.find("is a file path"), std::string::npos) << file;
  EXPECT_NE(file.find("mysums:total"), std::string::npos) << file;
  const std::string path = function_spec_problem("./lib/mysums.py");
  EXPECT_NE(path.find("is a file path"), std::string::npos) << path;
  EXPECT_NE(path.find("mysums:CALLABLE"), std::string::npos) << path;
  for (const char* bad : {"mysums", "mysums:", ":total", "my-sums:total", "a:b:c", "mysums:1st"})
    EXPECT_NE(function_spec_problem(bad), "") << bad;
  // The same rule through the parameter's declaration, as suites and the command line apply it.
  try {
    resolve_params(instance_param_specs(), {{"function", "mysums.py:total"}}, "backend 'python'");
    ADD_FAILURE() << "a file path was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.parameter(), "function");
    EXPECT_NE(std::string(e.what()).find("mysums:total"), std::string::npos) << e.what();
  }
}

// A host described by a cpuinfo file (FPREV_BLAS_CPUINFO, limited to this CPU's features): the
// capability and the kernel family it cannot run are skips naming what it lacks, whatever this CPU is.
class SimulatedHost : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() / ("fprev_python_cpuinfo_" + std::to_string(::getpid()));
    std::ofstream(path_) << "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: a CPU with SSE2 only\n"
                            "flags\t\t: fpu sse2 pni\n\n";
    ::setenv("FPREV_BLAS_CPUINFO", path_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("FPREV_BLAS_CPUINFO");
    std::filesystem::remove(path_);
  }
  static BackendUnavailable refusal(const Params& settings) {
    try {
      make_backend()->open(settings);
    } catch (const BackendUnavailable& e) {
      return e;
    }
    return BackendUnavailable("opened", Unavailability::unusable);
  }
  std::filesystem::path path_;
};

TEST_F(SimulatedHost, CapabilityTheCpuCannotRunIsASkip) {
  const BackendUnavailable e = refusal({{"library", "torch"}, {"capability", "avx512"}, {"python", "/nonexistent/python"}});
  EXPECT_EQ(e.reason(), Unavailability::host_cannot_run);
  EXPECT_NE(std::string(e.what()).find("avx512f"), std::string::npos) << e.what();
}

TEST_F(SimulatedHost, KernelFamilyTheCpuCannotRunIsASkip) {
  const BackendUnavailable e = refusal({{"blas_kernel", "Sandybridge"}, {"python", "/nonexistent/python"}});
  EXPECT_EQ(e.reason(), Unavailability::host_cannot_run);
  EXPECT_NE(std::string(e.what()).find("avx"), std::string::npos) << e.what();
}

// A GEMM's columns take right factors of their own through the worker (the info's
// column_right_factors, the values request's column_calls and column_factors sections): the
// fingerprint in packed calls is the one measured a set of right factors a call, in fewer calls.
TEST(PythonBackend, PackedFingerprintCallsGiveTheUnpackedFingerprint) {
  std::unique_ptr<BackendInstance> numpy;
  try {
    numpy = make_backend()->open({{"library", "numpy"}});
  } catch (const BackendUnavailable& e) {
    GTEST_SKIP() << "NumPy is not usable here: " << e.what();
  }
  const auto target = numpy->make_target(
      resolve_params(numpy->case_params(), {{"op", "gemm"}, {"m", "128"}, {"n", "128"}, {"k", "64"}}, "test"));
  ASSERT_TRUE(target->info().column_right_factors);
  const RevealResult revealed = reveal(*target);
  FingerprintStats packed_stats, unpacked_stats;
  const auto packed = measure_map_fingerprints(*target, revealed.map, &packed_stats, &revealed.stats);
  const auto unpacked = measure_map_fingerprints(*target, revealed.map, &unpacked_stats);
  ASSERT_EQ(packed.size(), unpacked.size());
  for (std::size_t k = 0; k < packed.size(); ++k) {
    EXPECT_EQ(packed[k].digest(), unpacked[k].digest());
    EXPECT_EQ(packed[k].facts, unpacked[k].facts);
  }
  EXPECT_LT(packed_stats.target_calls, unpacked_stats.target_calls);
}

TEST(PythonBackend, NamedInterpreterThatDoesNotExistIsAFailure) {
  const BackendUnavailable e = [] {
    try {
      make_backend()->open({{"python", "/nonexistent/python3"}});
    } catch (const BackendUnavailable& refused) {
      return refused;
    }
    return BackendUnavailable("opened", Unavailability::not_installed);
  }();
  EXPECT_EQ(e.reason(), Unavailability::unusable);
  EXPECT_NE(std::string(e.what()).find("/nonexistent/python3"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace fprev::python
