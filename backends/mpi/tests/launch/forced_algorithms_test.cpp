// Orders of forced algorithms, derived by hand from the libraries' sources, against the revealed
// trees.
//
// Open MPI 4.1 (ompi/mca/coll/base):
//   * basic linear reduce (coll_base_reduce.c, ompi_coll_base_reduce_intra_basic_linear): the
//     root starts from rank P-1's buffer and adds rank i's buffer for i = P-2 down to 0:
//     x0 + (x1 + (... + (x(P-2) + x(P-1)))). The linear allreduce (algorithm 1) is this reduce
//     to rank 0 followed by a broadcast.
//   * recursive doubling allreduce (coll_base_allreduce.c): with P' the largest power of two
//     <= P, the first 2(P - P') ranks fold pairwise (rank 2i into 2i+1), then log2(P') rounds
//     exchange with the partner at distance 1, 2, 4, ... among the P' survivors: a balanced tree
//     over the survivors' partial sums.
//   * binomial reduce (algorithm 5) runs the generic tree reduce over the in-order binomial tree
//     (coll_base_topo.c, ompi_coll_base_topo_build_in_order_bmtree): the children of vrank v
//     are v + 1, v + 2, v + 4, ... (while that bit of v is clear and the child < P); a node adds
//     its first child to its own value, then each further child to that partial sum
//     (ompi_coll_base_reduce_generic).
// MPICH 4.0 (src/mpi/coll): the binomial reduce (MPIR_Reduce_intra_binomial) and the recursive
// doubling allreduce (MPIR_Allreduce_intra_recursive_doubling) of a commutative operation build
// the same shapes as Open MPI's in-order binomial tree and recursive doubling. Its "smp"
// allreduce reduces inside each node to the node's first rank (MPIR_Reduce, binomial for short
// messages), combines the nodes and broadcasts: on one machine, the binomial reduce.
#include "launch_test_support.hpp"

namespace fprev::mpi {
namespace {

using test::mpi_case;
using test::reveal_sexpr;

Params open_mpi_forcing(const std::string& variable, int algorithm) {
  return {{"library", "openmpi"},
          {"tuning", "OMPI_MCA_coll_tuned_" + variable + "=" + std::to_string(algorithm)}};
}

TEST(MpiForcedOpenMpi, LinearAllreduceAddsFromTheLastRankDown) {
  FPREV_OPEN_OR_SKIP(instance, open_mpi_forcing("allreduce_algorithm", 1));
  EXPECT_EQ(reveal_sexpr(*instance, mpi_case("allreduce", 8)),
            "(0 (1 (2 (3 (4 (5 (6 7)))))))");
}

TEST(MpiForcedOpenMpi, LinearReduceInFloat32) {
  FPREV_OPEN_OR_SKIP(instance, open_mpi_forcing("reduce_algorithm", 1));
  EXPECT_EQ(reveal_sexpr(*instance, mpi_case("reduce", 5, 4, "float32")), "(0 (1 (2 (3 4))))");
}

TEST(MpiForcedOpenMpi, RecursiveDoublingIsBalancedOnAPowerOfTwo) {
  FPREV_OPEN_OR_SKIP(instance, open_mpi_forcing("allreduce_algorithm", 3));
  EXPECT_EQ(reveal_sexpr(*instance, mpi_case("allreduce", 8)), "(((0 1) (2 3)) ((4 5) (6 7)))");
}

TEST(MpiForcedOpenMpi, RecursiveDoublingFoldsTheExtraRanksFirst) {
  FPREV_OPEN_OR_SKIP(instance, open_mpi_forcing("allreduce_algorithm", 3));
  // 7 ranks: (0,1), (2,3), (4,5) fold into 3 survivors, 6 is the fourth.
  EXPECT_EQ(reveal_sexpr(*instance, mpi_case("allreduce", 7)), "(((0 1) (2 3)) ((4 5) 6))");
}

TEST(MpiForcedOpenMpi, BinomialReduceOnSixRanks) {
  FPREV_OPEN_OR_SKIP(instance, open_mpi_forcing("reduce_algorithm", 5));
  // In-order binomial tree of 6: 0 -> {1, 2, 4}, 2 -> {3}, 4 -> {5}. (The plain binomial tree,
  // 0 -> {1, 2, 4}, 1 -> {3, 5}, would give (((0 ((1 3) 5)) 2) 4).)
  EXPECT_EQ(reveal_sexpr(*instance, mpi_case("reduce", 6, 16)), "(((0 1) (2 3)) (4 5))");
}

TEST(MpiForcedOpenMpi, BinomialReduceOnFiveRanks) {
  FPREV_OPEN_OR_SKIP(instance, open_mpi_forcing("reduce_algorithm", 5));
  EXPECT_EQ(reveal_sexpr(*instance, mpi_case("reduce", 5)), "(((0 1) (2 3)) 4)");
}

TEST(MpiForcedMpich, BinomialReduceOnSixRanks) {
  FPREV_OPEN_OR_SKIP(instance, (Params{{"library", "mpich"},
                                       {"tuning", "MPIR_CVAR_REDUCE_INTRA_ALGORITHM=binomial"}}));
  EXPECT_EQ(reveal_sexpr(*instance, mpi_case("reduce", 6)), "(((0 1) (2 3)) (4 5))");
}

TEST(MpiForcedMpich, RecursiveDoublingAllreduceOnFiveRanks) {
  FPREV_OPEN_OR_SKIP(instance,
                     (Params{{"library", "mpich"},
                             {"tuning", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling"}}));
  // 5 ranks: (0, 1) fold into one survivor of 4.
  EXPECT_EQ(reveal_sexpr(*instance, mpi_case("allreduce", 5)), "(((0 1) 2) (3 4))");
}

TEST(MpiForcedMpich, SmpAllreduceIsTheBinomialReduceOnOneNode) {
  FPREV_OPEN_OR_SKIP(instance, (Params{{"library", "mpich"},
                                       {"tuning", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=smp"}}));
  EXPECT_EQ(reveal_sexpr(*instance, mpi_case("allreduce", 5)), "(((0 1) (2 3)) 4)");
}

}  // namespace
}  // namespace fprev::mpi
