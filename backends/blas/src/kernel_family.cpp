#include "fprev/blas/kernel_family.hpp"

#include <algorithm>
#include <cctype>

namespace fprev::blas {
namespace {

using Features = std::vector<std::string_view>;

Features with(Features base, const Features& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

const std::vector<KernelFamily>& kernel_families() {
  // Feature sets, each family's on top of the one before ("pni" is /proc/cpuinfo's name for SSE3,
  // "abm" for LZCNT). Haswell's include what -march=haswell lets a compiler use (BLIS builds its
  // haswell configuration with it), so a host missing them is skipped rather than crashed.
  static const Features kPrescott = {"sse2", "pni"};
  static const Features kCore2 = with(kPrescott, {"ssse3"});
  static const Features kNehalem = with(kCore2, {"sse4_1", "sse4_2", "popcnt"});
  static const Features kSandybridge = with(kNehalem, {"avx"});
  static const Features kHaswell =
      with(kSandybridge, {"avx2", "fma", "f16c", "bmi1", "bmi2", "movbe", "abm"});
  static const Features kSkylakeX =
      with(kHaswell, {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"});
  static const Features kCooperlake = with(kSkylakeX, {"avx512_vnni", "avx512_bf16"});
  static const Features kSapphireRapids =
      with(kCooperlake, {"avx512_fp16", "avx512vbmi", "avx512_vbmi2", "avx512ifma", "avx512_bitalg",
                         "avx512_vpopcntdq", "amx_tile", "amx_bf16", "amx_int8"});
  // OpenBLAS's Zen family runs AVX2/FMA kernels (its own blocking constants); BLIS builds its zen
  // configuration with -march=znver1, which may use AMD's SSE4a.
  static const std::vector<KernelFamily> families = {
      {"Prescott", "prescott", "Prescott", "", kPrescott, {}},
      {"Core2", "core2", "Core2", "", kCore2, {}},
      {"Nehalem", "nehalem", "Nehalem", "", kNehalem, {}},
      {"Sandybridge", "sandybridge", "Sandybridge", "sandybridge", kSandybridge, {}},
      {"Haswell", "haswell", "Haswell", "haswell", kHaswell, {}},
      {"Zen", "zen", "Zen", "zen", kHaswell, {"sse4a"}},
      {"SkylakeX", "skylakex", "SkylakeX", "skx", kSkylakeX, {}},
      {"Cooperlake", "cooperlake", "Cooperlake", "", kCooperlake, {}},
      {"SapphireRapids", "sapphirerapids", "SapphireRapids", "", kSapphireRapids, {}},
  };
  return families;
}

std::vector<std::string> kernel_family_names() {
  std::vector<std::string> names;
  for (const auto& family : kernel_families()) names.emplace_back(family.name);
  return names;
}

const KernelFamily* find_kernel_family(std::string_view name) {
  for (const auto& family : kernel_families())
    if (family.name == name) return &family;
  return nullptr;
}

const KernelFamily* family_of_openblas_core(std::string_view core) {
  for (const auto& family : kernel_families())
    if (!family.openblas.empty() && lower(family.openblas) == lower(core)) return &family;
  return nullptr;
}

const KernelFamily* family_of_blis_config(std::string_view config) {
  for (const auto& family : kernel_families())
    if (!family.blis.empty() && family.blis == lower(config)) return &family;
  return nullptr;
}

std::vector<std::string> missing_features(const KernelFamily& family, const CpuDescription& cpu,
                                          bool for_blis) {
  std::vector<std::string> missing;
  const auto check = [&](const Features& features) {
    for (const auto feature : features)
      if (!cpu.has(feature)) missing.emplace_back(feature);
  };
  check(family.needs);
  if (for_blis) check(family.blis_needs);
  return missing;
}

std::string runnable_families(const CpuDescription& cpu) {
  std::vector<std::string> names;
  for (const auto& family : kernel_families())
    if (missing_features(family, cpu).empty()) names.emplace_back(family.name);
  return names.empty() ? "none" : join(names);
}

std::string unrunnable_families(const CpuDescription& cpu) {
  std::vector<std::string> entries;
  for (const auto& family : kernel_families()) {
    const auto missing = missing_features(family, cpu);
    if (!missing.empty())
      entries.push_back(std::string(family.name) + " (needs " + join(missing) + ")");
  }
  return entries.empty() ? "none" : join(entries);
}

std::string family_key_from_name(std::string_view name) {
  std::string key;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    key += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '_';
  }
  if (key.empty()) return "unknown";
  if (!std::isalnum(static_cast<unsigned char>(key.front()))) key.insert(key.begin(), 'x');
  return key;
}

}  // namespace fprev::blas
