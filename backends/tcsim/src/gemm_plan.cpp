// The accumulation schedule of the simulated GEMM: split-K slices of whole tiles, tiles walked in
// order, each cut into accelerator steps.
#include <algorithm>
#include <stdexcept>

#include "fprev/backends/tcsim/gemm.hpp"

namespace fprev::tcsim {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Appends the steps of the tile [tile_begin, tile_begin + k_tile) clipped to the real elements
// [lo, hi): the padding outside [lo, hi) is zero and adds nothing.
void add_tile_steps(std::ptrdiff_t tile_begin, std::size_t k_tile, std::size_t step,
                    std::size_t lo, std::size_t hi, std::vector<KRange>& steps) {
  const auto first = static_cast<std::ptrdiff_t>(lo), last = static_cast<std::ptrdiff_t>(hi);
  for (std::size_t offset = 0; offset < k_tile; offset += step) {
    const std::ptrdiff_t begin = tile_begin + static_cast<std::ptrdiff_t>(offset);
    const std::ptrdiff_t b = std::max(begin, first);
    const std::ptrdiff_t e = std::min(begin + static_cast<std::ptrdiff_t>(step), last);
    if (b < e) steps.push_back({static_cast<std::size_t>(b), static_cast<std::size_t>(e)});
  }
}

std::vector<KRange> slice_steps(std::size_t lo, std::size_t hi, std::size_t k_tile,
                                std::size_t step, KResidue residue) {
  std::vector<KRange> steps;
  const std::size_t partial = (hi - lo) % k_tile;
  std::size_t full_begin = lo;
  if (residue == KResidue::first && partial != 0) {
    // The partial tile first, its real elements at the end of a tile that starts before lo.
    const auto tile_begin =
        static_cast<std::ptrdiff_t>(lo + partial) - static_cast<std::ptrdiff_t>(k_tile);
    add_tile_steps(tile_begin, k_tile, step, lo, hi, steps);
    full_begin = lo + partial;
  }
  // Full tiles, then (residue last) the partial tile padded at its end.
  for (std::size_t t = full_begin; t < hi; t += k_tile)
    add_tile_steps(static_cast<std::ptrdiff_t>(t), k_tile, step, lo, hi, steps);
  return steps;
}

}  // namespace

std::string_view to_string(SplitKReduction reduction) {
  return reduction == SplitKReduction::sequential ? "sequential" : "pairwise";
}
std::string_view to_string(KResidue residue) {
  return residue == KResidue::first ? "first" : "last";
}
std::string_view to_string(CPlacement placement) {
  return placement == CPlacement::epilogue ? "epilogue" : "accumulator";
}

std::optional<SplitKReduction> parse_split_k_reduction(std::string_view name) {
  for (auto r : {SplitKReduction::sequential, SplitKReduction::pairwise})
    if (to_string(r) == name) return r;
  return std::nullopt;
}
std::optional<KResidue> parse_k_residue(std::string_view name) {
  for (auto r : {KResidue::first, KResidue::last})
    if (to_string(r) == name) return r;
  return std::nullopt;
}
std::optional<CPlacement> parse_c_placement(std::string_view name) {
  for (auto p : {CPlacement::epilogue, CPlacement::accumulator})
    if (to_string(p) == name) return p;
  return std::nullopt;
}

GemmPlan plan_gemm(std::size_t k, std::size_t step, const GemmConfig& config) {
  if (k == 0) throw std::invalid_argument("tcsim gemm: k must be at least 1");
  if (step == 0) throw std::invalid_argument("tcsim gemm: the step must be at least 1");
  if (config.split_k == 0) throw std::invalid_argument("tcsim gemm: split_k must be at least 1");
  if (config.k_tile == 0 || config.k_tile % step != 0) {
    throw std::invalid_argument("tcsim gemm: k_tile (" + std::to_string(config.k_tile) +
                                ") must be a positive multiple of the step (" +
                                std::to_string(step) + ")");
  }
  GemmPlan plan;
  plan.k = k;
  plan.step = step;
  plan.config = config;
  // Whole tiles per slice, so that only the last slice has a partial tile.
  plan.slice_size = ceil_div(ceil_div(k, config.k_tile), config.split_k) * config.k_tile;
  for (std::size_t lo = 0; lo < k; lo += plan.slice_size) {
    const std::size_t hi = std::min(k, lo + plan.slice_size);
    plan.slices.push_back(slice_steps(lo, hi, config.k_tile, step, config.residue));
  }
  return plan;
}

}  // namespace fprev::tcsim
