// Kernel families: which ones a CPU can run, and the platform keys of instances on injected CPUs
// of both vendors (AMD EPYC Zen 4 and Intel Xeon Sapphire Rapids with AVX-512, an AVX2-only AMD
// EPYC Zen 3). The features each CPU has are those its vendor documents for it; the keys never
// depend on which CPU it is, only on the family and the threads.
#include "fprev/blas/kernel_family.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "blas_test_support.hpp"
#include "fprev/blas/blas_backend.hpp"
#include "fprev/suite.hpp"

namespace fprev::blas {
namespace {

using testing::cpu_from_file;

std::vector<std::string> runnable(const CpuDescription& cpu) {
  std::vector<std::string> names;
  for (const auto& family : kernel_families())
    if (missing_features(family, cpu).empty()) names.emplace_back(family.name);
  return names;
}

TEST(KernelFamilies, HaveUniqueNamesAndFileNameSafeKeys) {
  std::set<std::string> names, keys;
  for (const auto& family : kernel_families()) {
    EXPECT_TRUE(names.emplace(family.name).second) << family.name;
    EXPECT_TRUE(keys.emplace(family.key).second) << family.key;
    EXPECT_TRUE(is_file_name_safe(platform_key(family.key, 2))) << family.key;
    EXPECT_EQ(family_key_from_name(family.name), family.key);
    EXPECT_EQ(find_kernel_family(family.name), &family);
    if (!family.openblas.empty()) {
      EXPECT_EQ(family_of_openblas_core(family.openblas), &family);
    }
    if (!family.blis.empty()) {
      EXPECT_EQ(family_of_blis_config(family.blis), &family);
    }
  }
  EXPECT_EQ(kernel_family_names().size(), kernel_families().size());
  EXPECT_EQ(find_kernel_family("haswell"), nullptr);  // the setting's spelling is exact
  EXPECT_EQ(family_of_openblas_core("HASWELL")->name, "Haswell");  // the library's is not
  EXPECT_EQ(family_of_blis_config("skx")->name, "SkylakeX");
  EXPECT_EQ(family_of_openblas_core("Piledriver"), nullptr);
  EXPECT_EQ(family_key_from_name("Opteron_SSE3"), "opteron_sse3");
  EXPECT_EQ(family_key_from_name(""), "unknown");
}

TEST(KernelFamilies, EachIntelGenerationNeedsWhatThePreviousOneNeeds) {
  const std::vector<std::string> line = {"Prescott", "Core2", "Nehalem", "Sandybridge",
                                         "Haswell", "SkylakeX", "Cooperlake", "SapphireRapids"};
  for (std::size_t i = 1; i < line.size(); ++i) {
    const auto& older = find_kernel_family(line[i - 1])->needs;
    const auto& newer = find_kernel_family(line[i])->needs;
    for (const auto feature : older)
      EXPECT_NE(std::find(newer.begin(), newer.end(), feature), newer.end())
          << line[i] << " lacks " << feature;
  }
}

TEST(KernelFamilies, AnAmdEpycZen4RunsEverythingUpToCooperlake) {
  const CpuDescription epyc = cpu_from_file("cpuinfo-amd-epyc-zen4.txt");
  EXPECT_EQ(runnable(epyc), (std::vector<std::string>{"Prescott", "Core2", "Nehalem", "Sandybridge",
                                                      "Haswell", "Zen", "SkylakeX", "Cooperlake"}));
  // Zen 4 has AVX-512 BF16 but neither AVX-512 FP16 nor AMX.
  const auto missing = missing_features(*find_kernel_family("SapphireRapids"), epyc);
  EXPECT_NE(std::find(missing.begin(), missing.end(), "avx512_fp16"), missing.end());
  EXPECT_NE(std::find(missing.begin(), missing.end(), "amx_tile"), missing.end());
  EXPECT_TRUE(missing_features(*find_kernel_family("Zen"), epyc, true).empty());  // BLIS zen too
}

TEST(KernelFamilies, AnIntelXeonSapphireRapidsRunsEveryOpenBlasFamilyButNotBlisZen) {
  const CpuDescription xeon = cpu_from_file("cpuinfo-intel-xeon-sapphirerapids.txt");
  EXPECT_EQ(runnable(xeon).size(), kernel_families().size());
  EXPECT_EQ(unrunnable_families(xeon), "none");
  // BLIS builds its zen configuration for AMD (-march=znver1): SSE4a, which Intel CPUs lack.
  EXPECT_EQ(missing_features(*find_kernel_family("Zen"), xeon, true),
            std::vector<std::string>{"sse4a"});
}

TEST(KernelFamilies, AnAvx2OnlyHostLacksExactlyTheAvx512Families) {
  const CpuDescription avx2 = cpu_from_file("cpuinfo-amd-epyc-zen3-avx2.txt");
  EXPECT_EQ(runnable(avx2), (std::vector<std::string>{"Prescott", "Core2", "Nehalem",
                                                      "Sandybridge", "Haswell", "Zen"}));
  EXPECT_EQ(runnable_families(avx2), "Prescott, Core2, Nehalem, Sandybridge, Haswell, Zen");
  EXPECT_EQ(missing_features(*find_kernel_family("SkylakeX"), avx2),
            (std::vector<std::string>{"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}));
  EXPECT_EQ(unrunnable_families(avx2).rfind("SkylakeX (needs avx512f, avx512cd, avx512bw, "
                                            "avx512dq, avx512vl), Cooperlake (needs avx512f",
                                            0),
            0u)
      << unrunnable_families(avx2);
}

// ---- platform keys of instances on injected CPUs ------------------------------------------------

std::unique_ptr<BackendInstance> open_on(const CpuDescription& cpu, const std::string& kernel,
                                         int threads = 1) {
  unsetenv(kLibraryEnvironmentVariable);
  return make_backend(cpu)->open(
      {{"library", "openblas"}, {"kernel", kernel}, {"threads", std::to_string(threads)}});
}

// The injected CPU decides which families may be forced, but never beyond what this machine can
// execute: where this machine lacks a family's features, the instance is unavailable here too.
bool this_machine_runs(const std::string& kernel) {
  return missing_features(*find_kernel_family(kernel), describe_cpu()).empty();
}

TEST(KernelFamilyKeys, AreTheSameOnCpusOfBothVendorsAndNeverNameTheCpu) {
  for (const std::string kernel : {"Haswell", "SkylakeX"}) {
    if (!this_machine_runs(kernel)) continue;
    for (const std::string file :
         {"cpuinfo-amd-epyc-zen4.txt", "cpuinfo-intel-xeon-sapphirerapids.txt"}) {
      const CpuDescription cpu = cpu_from_file(file);
      for (const int threads : {1, 2}) {
        const Identity id = open_on(cpu, kernel, threads)->identity();
        EXPECT_EQ(id.platform_key,
                  std::string(find_kernel_family(kernel)->key) + "-t" + std::to_string(threads))
            << file;
        EXPECT_EQ(id.details.at("cpu_model"), cpu.model);  // metadata only
        EXPECT_EQ(id.details.at("kernel_family"), kernel);
      }
    }
  }
}

TEST(KernelFamilyKeys, AnAvx2OnlyHostSkipsAvx512FamiliesNamingTheMissingFeatures) {
  const CpuDescription avx2 = cpu_from_file("cpuinfo-amd-epyc-zen3-avx2.txt");
  for (const std::string kernel : {"SkylakeX", "Cooperlake", "SapphireRapids"}) {
    try {
      open_on(avx2, kernel);
      ADD_FAILURE() << kernel << " was forced on a host without AVX-512";
    } catch (const BackendUnavailable& e) {
      EXPECT_EQ(e.reason(), Unavailability::host_cannot_run) << e.what();
      // The injected CPU is limited to this machine's features, so the list may name more than
      // avx512f (a VM that hides "abm" from its guests): avx512f must be among them.
      const std::string what = e.what();
      const std::string expected = "cannot run the " + kernel + " kernels: it lacks ";
      const std::size_t at = what.find(expected);
      ASSERT_NE(at, std::string::npos) << what;
      EXPECT_NE(what.find("avx512f", at), std::string::npos) << what;
    }
  }
  if (!this_machine_runs("Haswell")) GTEST_SKIP() << "this machine cannot run Haswell kernels";
  for (const std::string kernel : {"Sandybridge", "Haswell"})
    EXPECT_EQ(open_on(avx2, kernel)->identity().platform_key,
              std::string(find_kernel_family(kernel)->key) + "-t1");
}

TEST(KernelFamilyKeys, WithoutAKernelTheKeyIsTheFamilyOpenBlasPicksByItself) {
  unsetenv(kLibraryEnvironmentVariable);
  const Identity id = make_backend()->open({{"library", "openblas"}})->identity();
  const std::string core = id.details.at("core");
  const KernelFamily* family = family_of_openblas_core(core);
  const std::string key = family != nullptr ? std::string(family->key) : family_key_from_name(core);
  EXPECT_EQ(id.platform_key, key + "-t1");
  EXPECT_EQ(id.details.at("kernel_family"), core);
  EXPECT_EQ(id.platform_key.find("xeon"), std::string::npos);
  EXPECT_EQ(id.platform_key.find("epyc"), std::string::npos);
}

TEST(KernelFamilyKeys, HostFactsListTheFamiliesForTheEnvCommand) {
  const auto facts = make_backend(cpu_from_file("cpuinfo-amd-epyc-zen3-avx2.txt"))->host_facts();
  ASSERT_EQ(facts.size(), 3u);
  EXPECT_EQ(facts[1].first, "kernel_families_runnable");
  EXPECT_EQ(facts[2].first, "kernel_families_not_runnable");
  // Limited to this machine's features: an injected CPU never claims more than is here.
  EXPECT_EQ(facts[1].second.find("SkylakeX"), std::string::npos) << facts[1].second;
  const std::size_t skylakex = facts[2].second.find("SkylakeX (needs ");
  ASSERT_NE(skylakex, std::string::npos) << facts[2].second;
  EXPECT_NE(facts[2].second.substr(skylakex, facts[2].second.find(')', skylakex) - skylakex).find("avx512f"),
            std::string::npos)
      << facts[2].second;
}

}  // namespace
}  // namespace fprev::blas
