// Open MPI's ring allreduce as an order map over the vector's elements, derived by hand from its
// source (ompi/mca/coll/base/coll_base_allreduce.c, ompi_coll_base_allreduce_intra_ring, Open MPI
// 4.1):
//   * the count elements are split into P blocks (COLL_BASE_COMPUTE_BLOCKCOUNT): the first
//     count % P blocks ("early") hold count / P + 1 elements, the others count / P; block b
//     starts at b * (count / P + 1) for an early block, b * (count / P) + count % P otherwise;
//   * reduce-scatter phase: rank r sends its own block r to rank r + 1; in step k = 2 .. P - 1
//     rank r receives the partial sum of block (r - k + 1) mod P from rank r - 1, adds its own
//     value (rbuf[block] = inbuf op rbuf[block]) and passes it on; finally rank r adds its value
//     to block r + 1. So block b starts as rank b's value and collects ranks b + 1, b + 2, ...,
//     b + P - 1 (mod P) one at a time: a sequential sum over the ranks rotated to start at b;
//   * the allgather phase only copies the finished blocks, so every rank holds the same bits;
//   * with fewer elements than ranks the ring is not used: it calls the recursive doubling
//     allreduce (the balanced tree over the survivors of forced_algorithms_test.cpp).
#include "launch_test_support.hpp"

namespace fprev::mpi {
namespace {

using test::mpi_case;

// ((((b b+1) b+2) ...) b+P-1), leaves mod P.
Tree rotated_sequential(std::size_t ranks, std::size_t first) {
  TreeBuilder builder(ranks);
  NodeId sum = static_cast<NodeId>(first);
  for (std::size_t k = 1; k < ranks; ++k)
    sum = builder.add_node({sum, static_cast<NodeId>((first + k) % ranks)});
  return builder.build();
}

// The ring's block of element e.
std::size_t ring_block(std::size_t count, std::size_t ranks, std::size_t element) {
  const std::size_t late = count / ranks, split = count % ranks, early = late + (split != 0);
  return element < split * early ? element / early : split + (element - split * early) / late;
}

Params forced_ring() {
  return {{"library", "openmpi"}, {"tuning", "OMPI_MCA_coll_tuned_allreduce_algorithm=4"}};
}

void expect_ring_map(const BackendInstance& instance, int ranks, int count) {
  auto target = instance.make_target(mpi_case("allreduce", ranks, count));
  const RevealResult result = reveal(*target);
  const OrderMap& map = result.map;
  ASSERT_EQ(map.grid, (OutputGrid{static_cast<std::size_t>(count), 1}));
  EXPECT_EQ(map.classes.size(), static_cast<std::size_t>(ranks));
  EXPECT_TRUE(result.tree.empty()) << "one tree reported for a map of several classes";
  const auto p = static_cast<std::size_t>(ranks), n = static_cast<std::size_t>(count);
  for (std::size_t e = 0; e < n; ++e) {
    const Tree expected = rotated_sequential(p, ring_block(n, p, e));
    EXPECT_EQ(to_sexpr(map.class_at(e, 0).tree), to_sexpr(expected)) << "element " << e;
  }
}

TEST(MpiRingAllreduce, BlockLayoutAsInOpenMpi) {
  // 10 elements over 4 ranks: blocks of 3, 3, 2, 2.
  const std::vector<std::size_t> blocks = {0, 0, 0, 1, 1, 1, 2, 2, 3, 3};
  for (std::size_t e = 0; e < blocks.size(); ++e) EXPECT_EQ(ring_block(10, 4, e), blocks[e]);
  EXPECT_EQ(to_sexpr(rotated_sequential(4, 0)), "(((0 1) 2) 3)");
  EXPECT_EQ(to_sexpr(rotated_sequential(4, 2)), "((0 (2 3)) 1)");
}

TEST(MpiRingAllreduce, EveryBlockOfUnevenBlocksHasItsOwnRotatedOrder) {
  FPREV_OPEN_OR_SKIP(instance, forced_ring());
  expect_ring_map(*instance, 4, 10);
}

TEST(MpiRingAllreduce, RotatedOrdersOnANonPowerOfTwo) {
  FPREV_OPEN_OR_SKIP(instance, forced_ring());
  expect_ring_map(*instance, 5, 12);  // blocks of 3, 3, 2, 2, 2
}

TEST(MpiRingAllreduce, FewerElementsThanRanksFallBackToRecursiveDoubling) {
  FPREV_OPEN_OR_SKIP(instance, forced_ring());
  auto target = instance->make_target(mpi_case("allreduce", 5, 3));
  const RevealResult result = reveal(*target);
  EXPECT_EQ(result.map.classes.size(), 1u);
  EXPECT_EQ(to_sexpr(result.tree), "(((0 1) 2) (3 4))");
}

}  // namespace
}  // namespace fprev::mpi
