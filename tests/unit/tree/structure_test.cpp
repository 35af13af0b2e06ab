// Structural descriptions: every tree survives describe -> text -> parse -> expand unchanged, the
// structures kernels produce come out as a few lines (checked against descriptions derived by hand),
// and malformed or non-canonical text is refused with its line and column.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fprev/sexpr.hpp"
#include "fprev/structure.hpp"
#include "fprev/summary.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

std::vector<std::string_view> views(const std::vector<std::string>& lines) {
  return {lines.begin(), lines.end()};
}

// describe, write, parse and expand; every step must give back the same thing.
std::vector<std::string> round_trip(const Tree& tree) {
  const StructureDescription description = describe_structure(tree);
  EXPECT_EQ(expand_structure(description), tree);
  const std::vector<std::string> lines = structure_lines(description);
  const StructureDescription parsed = parse_structure(views(lines), tree.leaf_count(), 1u << 20);
  EXPECT_EQ(parsed, description);
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

TEST(Structure, RandomBinaryAndMultiwayTreesRoundTrip) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const std::size_t n = 1 + seed % 97;
    round_trip(random_binary_tree(n, seed));
    round_trip(random_multiway_tree(n, 2 + seed % 5, seed));
  }
  round_trip(random_binary_tree(5000, 7));
  round_trip(random_multiway_tree(5000, 17, 8));
}

TEST(Structure, SingleLeafHasNoTemplate) {
  EXPECT_TRUE(round_trip(parse_sexpr("0")).empty());
}

TEST(Structure, SequentialOfAMillionLeavesIsOneLine) {
  EXPECT_EQ(joined(round_trip(patterns::sequential(1000000))), "T1 = chain(0..999999)\n");
  // The first node is (998 999): children are ordered by their smallest leaf.
  EXPECT_EQ(joined(round_trip(patterns::reverse(1000))), "T1 = chain(998 999 997..0)\n");
}

TEST(Structure, PairwiseOfAPowerOfTwoIsOneLinePerLevel) {
  EXPECT_EQ(joined(round_trip(patterns::pairwise(8))),
            "T1 = (0 1)\n"
            "T2 = (T1 T1@2)\n"
            "T3 = (T2 T2@4)\n");
  EXPECT_EQ(round_trip(patterns::pairwise(1 << 20)).size(), 20u);
  // Other sizes: the halving rule gives at most two sizes per level.
  EXPECT_LE(round_trip(patterns::pairwise(1000003)).size(), 2u * 21u);
}

TEST(Structure, FusedGroupsAreOneFusedChain) {
  // Hopper-style 17-term steps: the first node fuses 17 summands, each later one the running sum
  // and 16 more.
  EXPECT_EQ(joined(round_trip(patterns::fused_groups(100, 17))), "T1 = chain/17(0..99)\n");
}

// The 33-leaf float32 dot OpenBLAS runs with its AVX-512 kernels (Cooperlake family): 32 lanes of
// one element each... here 8 lanes strided by 8, combined as ((l0 l4) (l1 l5)) ((l2 l6) (l3 l7)),
// then the tail element 32. The lines below are derived by hand from that description.
TEST(Structure, OpenBlasStyleLanesDerivedByHand) {
  const Tree tree = parse_sexpr(
      "(((((((0 8) 16) 24) (((4 12) 20) 28)) ((((1 9) 17) 25) (((5 13) 21) 29))) "
      "(((((2 10) 18) 26) (((6 14) 22) 30)) ((((3 11) 19) 27) (((7 15) 23) 31)))) 32)");
  EXPECT_EQ(joined(round_trip(tree)),
            "T1 = chain(0..24:8)\n"   // lane 0: 0 + 8 + 16 + 24
            "T2 = (T1 T1@4)\n"        // lanes 0 and 4
            "T3 = (T2 T2@1)\n"        // lanes {0,4} and {1,5}
            "T4 = chain(T3 T3@2 32)\n");  // halves {0,4,1,5} and {2,6,3,7}, then the tail
}

// A 10^6-element dot in the same style, with two threads: each thread takes one half (32 lanes
// strided by 32, the lanes combined pairwise, its tail added one by one), the halves are added.
Tree two_thread_dot(std::size_t n) {
  TreeBuilder builder(n);
  std::vector<NodeId> halves;
  for (std::size_t begin : {std::size_t{0}, n / 2}) {
    const std::size_t end = begin == 0 ? n / 2 : n;
    const std::size_t main = (end - begin) / 32 * 32;
    std::vector<NodeId> lanes;
    for (std::size_t lane = 0; lane < 32; ++lane) {
      NodeId acc = static_cast<NodeId>(begin + lane);
      for (std::size_t k = begin + lane + 32; k < begin + main; k += 32)
        acc = builder.add_node({acc, static_cast<NodeId>(k)});
      lanes.push_back(acc);
    }
    while (lanes.size() > 1) {
      std::vector<NodeId> next;
      for (std::size_t i = 0; i < lanes.size(); i += 2) next.push_back(builder.add_node({lanes[i], lanes[i + 1]}));
      lanes = next;
    }
    NodeId acc = lanes[0];
    for (std::size_t k = begin + main; k < end; ++k) acc = builder.add_node({acc, static_cast<NodeId>(k)});
    halves.push_back(acc);
  }
  builder.add_node({halves[0], halves[1]});
  return builder.build();
}

TEST(Structure, AMillionLeafTwoThreadDotIsAFewLines) {
  const std::vector<std::string> lines = round_trip(two_thread_dot(1000000));
  // A lane chain, five levels of pairing, the tail chain, and the two halves: 500000 = 15625 * 32
  // leaves per half, so the halves are translations of each other and share their templates.
  EXPECT_EQ(joined(lines),
            "T1 = chain(0..499968:32)\n"
            "T2 = (T1 T1@1)\n"
            "T3 = (T2 T2@2)\n"
            "T4 = (T3 T3@4)\n"
            "T5 = (T4 T4@8)\n"
            "T6 = (T5 T5@16)\n"
            "T7 = (T6 T6@500000)\n");
}

TEST(Structure, MalformedTextIsRefusedWithItsPosition) {
  const auto error_of = [](std::vector<std::string> lines, std::size_t leaves) -> StructureError {
    try {
      parse_structure(views(lines), leaves);
    } catch (const StructureError& e) {
      return e;
    }
    ADD_FAILURE() << "accepted: " << joined(lines);
    return StructureError(0, 0, "");
  };
  StructureError e = error_of({"T1 = (0 1)", "T3 = (T1 2)"}, 3);
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.column(), 2u);
  e = error_of({"T1 = (0 T2)"}, 2);
  EXPECT_EQ(e.line(), 1u);
  EXPECT_NE(e.message().find("not defined before"), std::string::npos);
  e = error_of({"T1 = chain(00..5)"}, 6);
  EXPECT_NE(e.message().find("leading zero"), std::string::npos);
  e = error_of({"T1 = chain(0..5:2)"}, 6);
  EXPECT_NE(e.message().find("does not reach 5"), std::string::npos);
  e = error_of({"T1 = chain(0..5"}, 6);
  EXPECT_EQ(e.column(), 16u);
  e = error_of({"T1 = chain(0..6)"}, 6);  // leaf 6 of 6
  EXPECT_NE(e.message().find("7 leaves, expected 6"), std::string::npos);
  e = error_of({"T1 = (0 0 2)"}, 3);
  EXPECT_NE(e.message().find("do not form a tree"), std::string::npos);
  e = error_of({"T1 = chain(0 1)"}, 2);  // one node must be written as a node
  EXPECT_NE(e.message().find("canonical"), std::string::npos);
  e = error_of({"T1 = (0 1)", "T2 = (T1@0..4294967295 2)"}, 3);
  EXPECT_NE(e.message().find("2^32"), std::string::npos);
  e = error_of({std::string(5000, 'x')}, 3);
  EXPECT_NE(e.message().find("longer than"), std::string::npos);
  EXPECT_THROW(parse_structure({}, 3), StructureError);
}

}  // namespace
}  // namespace fprev
