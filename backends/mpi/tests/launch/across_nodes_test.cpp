// Jobs placed by a hostfile or a host list (what runs across the nodes of an allocation), on this
// one machine: the ranks connect over TCP with the job's token, the tree is the one the same
// ranks give without a hostfile, the key carries the layout, and a job whose ranks did not run
// where the layout says fails.
#include <netdb.h>
#include <unistd.h>

#include <climits>
#include <set>

#include "launch_test_support.hpp"

namespace fprev::mpi {
namespace {

using test::contains;
using test::mpi_case;
using test::reveal_sexpr;
using test::TempDir;

// Reveals a 4-rank allreduce with the instance opened from `settings`, checks that its job ran
// over TCP on one node, and returns the tree.
std::string reveal_placed(const BackendInstance& instance, const Params& c) {
  auto target = instance.make_target(c);
  auto* collective = dynamic_cast<CollectiveTarget*>(target.get());
  if (collective == nullptr) {
    ADD_FAILURE() << "not a collective target";
    return "";
  }
  EXPECT_TRUE(collective->job().config().over_tcp);
  const auto& names = collective->job().hello().processor_names;
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), 1u);
  return to_sexpr(reveal(*target).tree);
}

void expect_same_tree_with_a_hostfile(const std::string& library,
                                      const std::string& hostfile_line) {
  TempDir dir;
  const std::string hostfile = dir.write("hostfile", "# this machine\n" + hostfile_line + "\n");
  FPREV_OPEN_OR_SKIP(plain, (Params{{"library", library}}));
  FPREV_OPEN_OR_SKIP(placed, (Params{{"library", library}, {"hostfile", hostfile},
                                     {"ranks_per_node", "4"}}));
  const Identity id = placed->identity();
  EXPECT_EQ(id.platform_key, library + "+1x4");
  EXPECT_EQ(id.details.at("layout"), "1 node x 4 ranks per node");
  EXPECT_EQ(id.details.count("launch_failure"), 0u) << id.details.at("launch_failure");
  EXPECT_EQ(plain->identity().platform_key, library);
  for (const int count : {1, 64}) {
    const Params c = mpi_case("allreduce", 4, count);
    EXPECT_EQ(reveal_placed(*placed, c), reveal_sexpr(*plain, c)) << "count " << count;
  }
  // Fewer ranks would not fill the layout the key states.
  EXPECT_THROW(placed->validate_case(mpi_case("allreduce", 2)), ConfigError);
}

TEST(MpiAcrossNodes, OpenMpiWithAHostfileRevealsTheSameTreeUnderALayoutKey) {
  expect_same_tree_with_a_hostfile("openmpi", "localhost slots=4");
}

TEST(MpiAcrossNodes, MpichWithAHostfileRevealsTheSameTreeUnderALayoutKey) {
  expect_same_tree_with_a_hostfile("mpich", "localhost:4");
}

TEST(MpiAcrossNodes, OpenMpiWithAHostList) {
  FPREV_OPEN_OR_SKIP(placed, (Params{{"library", "openmpi"}, {"hosts", "localhost"},
                                     {"ranks_per_node", "3"}}));
  EXPECT_EQ(placed->identity().platform_key, "openmpi+1x3");
  // Recursive doubling over 3 ranks (backends/mpi/README.md).
  EXPECT_EQ(reveal_placed(*placed, mpi_case("allreduce", 3)), "((0 1) 2)");
}

// Two names of this machine are one node: MPICH runs all four ranks here, and the job must fail
// rather than file a one-node tree under a two-node key. (Open MPI sees through the alias and
// refuses to start: ppr 2 on one node cannot hold 4 ranks.)
TEST(MpiAcrossNodes, AJobWhoseRanksDidNotRunWhereTheLayoutSaysFails) {
  char host[HOST_NAME_MAX + 1] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  addrinfo* found = nullptr;
  if (::getaddrinfo(host, nullptr, nullptr, &found) != 0)
    GTEST_SKIP() << "this machine's name " << host << " does not resolve";
  ::freeaddrinfo(found);
  FPREV_OPEN_OR_SKIP(placed, (Params{{"library", "mpich"},
                                     {"hosts", std::string("localhost,") + host},
                                     {"ranks_per_node", "2"},
                                     {"timeout", "20"}}));
  EXPECT_EQ(placed->identity().platform_key, "mpich+2x2");
  try {
    placed->make_target(mpi_case("allreduce", 4));
    FAIL() << "a 2-node key for a job on one node";
  } catch (const TargetError& e) {
    EXPECT_TRUE(contains(e.what(), "ranks 0-3 ran on ")) << e.what();
    EXPECT_TRUE(contains(e.what(), "1 node, not the 2 nodes x 2 ranks per node")) << e.what();
  }
}

}  // namespace
}  // namespace fprev::mpi
