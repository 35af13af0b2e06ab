// The platform key of the blas backend: the part of the machine under which a golden tree of a CPU
// BLAS stays valid.
//
// The key is built from the CPU (model name and widest vector instruction set) and the thread
// count, never from the library: a new OpenBLAS version, or another BLAS pointed at the same suite
// with FPREV_BLAS_LIBRARY, must be compared with the existing golden (and produce a diff), not
// find "no golden for this platform". Library name, version, build configuration and the kernel
// family it dispatched to (OpenBLAS core name, BLIS arch) are identity metadata.
#pragma once

#include <string>
#include <string_view>

namespace fprev::blas {

struct CpuDescription {
  std::string model;  // as the system reports it, e.g. "AMD EPYC 7B13 64-Core Processor"
  std::string isa;    // widest vector ISA the libraries may dispatch on: avx512, avx2, avx, sse, or
                      // the machine name on other architectures (aarch64, ppc64le, ...)
};

// Reads /proc/cpuinfo (x86: "model name" and "flags"; other architectures: the first of
// "model name", "cpu model", "Processor", "uarch", "CPU part"), falling back to uname().
CpuDescription describe_cpu();

// Parses the text of a /proc/cpuinfo (exposed for tests); `machine` is uname's machine name.
CpuDescription describe_cpu_from(std::string_view cpuinfo, std::string_view machine);

// Lower-case [a-z0-9] words joined by '-', without the marketing noise that does not identify the
// CPU: "(R)", "(TM)", "CPU", "Processor", "n-Core", the "@ 2.90GHz" clock. At most 48 characters.
// "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz" -> "intel-xeon-platinum-8375c".
std::string sanitize_cpu_model(std::string_view model);

// "<sanitized model>-<isa>-t<threads>", e.g. "amd-epyc-7b13-avx2-t1". File-name safe.
std::string platform_key(const CpuDescription& cpu, int threads);

}  // namespace fprev::blas
