// The CPU the blas backend runs on, and the platform key of its goldens.
//
// The key names what decides a CPU BLAS's accumulation order and nothing else: the kernel family
// the library runs (OpenBLAS's core, BLIS's configuration; "generic" for portable code such as the
// netlib reference BLAS) and the thread count, e.g. "haswell-t1". Never the CPU's marketing name
// (a cloud VM says "Intel(R) Xeon(R) Processor" for very different chips, and two vendors' CPUs run
// the same kernels), never the library or its version (an upgrade must be compared with the old
// golden). See backends/blas/README.md, "Platform key".
//
// The CPU description says which instructions this machine can execute, so that a kernel family it
// cannot run is skipped with the missing feature named, never forced (OpenBLAS does not check, and
// would die on an illegal instruction). It is injectable: tests pass a description, and the
// environment variable FPREV_BLAS_CPUINFO names a file in /proc/cpuinfo format that simulates
// another host (its features limited to this CPU's, so a simulation never lets a library execute
// an instruction this CPU lacks).
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace fprev::blas {

inline constexpr const char* kCpuinfoEnvironmentVariable = "FPREV_BLAS_CPUINFO";

struct CpuDescription {
  std::string vendor;   // "GenuineIntel", "AuthenticAMD", ... ("" when not told)
  std::string model;    // the marketing string: identity metadata only, never in a key
  std::string machine;  // uname's machine name: x86_64, aarch64, ...
  std::set<std::string> features;  // /proc/cpuinfo "flags" (x86) or "Features" (ARM)

  bool has(std::string_view feature) const { return features.count(std::string(feature)) != 0; }
  // The widest x86 vector ISA among the features (avx512, avx2, avx, sse), else the machine name:
  // metadata for people reading an identity.
  std::string widest_vector_isa() const;
};

// Parses the text of a /proc/cpuinfo (the first processor's fields); `machine` is uname's.
CpuDescription describe_cpu_from(std::string_view cpuinfo, std::string_view machine);

// This machine: /proc/cpuinfo and uname(). With FPREV_BLAS_CPUINFO set, the described host of that
// file instead, its features limited to this machine's (see above). Throws BackendUnavailable
// (unusable) when the variable names a file that cannot be read.
CpuDescription describe_cpu();

// `simulated` with only the features `real` has too.
CpuDescription limit_features(CpuDescription simulated, const CpuDescription& real);

// "<family key>-t<threads>", e.g. "haswell-t1", "skylakex-t2", "generic-t1". File-name safe.
std::string platform_key(std::string_view family_key, int threads);

}  // namespace fprev::blas
