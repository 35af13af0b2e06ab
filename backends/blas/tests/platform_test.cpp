#include "fprev/blas/platform.hpp"

#include <gtest/gtest.h>

#include <cctype>

namespace fprev::blas {
namespace {

bool file_name_safe(const std::string& key) {
  if (key.empty()) return false;
  for (char c : key) {
    const auto u = static_cast<unsigned char>(c);
    if (!(std::islower(u) || std::isdigit(u) || c == '-' || c == '_' || c == '.')) return false;
  }
  return std::isalnum(static_cast<unsigned char>(key.front())) != 0;
}

TEST(BlasPlatform, SanitizesMarketingNamesToTheModel) {
  EXPECT_EQ(sanitize_cpu_model("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"),
            "intel-xeon-platinum-8375c");
  EXPECT_EQ(sanitize_cpu_model("AMD EPYC 7B13 64-Core Processor"), "amd-epyc-7b13");
  EXPECT_EQ(sanitize_cpu_model("Intel(R) Core(TM) i7-8700K CPU @ 3.70GHz"),
            "intel-core-i7-8700k");
  EXPECT_EQ(sanitize_cpu_model("AMD EPYC"), "amd-epyc");
  EXPECT_EQ(sanitize_cpu_model("   "), "unknown-cpu");
  EXPECT_LE(sanitize_cpu_model(std::string(200, 'x') + " y").size(), 48u);
}

TEST(BlasPlatform, ReadsModelAndWidestVectorIsaFromCpuinfo) {
  const std::string x86 =
      "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n"
      "flags\t\t: fpu sse sse2 avx avx2 fma avx512f avx512bw\n\nprocessor\t: 1\n"
      "model name\t: Something Else\n";
  const CpuDescription cpu = describe_cpu_from(x86, "x86_64");
  EXPECT_EQ(cpu.model, "Intel(R) Xeon(R) CPU @ 2.20GHz");  // the first processor's
  EXPECT_EQ(cpu.isa, "avx512");

  EXPECT_EQ(describe_cpu_from("model name : X\nflags : sse sse2 avx avx2 fma\n", "x86_64").isa,
            "avx2");
  // avx2 without fma: kernels built for Haswell (which needs both) do not run.
  EXPECT_EQ(describe_cpu_from("model name : X\nflags : sse2 avx avx2\n", "x86_64").isa, "avx");
  EXPECT_EQ(describe_cpu_from("model name : X\nflags : sse sse2\n", "x86_64").isa, "sse");
}

TEST(BlasPlatform, OtherArchitecturesUseTheirOwnFields) {
  const CpuDescription arm =
      describe_cpu_from("processor : 0\nCPU implementer : 0x41\nCPU part : 0xd0c\n", "aarch64");
  EXPECT_EQ(arm.model, "arm-0x41-0xd0c");
  EXPECT_EQ(arm.isa, "aarch64");
  const CpuDescription bare = describe_cpu_from("", "riscv64");
  EXPECT_EQ(bare.model, "riscv64");
  EXPECT_EQ(platform_key(bare, 1), "riscv64-riscv64-t1");
}

TEST(BlasPlatform, KeyIsModelIsaThreadsAndFileNameSafe) {
  const CpuDescription cpu{"AMD EPYC 7B13 64-Core Processor", "avx2"};
  EXPECT_EQ(platform_key(cpu, 1), "amd-epyc-7b13-avx2-t1");
  EXPECT_EQ(platform_key(cpu, 2), "amd-epyc-7b13-avx2-t2");
  EXPECT_TRUE(file_name_safe(platform_key(cpu, 16)));
  EXPECT_TRUE(file_name_safe(platform_key(describe_cpu(), 1))) << platform_key(describe_cpu(), 1);
}

TEST(BlasPlatform, ThisMachineIsDescribedTheSameEveryTime) {
  const CpuDescription a = describe_cpu(), b = describe_cpu();
  EXPECT_FALSE(a.model.empty());
  EXPECT_FALSE(a.isa.empty());
  EXPECT_EQ(a.model, b.model);
  EXPECT_EQ(platform_key(a, 1), platform_key(b, 1));
}

}  // namespace
}  // namespace fprev::blas
