// MPICH ranks that give their cores up while they wait (the probe's --idle-yield, probe/
// idle_yield.hpp): the probe's interposed UCX progress call is really reached (the ranks report
// yields), only when asked, and the revealed order and arithmetic are the same either way.
#include "fprev/fingerprint.hpp"

#include "launch_test_support.hpp"

namespace fprev::mpi {
namespace {

using test::mpi_case;

struct Outcome {
  std::string tree;
  std::string digest;
  std::uint64_t idle_yields = 0;
};

Outcome reveal_with(const std::string& idle_yield, const Params& c) {
  Outcome o;
  auto instance = test::open_mpi(Params{{"library", "mpich"}, {"idle_yield", idle_yield}});
  auto target = instance->make_target(c);
  const RevealResult revealed = reveal(*target);
  o.tree = to_sexpr(revealed.tree);
  o.digest = measure_fingerprint(*target, revealed.tree).digest();
  o.idle_yields = dynamic_cast<CollectiveTarget&>(*target).job().idle_yields();
  return o;
}

TEST(MpiIdleYield, MpichRanksYieldWhenAskedAndAddInTheSameOrder) {
  FPREV_OPEN_OR_SKIP(probe_instance, (Params{{"library", "mpich"}}));
  // 5 ranks: MPICH's shared-memory allreduce (a tree of 5), more ranks than CI's 2 cores.
  const Params c = mpi_case("allreduce", 5);
  const Outcome spinning = reveal_with("false", c);
  const Outcome yielding = reveal_with("true", c);
  EXPECT_EQ(spinning.idle_yields, 0u);
  EXPECT_GT(yielding.idle_yields, 0u) << "the probe's ucp_worker_progress was never reached";
  EXPECT_EQ(yielding.tree, spinning.tree);
  EXPECT_EQ(yielding.digest, spinning.digest);
}

TEST(MpiIdleYield, OpenMpiIsLeftAsItIs) {
  FPREV_OPEN_OR_SKIP(instance, (Params{{"library", "openmpi"}, {"idle_yield", "true"}}));
  auto target = instance->make_target(mpi_case("allreduce", 3));
  EXPECT_EQ(reveal(*target).tree.leaf_count(), 3u);
  EXPECT_EQ(dynamic_cast<CollectiveTarget&>(*target).job().idle_yields(), 0u);
}

}  // namespace
}  // namespace fprev::mpi
