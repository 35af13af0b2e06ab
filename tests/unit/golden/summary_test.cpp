#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "fprev/sexpr.hpp"
#include "fprev/summary.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

// Independent constructions of each pattern as S-expression text, straight from the definitions
// (parse_sexpr accepts children in any order and canonicalises).
std::string leaf(std::size_t i) { return std::to_string(i); }

std::string chain_text(const std::vector<std::string>& items) {
  std::string acc = items[0];
  for (std::size_t i = 1; i < items.size(); ++i) acc = "(" + acc + " " + items[i] + ")";
  return acc;
}

std::string halving_text(const std::vector<std::string>& items, std::size_t begin, std::size_t end) {
  if (end - begin == 1) return items[begin];
  const std::size_t m = (end - begin) / 2;
  return "(" + halving_text(items, begin, begin + m) + " " + halving_text(items, begin + m, end) + ")";
}

std::vector<std::string> leaves(std::size_t begin, std::size_t end, std::size_t step = 1) {
  std::vector<std::string> out;
  for (std::size_t i = begin; i < end; i += step) out.push_back(leaf(i));
  return out;
}

Tree sequential_tree(std::size_t n) { return parse_sexpr(chain_text(leaves(0, n))); }
Tree reverse_tree(std::size_t n) {
  std::vector<std::string> items;
  for (std::size_t i = n; i-- > 0;) items.push_back(leaf(i));
  return parse_sexpr(chain_text(items));
}
Tree pairwise_tree(std::size_t n) {
  const auto items = leaves(0, n);
  return parse_sexpr(halving_text(items, 0, n));
}
Tree strided_tree(std::size_t n, std::size_t k, bool pairwise) {
  std::vector<std::string> lanes;
  for (std::size_t r = 0; r < std::min(k, n); ++r) lanes.push_back(chain_text(leaves(r, n, k)));
  return parse_sexpr(pairwise ? halving_text(lanes, 0, lanes.size()) : chain_text(lanes));
}
Tree blocked_tree(std::size_t n, std::size_t b) {
  std::vector<std::string> blocks;
  for (std::size_t begin = 0; begin < n; begin += b)
    blocks.push_back(chain_text(leaves(begin, std::min(n, begin + b))));
  return parse_sexpr(chain_text(blocks));
}
Tree fused_tree(std::size_t n, std::size_t w) {
  std::string acc = "(";
  std::size_t next = 0;
  for (; next < std::min(n, w); ++next) acc += (next ? " " : "") + leaf(next);
  acc += ")";
  while (next < n) {
    std::string node = "(" + acc;
    for (std::size_t taken = 0; taken + 1 < w && next < n; ++taken, ++next) node += " " + leaf(next);
    acc = node + ")";
  }
  return parse_sexpr(acc);
}

std::string describe(const Tree& tree) { return summarize(tree).description; }

TEST(Summary, CountsDepthAndArity) {
  const TreeSummary summary = summarize(parse_sexpr("(((0 1 2) 3 4) (5 6))"));
  EXPECT_EQ(summary.leaves, 7u);
  EXPECT_EQ(summary.inner_nodes, 4u);
  EXPECT_EQ(summary.depth, 3u);
  EXPECT_EQ(summary.arity, (std::map<std::size_t, std::size_t>{{2, 2}, {3, 2}}));
  EXPECT_EQ(summary.max_arity, 3u);
  EXPECT_EQ(format_arity(summary.arity), "{2: 2, 3: 2}");
  EXPECT_FALSE(summary.recognized);
  EXPECT_EQ(summary.description, "multiway tree: fused 3-term sums, depth 3");
  // The depth once: the summary names it before the description.
  EXPECT_EQ(format_summary(summary), "7 leaves, depth 3, arity {2: 2, 3: 2}, multiway tree: fused 3-term sums");
}

TEST(Summary, RecognisesSequentialReverseAndPairwise) {
  for (std::size_t n : {2u, 5u, 64u, 1000u}) {
    SCOPED_TRACE(n);
    EXPECT_EQ(describe(sequential_tree(n)), "sequential");
  }
  for (std::size_t n : {4u, 5u, 1000u}) {
    SCOPED_TRACE(n);
    EXPECT_EQ(describe(reverse_tree(n)), "reverse sequential");
  }
  for (std::size_t n : {4u, 6u, 7u, 1000u, 1024u}) {
    SCOPED_TRACE(n);
    EXPECT_EQ(describe(pairwise_tree(n)), "pairwise");
  }
  TreeBuilder single(1);
  EXPECT_EQ(describe(single.build()), "single summand");
  EXPECT_EQ(format_summary(summarize(single.build())), "1 leaf, depth 0, arity {}, single summand");
}

TEST(Summary, RecognisesStridedLanes) {
  for (std::size_t n : {10u, 1000u, 1024u}) {
    for (std::size_t k : {2u, 3u, 4u, 5u, 8u, 16u, 32u, 64u}) {
      if (k >= n) continue;
      SCOPED_TRACE("n=" + std::to_string(n) + " k=" + std::to_string(k));
      EXPECT_EQ(describe(strided_tree(n, k, true)),
                std::to_string(k) + " lanes strided, lanes combined pairwise");
      if (k >= 3) {  // with two lanes both combinations are the same tree
        EXPECT_EQ(describe(strided_tree(n, k, false)),
                  std::to_string(k) + " lanes strided, lanes combined sequentially");
      }
    }
  }
}

TEST(Summary, RecognisesBlocksAndFusedGroups) {
  for (std::size_t n : {1000u, 1024u}) {
    for (std::size_t b : {3u, 4u, 64u, 100u}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " b=" + std::to_string(b));
      const std::size_t last = n % b;
      EXPECT_EQ(describe(blocked_tree(n, b)),
                "blocks of " + std::to_string(b) + " summed sequentially, block sums added sequentially" +
                    (last == 0   ? std::string()
                     : last == 1 ? std::string(", then the last summand added")
                                 : ", the last block of " + std::to_string(last)));
    }
    for (std::size_t w : {3u, 5u, 9u, 17u}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " w=" + std::to_string(w));
      EXPECT_EQ(describe(fused_tree(n, w)), "fused groups of " + std::to_string(w));
    }
  }
  EXPECT_EQ(describe(parse_sexpr("(0 1 2 3 4)")), "one fused sum of 5 summands");
}

TEST(Summary, PatternBuildersMatchTheDefinitions) {
  using patterns::LaneCombine;
  for (std::size_t n : {1u, 2u, 3u, 7u, 100u}) {
    SCOPED_TRACE(n);
    EXPECT_TRUE(patterns::sequential(n) == sequential_tree(n));
    EXPECT_TRUE(patterns::reverse(n) == reverse_tree(n));
    EXPECT_TRUE(patterns::pairwise(n) == pairwise_tree(n));
    for (std::size_t k : {1u, 3u, 8u, 200u}) {
      EXPECT_TRUE(patterns::strided(n, k, LaneCombine::pairwise) == strided_tree(n, k, true));
      EXPECT_TRUE(patterns::strided(n, k, LaneCombine::sequential) == strided_tree(n, k, false));
    }
    for (std::size_t b : {1u, 4u, 150u}) EXPECT_TRUE(patterns::blocked(n, b) == blocked_tree(n, b));
    if (n >= 2) {
      for (std::size_t w : {2u, 5u, 17u}) EXPECT_TRUE(patterns::fused_groups(n, w) == fused_tree(n, w));
    }
  }
  EXPECT_EQ(to_sexpr(patterns::pairwise(3)), "(0 (1 2))");  // the left half is the smaller one
  EXPECT_EQ(to_sexpr(patterns::strided(5, 2, LaneCombine::pairwise)), "(((0 2) 4) (1 3))");
  EXPECT_EQ(to_sexpr(patterns::fused_groups(6, 3)), "(((0 1 2) 3 4) 5)");
  EXPECT_THROW(patterns::fused_groups(5, 1), std::invalid_argument);
}

// A vector kernel's dot, as OpenBLAS's and BLIS's x86 kernels write it: a main loop over the largest
// multiple of `unroll` summands with K lanes (lane r adds x[r], x[r+K], ...), the lane sums combined
// in pairs, pairs of pairs, ... by the lane pairing `stride_order` gives (the vector registers are
// added first, then the lanes within one register), then the tail added one by one.
std::string vector_kernel_text(std::size_t n, std::size_t k, std::size_t unroll, bool tail_separately = false) {
  const std::size_t main = n / unroll * unroll;
  std::vector<std::string> lanes;
  for (std::size_t r = 0; r < k; ++r) lanes.push_back(chain_text(leaves(r, main, k)));
  // combine lane r with lane r + half first (registers added element-wise), halving down to one
  while (lanes.size() > 1) {
    const std::size_t half = lanes.size() / 2;
    std::vector<std::string> next;
    for (std::size_t r = 0; r < half; ++r) next.push_back("(" + lanes[r] + " " + lanes[r + half] + ")");
    lanes = next;
  }
  if (main == n) return lanes[0];
  if (tail_separately && n - main >= 2) return "(" + lanes[0] + " " + chain_text(leaves(main, n)) + ")";
  std::vector<std::string> items{lanes[0]};
  for (const auto& l : leaves(main, n)) items.push_back(l);
  return chain_text(items);
}
Tree vector_kernel_tree(std::size_t n, std::size_t k, std::size_t unroll, bool tail_separately = false) {
  return parse_sexpr(vector_kernel_text(n, k, unroll, tail_separately));
}

// The S-expression with every leaf index moved by `offset`.
std::string shifted(const std::string& text, std::size_t offset) {
  std::string out, number;
  for (const char c : text + " ") {
    if (c >= '0' && c <= '9') {
      number += c;
      continue;
    }
    if (!number.empty()) out += std::to_string(std::stoul(number) + offset);
    number.clear();
    out += c;
  }
  out.pop_back();
  return out;
}

TEST(Summary, OneStructureOneDescriptionAtEverySize) {
  // OpenBLAS Haswell ddot (16 lanes, 32 per iteration), BLIS's and OpenBLAS's 32-lane sdot, an
  // 8-accumulator Eigen-like dot: the lanes get the same words at every size, with the tail named.
  for (const auto& [k, unroll] : {std::pair<std::size_t, std::size_t>{16, 32}, {32, 32}, {8, 8}}) {
    for (const std::size_t n : std::vector<std::size_t>{4 * unroll, 1000, 1024, 4096 + 7, 33 * unroll + 1}) {
      SCOPED_TRACE("k=" + std::to_string(k) + " n=" + std::to_string(n));
      const std::string lanes = std::to_string(k) + " lanes strided, lanes combined pairwise";
      const std::size_t tail = n % unroll;
      const std::string expected =
          tail == 0 ? lanes
                    : lanes + (tail == 1 ? ", then the last summand added"
                                         : ", then the last " + std::to_string(tail) + " summands added one by one");
      EXPECT_EQ(describe(vector_kernel_tree(n, k, unroll)), expected);
      if (tail >= 2) {
        EXPECT_EQ(describe(vector_kernel_tree(n, k, unroll, true)),
                  lanes + ", the last " + std::to_string(tail) + " summed sequentially on their own, then added");
      }
    }
  }
  // The sizes that are not multiples of the lane count spread over the lanes (NumPy-like).
  for (std::size_t n : {1001u, 1003u, 1015u}) EXPECT_EQ(describe(strided_tree(n, 16, true)), "16 lanes strided, lanes combined pairwise");
}

TEST(Summary, BlocksWithATailAddedAfterThem) {
  // A dgemv T kernel (blocks of 4 rows) with beta = 1: y is leaf m, added after the last rows; the
  // same words as its siblings, whatever m.
  for (std::size_t m : {64u, 1008u, 1009u, 1011u}) {
    SCOPED_TRACE(m);
    const std::size_t main = m / 4 * 4;
    std::vector<std::string> items{chain_text(leaves(0, 4))};
    for (std::size_t b = 4; b < main; b += 4) items.push_back(chain_text(leaves(b, b + 4)));
    for (const auto& l : leaves(main, m + 1)) items.push_back(l);
    const std::size_t tail = m + 1 - main;
    // (one summand after the blocks is a last block of one: the same words)
    EXPECT_EQ(describe(parse_sexpr(chain_text(items))),
              "blocks of 4 summed sequentially, block sums added sequentially" +
                  (tail == 1 ? std::string(", then the last summand added")
                             : ", then the last " + std::to_string(tail) + " summands added one by one"));
  }
}

TEST(Summary, BlocksOfDifferentSizes) {
  // OpenBLAS's GEMM over k = 1001: k-blocks of 256, 256, then the rest split in two, each summed
  // sequentially by the micro-kernel and added to C; with beta = 1, C (leaf k) added last.
  const std::vector<std::size_t> sizes{256, 256, 248, 241};
  std::vector<std::string> blocks;
  std::size_t first = 0;
  for (const std::size_t size : sizes) {
    blocks.push_back(chain_text(leaves(first, first + size)));
    first += size;
  }
  EXPECT_EQ(describe(parse_sexpr(chain_text(blocks))),
            "blocks of 256, 256, 248 and 241 summed sequentially, block sums added sequentially");
  blocks.push_back(leaf(first));
  EXPECT_EQ(describe(parse_sexpr(chain_text(blocks))),
            "blocks of 256, 256, 248 and 241 summed sequentially, block sums added sequentially, then the last "
            "summand added");
}

TEST(Summary, TheLastSummandJoiningTheFirstBlock) {
  // GEMV and GEMM with beta = 1: y / C is the last leaf, and OpenBLAS adds it to the first block's
  // sum; the rest reads as its beta = 0 sibling does.
  for (const std::size_t block : {8u, 256u}) {
    SCOPED_TRACE(block);
    const std::size_t n = 4 * block;
    std::vector<std::string> items{"(" + chain_text(leaves(0, block)) + " " + leaf(n) + ")"};
    for (std::size_t b = block; b < n; b += block) items.push_back(chain_text(leaves(b, b + block)));
    EXPECT_EQ(describe(parse_sexpr(chain_text(items))),
              describe(blocked_tree(n, block)) + "; summand " + std::to_string(n) +
                  " (the last) added to the sum of summands 0-" + std::to_string(block - 1));
  }
}

TEST(Summary, OneVectorOfLanesAndATail) {
  // sdot of 33 with 32 lanes: one summand per lane, the lanes combined in pairs (registers first),
  // then x32 added: the words of its n = 1000 sibling's lanes.
  // (OpenBLAS 0.3.21's Sandybridge sdot of 33, as revealed: golden/sandybridge-t1/blas-cpu)
  EXPECT_EQ(describe(parse_sexpr("((((((0 4) (8 12)) ((16 20) (24 28))) (((1 5) (9 13)) ((17 21) (25 29)))) "
                                 "((((2 6) (10 14)) ((18 22) (26 30))) (((3 7) (11 15)) ((19 23) (27 31))))) 32)")),
            "32 lanes strided (one summand each), lanes combined pairwise, then the last summand added");
  EXPECT_EQ(describe(parse_sexpr("(" + to_sexpr(patterns::pairwise(32)) + " 32)")), "pairwise, then the last summand added");
}

TEST(Summary, EqualPartsSplitBetweenThreads) {
  // A dot split between 2 threads: each half a 16-lane kernel with its tail, the halves added.
  for (const std::size_t half : {1000u, 8192u}) {
    SCOPED_TRACE(half);
    const std::string part = vector_kernel_text(half, 16, 32);
    const std::string each = describe(parse_sexpr(part));
    ASSERT_NE(each.find("16 lanes strided"), std::string::npos) << each;
    EXPECT_EQ(describe(parse_sexpr("(" + part + " " + shifted(part, half) + ")")),
              "2 parts of " + std::to_string(half) + " summands, each " + each + "; part sums added sequentially");
  }
  // Parts of different shapes are not "parts of the same pattern".
  const Tree mixed = parse_sexpr("(" + vector_kernel_text(64, 16, 32) + " " + shifted(to_sexpr(patterns::pairwise(64)), 64) + ")");
  EXPECT_EQ(describe(mixed), "binary tree, depth " + std::to_string(mixed.depth()));
}

TEST(Summary, FallsBackToAGenericDescription) {
  const Tree binary = random_binary_tree(500, std::uint64_t{3});
  EXPECT_EQ(describe(binary), "binary tree, depth " + std::to_string(binary.depth()));
  // Close to patterns but none of them: a pairwise sum of 3 and one more summand (a block of one
  // first is no block).
  EXPECT_EQ(describe(parse_sexpr("((0 (1 2)) 3)")), "binary tree, depth 3");
  // Blocks need not be of one size: this is blocks of 3 and 2, then a tail.
  EXPECT_EQ(describe(parse_sexpr("((((0 1) 2) (3 4)) 5)")),
            "blocks of 3 and 2 summed sequentially, block sums added sequentially, then the last summand added");
  const Tree multiway = random_multiway_tree(500, 6, std::uint64_t{4});
  ASSERT_GT(multiway.max_arity(), 2u);
  EXPECT_EQ(describe(multiway), "multiway tree: " + fused_widths(multiway.arity_histogram()) +
                                    ", depth " + std::to_string(multiway.depth()));
}

TEST(Summary, NamesTheFusedSums) {
  EXPECT_EQ(fused_widths({{2, 5}}), "no fused sums");
  EXPECT_EQ(fused_widths({{2, 5}, {4, 3}}), "fused 4-term sums");
  EXPECT_EQ(fused_widths({{3, 1}, {4, 3}}), "fused 3- and 4-term sums");
  EXPECT_EQ(fused_widths({{2, 1}, {3, 1}, {5, 2}, {9, 1}}), "fused 3-, 5- and 9-term sums");
  EXPECT_EQ(describe(parse_sexpr("(((0 1 2 3) 4 5 6) (7 8))")),
            "multiway tree: fused 4-term sums, depth 3");
}

TEST(Summary, IsFastForAHundredThousandLeaves) {
  // No time is asserted; this keeps the cost visible in the test's duration.
  constexpr std::size_t n = 100000;
  EXPECT_EQ(describe(left_deep_tree(n)), "sequential");
  EXPECT_EQ(describe(right_deep_tree(n)), "reverse sequential");
  EXPECT_EQ(describe(balanced_tree(65536)), "pairwise");  // level-by-level = halving for 2^k
}

}  // namespace
}  // namespace fprev
