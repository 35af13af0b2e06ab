// Kernel families: the sets of kernels a CPU BLAS runs on a class of CPUs (OpenBLAS's cores, BLIS's
// configurations). The family, with the thread count, decides a BLAS's accumulation order: its
// kernels' unrolling and vector width, and its blocking constants, are compiled per family. A host
// can run every family whose instructions its CPU has, so one runner checks the orders of a whole
// fleet (the `kernel` setting forces a family: OPENBLAS_CORETYPE, BLIS_ARCH_TYPE).
//
// The table covers the x86-64 families of OpenBLAS's DYNAMIC_ARCH builds from Prescott on, and
// BLIS's x86-64 configurations that have an OpenBLAS counterpart. Each lists the CPU features
// (/proc/cpuinfo flags) its kernels may execute: the vector extensions they are written in and
// what the compiler may use for the family's -march.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fprev/blas/platform.hpp"

namespace fprev::blas {

struct KernelFamily {
  std::string_view name;      // as the `kernel` setting spells it: "SkylakeX"
  std::string_view key;       // in platform keys: "skylakex"
  std::string_view openblas;  // OPENBLAS_CORETYPE value and openblas_get_corename(); "" if none
  std::string_view blis;      // BLIS configuration (bli_arch_string); "" if none
  std::vector<std::string_view> needs;       // CPU features its kernels may execute
  std::vector<std::string_view> blis_needs;  // more features BLIS's build for it may execute
};

// Every family, oldest first.
const std::vector<KernelFamily>& kernel_families();
// The `kernel` setting's allowed values, in the table's order.
std::vector<std::string> kernel_family_names();
// By its `kernel` name ("Haswell"); nullptr when unknown.
const KernelFamily* find_kernel_family(std::string_view name);
// The family of an OpenBLAS core name or BLIS configuration, compared without case; nullptr when
// the table does not know it ("Piledriver", "zen3": their key is then the library's own name).
const KernelFamily* family_of_openblas_core(std::string_view core);
const KernelFamily* family_of_blis_config(std::string_view config);

// The features `family` needs that `cpu` lacks (with BLIS's extra ones when `for_blis`); empty
// when the CPU can run it.
std::vector<std::string> missing_features(const KernelFamily& family, const CpuDescription& cpu,
                                          bool for_blis = false);

// "Prescott, Core2, ..., SkylakeX": the families `cpu` can run with OpenBLAS.
std::string runnable_families(const CpuDescription& cpu);
// "Cooperlake (needs avx512_bf16), ...": those it cannot, each with the features it lacks.
std::string unrunnable_families(const CpuDescription& cpu);

// A library's own name for a family it runs, made file-name safe for a key: lower-case letters
// and digits, other characters as '_' ("Opteron_SSE3" -> "opteron_sse3"); "unknown" when empty.
std::string family_key_from_name(std::string_view name);

}  // namespace fprev::blas
