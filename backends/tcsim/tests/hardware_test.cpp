// tcsim's Hopper model held against an NVIDIA H200: the trees cuBLAS 13.1 gave there, as recorded
// in the goldens under golden/sm90-132sm-*/cublas/ by scripts/gpu-run (backends/cublas/README.md).
// The expected trees come from the hardware, not from this program: each test reveals the model
// with the tiling the hardware tree shows (cuBLAS chose split-K for long k) and compares the trees
// exactly, so a change of the model that the hardware does not share fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "fprev/backends/tcsim.hpp"
#include "fprev/golden.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"

namespace {

using fprev::Format;
using namespace fprev::tcsim;

fprev::Tree hardware_tree(const std::string& key, const std::string& instance, const std::string& id) {
  const std::filesystem::path path = std::filesystem::path(FPREV_SOURCE_GOLDEN_DIR) / key / "cublas" /
                                     instance / (id + ".golden");
  return fprev::read_golden(path).tree();
}

fprev::Tree model_tree(Format input, std::size_t k, std::size_t k_tile, std::size_t split_k) {
  GemmTargetSpec s;
  s.model = arch_model(Arch::hopper);
  s.config.k_tile = k_tile;
  s.config.split_k = split_k;
  s.input = input;
  s.k = k;
  auto target = make_tcsim_target(s);
  return fprev::reveal(*target).tree;
}

// Xie et al., USENIX ATC 2025 Sec. 7 (16+1 on H100), and the same on an H200 for bfloat16.
TEST(TcsimHardware, Float16AndBfloat16AreSixteenPlusOne) {
  const auto fp16 = hardware_tree("sm90-132sm-default", "cublas-default", "gemm_ex-float16-float32-m64n64k256");
  EXPECT_EQ(model_tree(Format::float16, 256, 64, 1), fp16) << fprev::to_sexpr(fp16);
  const auto bf16 = hardware_tree("sm90-132sm-default", "cublas-default", "gemm_ex-bfloat16-float32-m64n64k32");
  EXPECT_EQ(model_tree(Format::bfloat16, 32, 64, 1), bf16) << fprev::to_sexpr(bf16);
}

// tf32 adds 8 products per step (wgmma k = 8); for k = 1024 cuBLAS splits k into 16 slices of 64,
// added in slice order: tcsim's split-K with k_tile 32.
TEST(TcsimHardware, Tf32IsEightPlusOneAndSplitKSixteen) {
  const auto small = hardware_tree("sm90-132sm-default", "cublas-default", "gemm_ex-tf32-m64n64k32");
  EXPECT_EQ(model_tree(Format::tf32, 32, 64, 1), small) << fprev::to_sexpr(small);
  const auto split = hardware_tree("sm90-132sm-default", "cublas-default", "gemm_ex-tf32-m64n64k1024");
  EXPECT_EQ(model_tree(Format::tf32, 1024, 32, 16), split);
}

// fp8_e4m3: k = 32 is one fused sum of 32 products (wgmma k = 32).
TEST(TcsimHardware, Fp8AddsThirtyTwoProductsInOneStep) {
  const auto fp8 = hardware_tree("sm90-132sm-default", "cublas-default", "lt_matmul-fp8_e4m3-float32-m64n64k32");
  EXPECT_EQ(model_tree(Format::fp8_e4m3, 32, 64, 1), fp8) << fprev::to_sexpr(fp8);
}

}  // namespace
