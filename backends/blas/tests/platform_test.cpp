// The CPU description (parsed from /proc/cpuinfo, injectable) and the platform key.
#include "fprev/blas/platform.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "blas_test_support.hpp"
#include "fprev/backend.hpp"

namespace fprev::blas {
namespace {

using testing::cpu_from_file;
using testing::test_data;

TEST(BlasCpu, ReadsVendorModelAndFeaturesOfTheFirstProcessor) {
  const std::string text =
      "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n"
      "flags\t\t: fpu sse sse2 avx avx2 fma avx512f\n\nprocessor\t: 1\n"
      "model name\t: Something Else\nflags\t\t: sse2 amx_tile\n";
  const CpuDescription cpu = describe_cpu_from(text, "x86_64");
  EXPECT_EQ(cpu.vendor, "GenuineIntel");
  EXPECT_EQ(cpu.model, "Intel(R) Xeon(R) CPU @ 2.20GHz");
  EXPECT_EQ(cpu.machine, "x86_64");
  EXPECT_TRUE(cpu.has("avx512f"));
  EXPECT_TRUE(cpu.has("sse2"));
  EXPECT_FALSE(cpu.has("amx_tile"));  // the second processor's line is not read
  EXPECT_FALSE(cpu.has("avx5"));      // whole words only
  EXPECT_EQ(cpu.widest_vector_isa(), "avx512");
}

TEST(BlasCpu, WidestVectorIsaIsMetadataForPeople) {
  EXPECT_EQ(describe_cpu_from("flags : sse sse2 avx avx2 fma\n", "x86_64").widest_vector_isa(),
            "avx2");
  // avx2 without fma: not what Haswell-class kernels need
  EXPECT_EQ(describe_cpu_from("flags : sse2 avx avx2\n", "x86_64").widest_vector_isa(), "avx");
  EXPECT_EQ(describe_cpu_from("flags : sse sse2\n", "x86_64").widest_vector_isa(), "sse");
  const CpuDescription arm =
      describe_cpu_from("processor : 0\nCPU implementer : 0x41\nCPU part : 0xd0c\n"
                        "Features : fp asimd sve\n",
                        "aarch64");
  EXPECT_EQ(arm.widest_vector_isa(), "aarch64");
  EXPECT_EQ(arm.vendor, "0x41");
  EXPECT_TRUE(arm.has("sve"));
  EXPECT_EQ(describe_cpu_from("", "riscv64").model, "riscv64");
}

TEST(BlasCpu, TheInjectedHostsAreReadFromTheirCpuinfo) {
  const CpuDescription epyc = cpu_from_file("cpuinfo-amd-epyc-zen4.txt");
  EXPECT_EQ(epyc.vendor, "AuthenticAMD");
  EXPECT_EQ(epyc.model, "AMD EPYC 9654 96-Core Processor");
  EXPECT_TRUE(epyc.has("avx512_bf16"));
  EXPECT_FALSE(epyc.has("avx512_fp16"));
  const CpuDescription xeon = cpu_from_file("cpuinfo-intel-xeon-sapphirerapids.txt");
  EXPECT_EQ(xeon.vendor, "GenuineIntel");
  EXPECT_TRUE(xeon.has("amx_tile"));
  const CpuDescription avx2 = cpu_from_file("cpuinfo-amd-epyc-zen3-avx2.txt");
  EXPECT_TRUE(avx2.has("avx2"));
  EXPECT_FALSE(avx2.has("avx512f"));
}

TEST(BlasCpu, ASimulatedHostNeverGetsFeaturesTheRealOneLacks) {
  const CpuDescription real = describe_cpu_from("flags : sse2 pni avx avx2 fma\n", "x86_64");
  const CpuDescription limited = limit_features(cpu_from_file("cpuinfo-amd-epyc-zen4.txt"), real);
  EXPECT_EQ(limited.model, "AMD EPYC 9654 96-Core Processor");
  EXPECT_EQ(limited.features, (std::set<std::string>{"sse2", "pni", "avx", "avx2", "fma"}));
}

class SimulatedHost : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv(kCpuinfoEnvironmentVariable); }
};

TEST_F(SimulatedHost, TheEnvironmentVariableNamesTheCpuinfoToUse) {
  const CpuDescription real = describe_cpu();
  setenv(kCpuinfoEnvironmentVariable, test_data("cpuinfo-amd-epyc-zen3-avx2.txt").c_str(), 1);
  const CpuDescription simulated = describe_cpu();
  EXPECT_EQ(simulated.model, "AMD EPYC 7B13");
  EXPECT_FALSE(simulated.has("avx512f"));
  for (const auto& feature : simulated.features) EXPECT_TRUE(real.has(feature)) << feature;
  unsetenv(kCpuinfoEnvironmentVariable);
  EXPECT_EQ(describe_cpu().model, real.model);
}

TEST_F(SimulatedHost, AFileThatCannotBeReadIsAnErrorNotTheRealCpu) {
  setenv(kCpuinfoEnvironmentVariable, "/nonexistent/cpuinfo", 1);
  try {
    describe_cpu();
    FAIL() << "read a file that does not exist";
  } catch (const BackendUnavailable& e) {
    EXPECT_EQ(e.reason(), Unavailability::unusable);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/cpuinfo"), std::string::npos) << e.what();
  }
}

TEST(BlasPlatformKey, IsTheFamilyAndTheThreads) {
  EXPECT_EQ(platform_key("haswell", 1), "haswell-t1");
  EXPECT_EQ(platform_key("skylakex", 2), "skylakex-t2");
  EXPECT_EQ(platform_key("generic", 1), "generic-t1");
}

TEST(BlasCpu, ThisMachineIsDescribedTheSameEveryTime) {
  const CpuDescription a = describe_cpu(), b = describe_cpu();
  EXPECT_FALSE(a.model.empty());
  EXPECT_EQ(a.model, b.model);
  EXPECT_EQ(a.features, b.features);
}

}  // namespace
}  // namespace fprev::blas
