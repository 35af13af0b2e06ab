// The pair grid of a GEMM: every l(i, j) of a whole class in one call, at the class's own elements.
//
// FPRev measures l(i, j) with +M at leaf i, -M at leaf j and units elsewhere (Xie et al., "FPRev:
// Revealing the Order of Floating-Point Summation by Numerical Testing", USENIX ATC 2025, Sec. 4).
// A GEMM's element (r, c) adds A[r][k] * B[k][c] over k, so with row r of op(A) holding a large
// factor at leaf a_r, column c of op(B) a large negative factor at leaf b_c and unit factors
// elsewhere (the crossed mask scheme, fprev/mask_scheme.hpp), element (r, c) measures
// l(a_r, b_c): a call of an R x C grid with R, C >= n answers all n(n - 1) ordered pairs at once,
// where one probe per row or column answers R + C. The calls are value calls with a block of
// op(B) per column (TargetInfo::column_right_factors), so every GEMM target takes them as it is.
//
// Two calls, the second with the rows' and the columns' leaves shuffled (or turned half way round),
// answer every pair at two elements in (almost always) different rows and columns. The map reveal (map_reveal.hpp) takes an
// answer for a class only where every element of that class that answered the pair agreed, and
// nothing for a class where two of its elements disagreed (the rounds then measure its probes on
// whole lines and split it as before); FPRev then reads its answers from these tables instead of
// waiting for rounds, so it asks the same probes and builds the same tree.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fprev/mask_scheme.hpp"
#include "fprev/reveal.hpp"
#include "fprev/target.hpp"

namespace fprev::detail {

// The leaves of one pair-grid call: row r carries +M at row_leaf[r], column c -M at column_leaf[c].
struct PairGridLayout {
  std::vector<std::uint32_t> row_leaf, column_leaf;
};

// Row r and column c take leaf r mod n and c mod n (none), each axis's leaves in an order shuffled
// by `seed` (every leaf still on at least one row and column), or leaf (r + n/2) mod n and
// (c + n/2) mod n (half_way: a pair moves to another row and another column).
enum class PairGridTurn : std::uint8_t { none, shuffled, half_way };
PairGridLayout pair_grid_layout(std::size_t n, std::size_t rows, std::size_t columns, PairGridTurn turn,
                                std::uint64_t seed);

// The value call of a layout: a (rows x n, row-major), b (n blocks of n: block j holds -M at leaf
// j) and the block of every column.
struct PairGridInputs {
  std::vector<double> a, b;
  std::vector<std::uint32_t> column_factors;
};
PairGridInputs pair_grid_inputs(const MaskScheme& crossed, std::size_t n, const PairGridLayout& layout);

// The crossed scheme where the pair grid applies to a reveal of `info` with `options`: a GEMM-like
// grid (column_right_factors) with at least n rows and n columns, 3 <= n <= kPairGridMaxLeaves
// (the tables hold n^2 answers per class), an algorithm that asks all-active probes (fprev,
// basic), and formats whose normal range holds the crossed factors. nullopt elsewhere (the
// reveal then runs its rounds as before).
inline constexpr std::size_t kPairGridMaxLeaves = 1024;
std::optional<MaskScheme> pair_grid_scheme(const TargetInfo& info, const RevealOptions& options,
                                           bool low_range_mode);

}  // namespace fprev::detail
