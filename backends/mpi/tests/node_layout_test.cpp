// Running across nodes without a job: the hostfile, hosts and ranks_per_node settings, reading
// hostfiles of both families, the layout in the platform key, the launcher arguments, cases of
// the wrong rank count, and the check of where a job's ranks ran.
#include <gtest/gtest.h>

#include <filesystem>
#include <tuple>
#include <utility>

#include "hostfile.hpp"
#include "launcher.hpp"
#include "mpi_settings.hpp"
#include "mpi_test_support.hpp"
#include "node_layout.hpp"

namespace fprev::mpi {
namespace {

using test::contains;
using test::TempDir;

Settings parse(const Params& params) {
  return parse_settings(resolve_params(instance_param_specs(), params, "test"));
}

// The ConfigError `parse` throws (its parameter and message), or a test failure.
ConfigError parse_error(const Params& params) {
  try {
    parse(params);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted " << params.begin()->first << ": " << params.begin()->second;
  return ConfigError("", "");
}

std::optional<NodeLayout> layout_of(Family family, const Params& params) {
  return node_layout(family, parse(params));
}

TEST(MpiNodeSettings, NoneByDefault) {
  const Settings s = parse({});
  EXPECT_TRUE(s.hostfile.empty());
  EXPECT_TRUE(s.hosts.empty());
  EXPECT_EQ(s.ranks_per_node, 0);
  EXPECT_FALSE(s.places_ranks());
  EXPECT_EQ(node_layout(Family::openmpi, s), std::nullopt);
}

TEST(MpiNodeSettings, HostsAreACommaSeparatedList) {
  const Settings s = parse({{"hosts", "node-1, node-2.cluster,node_3"}, {"ranks_per_node", "4"}});
  EXPECT_EQ(s.hosts, (std::vector<std::string>{"node-1", "node-2.cluster", "node_3"}));
  EXPECT_EQ(s.ranks_per_node, 4);
  EXPECT_TRUE(s.names_nodes());
}

TEST(MpiNodeSettings, MalformedHostsAreConfigErrors) {
  for (const char* hosts : {"a,,b", "a,", "a:4,b", "a b", "a,b,a", ","}) {
    const ConfigError e = parse_error({{"hosts", hosts}, {"ranks_per_node", "2"}});
    EXPECT_EQ(e.parameter(), "hosts") << hosts;
    EXPECT_TRUE(contains(e.what(), "hosts")) << e.what();
  }
}

TEST(MpiNodeSettings, HostfileAndHostsAreMutuallyExclusive) {
  const ConfigError e =
      parse_error({{"hostfile", "nodes.txt"}, {"hosts", "a,b"}, {"ranks_per_node", "2"}});
  EXPECT_EQ(e.parameter(), "hosts");
  EXPECT_TRUE(contains(e.what(), "'hostfile' and 'hosts'")) << e.what();
}

TEST(MpiNodeSettings, NamingNodesNeedsRanksPerNode) {
  for (const Params& params : {Params{{"hosts", "a,b"}}, Params{{"hostfile", "nodes.txt"}}}) {
    const ConfigError e = parse_error(params);
    EXPECT_EQ(e.parameter(), "ranks_per_node");
    EXPECT_TRUE(contains(e.what(), "'" + params.begin()->first + "' needs 'ranks_per_node'"))
        << e.what();
  }
}

TEST(MpiNodeSettings, RanksPerNodeIsAnIntegerFrom1To64) {
  for (const char* bad : {"0", "65", "-1", "four"}) {
    try {
      parse({{"ranks_per_node", bad}});
      ADD_FAILURE() << "accepted ranks_per_node " << bad;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.parameter(), "ranks_per_node") << bad;
    }
  }
  EXPECT_EQ(parse({{"ranks_per_node", "64"}}).ranks_per_node, 64);
}

TEST(MpiHostfile, OpenMpiFormatWithCommentsBlanksAndRepeats) {
  TempDir dir;
  const std::string file = dir.write("nodes", "# the allocation\n\nnode-a slots=4\n"
                                              "  node-b slots=4 max_slots=8  # the second\n"
                                              "node-a slots=2\nnode-c\n");
  EXPECT_EQ(hostfile_nodes(Family::openmpi, file),
            (std::vector<std::string>{"node-a", "node-b", "node-c"}));
}

TEST(MpiHostfile, MpichFormat) {
  TempDir dir;
  const std::string file = dir.write("nodes", "node-a:4\nnode-b:4 # comment\n\nnode-c\n");
  EXPECT_EQ(hostfile_nodes(Family::mpich, file),
            (std::vector<std::string>{"node-a", "node-b", "node-c"}));
}

TEST(MpiHostfile, TheOtherFamilysFormatIsRefusedWithTheLine) {
  TempDir dir;
  const std::string mpich_style = dir.write("mpich", "node-a\nnode-b:4\n");
  const std::string openmpi_style = dir.write("openmpi", "node-a slots=4\n");
  for (const auto& [family, file, expected] :
       {std::tuple{Family::openmpi, mpich_style, "line 2: Open MPI's hostfile gives a node's "
                                                 "slots as 'host slots=N'"},
        std::tuple{Family::mpich, openmpi_style, "line 1: MPICH's hostfile gives a node's slots "
                                                 "as 'host:N'"}}) {
    try {
      hostfile_nodes(family, file);
      ADD_FAILURE() << file;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.parameter(), "hostfile");
      EXPECT_TRUE(contains(e.what(), file)) << e.what();
      EXPECT_TRUE(contains(e.what(), expected)) << e.what();
    }
  }
}

TEST(MpiHostfile, AMissingEmptyOrDirectoryHostfileIsAConfigErrorNamingIt) {
  TempDir dir;
  const std::string missing = (dir.path / "no-such-hostfile").string();
  const std::string empty = dir.write("empty", "# nothing\n\n");
  for (const auto& [file, expected] :
       {std::pair{missing, "does not exist"}, std::pair{empty, "names no node"},
        std::pair{dir.path.string(), "is a directory"}}) {
    try {
      hostfile_nodes(Family::openmpi, file);
      ADD_FAILURE() << file;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.parameter(), "hostfile");
      EXPECT_TRUE(contains(e.what(), file)) << e.what();
      EXPECT_TRUE(contains(e.what(), expected)) << e.what();
    }
  }
}

TEST(MpiNodeLayout, NodesComeFromTheHostfileOrTheHosts) {
  TempDir dir;
  const std::string file = dir.write("nodes", "a slots=8\nb slots=8\na\n");
  const auto from_file = layout_of(Family::openmpi, {{"hostfile", file}, {"ranks_per_node", "4"}});
  ASSERT_TRUE(from_file);
  EXPECT_EQ(from_file->nodes, 2);
  EXPECT_EQ(from_file->ranks_per_node, 4);
  EXPECT_EQ(from_file->ranks(), 8);
  EXPECT_EQ(from_file->key(), "2x4");
  EXPECT_EQ(from_file->describe(), "2 nodes x 4 ranks per node");
  const auto from_list = layout_of(Family::mpich, {{"hosts", "a,b,c"}, {"ranks_per_node", "1"}});
  ASSERT_TRUE(from_list);
  EXPECT_EQ(from_list->key(), "3x1");
  EXPECT_EQ(from_list->describe(), "3 nodes x 1 rank per node");
  // ranks_per_node alone: this machine.
  const auto alone = layout_of(Family::openmpi, {{"ranks_per_node", "6"}});
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->key(), "1x6");
  EXPECT_EQ(alone->describe(), "1 node x 6 ranks per node");
}

TEST(MpiNodeLayout, ALayoutOfFewerThanTwoOrMoreThan64RanksIsRefused) {
  for (const Params& params : {Params{{"ranks_per_node", "1"}},
                               Params{{"hosts", "a,b"}, {"ranks_per_node", "40"}}}) {
    try {
      layout_of(Family::openmpi, params);
      ADD_FAILURE() << "accepted";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.parameter(), "ranks_per_node");
      EXPECT_TRUE(contains(e.what(), "2 to 64 ranks")) << e.what();
    }
  }
}

TEST(MpiNodeLayout, TheLayoutFollowsTheFamilyInThePlatformKey) {
  const auto forced =
      normalize_tuning(Family::openmpi,
                       parse({{"tuning", "OMPI_MCA_coll_tuned_allreduce_algorithm=4"}}).tuning);
  EXPECT_EQ(platform_key(Family::openmpi, {}, "2x4"), "openmpi+2x4");
  EXPECT_EQ(platform_key(Family::mpich, {}, "4x8"), "mpich+4x8");
  EXPECT_EQ(platform_key(Family::openmpi, forced, "2x4"),
            "openmpi+2x4+coll_tuned_allreduce_algorithm.4");
  // Without a layout the key is what it always was (the goldens of one machine keep theirs).
  EXPECT_EQ(platform_key(Family::openmpi, forced), "openmpi+coll_tuned_allreduce_algorithm.4");
  // A key shortened for its length keeps the layout.
  std::string many;
  for (int i = 0; i < 20; ++i)
    many += "MPIR_CVAR_SOME_RATHER_LONG_NAME_" + std::to_string(i) + "=1 ";
  const std::string key = platform_key(
      Family::mpich, normalize_tuning(Family::mpich, parse({{"tuning", many}}).tuning), "16x4");
  EXPECT_LE(key.size(), 128u);
  EXPECT_EQ(key.rfind("mpich+16x4+", 0), 0u) << key;
}

TEST(MpiNodeLayout, ACaseMustHaveTheLayoutsRankCount) {
  const NodeLayout layout{2, 4};
  EXPECT_NO_THROW(check_case_ranks(layout, 8, "openmpi+2x4"));
  try {
    check_case_ranks(layout, 4, "openmpi+2x4");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.parameter(), "ranks");
    EXPECT_TRUE(contains(e.what(), "2 nodes x 4 ranks per node (platform key openmpi+2x4)"))
        << e.what();
    EXPECT_TRUE(contains(e.what(), "ranks: 8, not 4")) << e.what();
  }
}

TEST(MpiNodeLayout, AJobRanWhereTheLayoutSaysOnlyWithConsecutiveRanksOnDistinctNodes) {
  const NodeLayout layout{2, 2};
  EXPECT_EQ(check_node_layout(layout, {"a", "a", "b", "b"}), "");
  EXPECT_EQ(check_node_layout(NodeLayout{1, 3}, {"a", "a", "a"}), "");
  // Round-robin placement: the nodes are right, the ranks on them are not.
  EXPECT_EQ(check_node_layout(layout, {"a", "b", "a", "b"}),
            "rank 0 ran on a, 1 on b, 2 on a, 3 on b: 2 nodes, not the 2 nodes x 2 ranks per "
            "node of the platform key (consecutive ranks together); check the hostfile or hosts "
            "(two names of one node?) and 'ranks_per_node'");
  // Two names of one node.
  EXPECT_TRUE(contains(check_node_layout(layout, {"vm", "vm", "vm", "vm"}),
                       "ranks 0-3 ran on vm: 1 node, not the 2 nodes x 2 ranks per node"));
  // Uneven blocks, and more nodes than the layout's.
  EXPECT_TRUE(
      contains(check_node_layout(layout, {"a", "a", "a", "b"}), "ranks 0-2 ran on a, 3 on b"));
  EXPECT_NE(check_node_layout(NodeLayout{2, 1}, {"a", "b", "c"}), "");
  EXPECT_NE(check_node_layout(NodeLayout{3, 1}, {"a", "b", "a"}), "");
}

TEST(MpiNodeLauncher, OpenMpiGetsTheHostfileThePlacementAndTheToken) {
  TempDir dir;
  const std::string file = dir.write("nodes", "a slots=4\n");
  const Settings s = parse({{"hostfile", file}, {"ranks_per_node", "4"},
                            {"launcher_args", "--mca btl self,tcp"}});
  EXPECT_EQ(launcher_arguments(Family::openmpi, s, 8, true),
            (std::vector<std::string>{"-np", "8", "--oversubscribe", "--allow-run-as-root",
                                      "--bind-to", "none", "--hostfile", file, "--map-by",
                                      "ppr:4:node", "-x", "FPREV_MPI_TOKEN", "--mca", "btl",
                                      "self,tcp"}));
  // A --host node has one slot unless told more: each gets ranks_per_node.
  EXPECT_EQ(launcher_arguments(Family::openmpi,
                               parse({{"hosts", "a,b"}, {"ranks_per_node", "2"},
                                      {"oversubscribe", "false"}}),
                               4, false),
            (std::vector<std::string>{"-np", "4", "--bind-to", "none", "--host", "a:2,b:2",
                                      "--map-by", "ppr:2:node", "-x", "FPREV_MPI_TOKEN"}));
  // ranks_per_node alone: this machine, no token to pass on (a Unix socket).
  EXPECT_EQ(launcher_arguments(Family::openmpi, parse({{"ranks_per_node", "3"}}), 3, false),
            (std::vector<std::string>{"-np", "3", "--oversubscribe", "--bind-to", "none",
                                      "--map-by", "ppr:3:node"}));
}

TEST(MpiNodeLauncher, MpichGetsTheHostfileOrHostsAndRanksPerNode) {
  TempDir dir;
  const std::string file = dir.write("nodes", "a:4\nb:4\n");
  EXPECT_EQ(launcher_arguments(Family::mpich, parse({{"hostfile", file}, {"ranks_per_node", "4"}}),
                               8, true),
            (std::vector<std::string>{"-n", "8", "-f", file, "-ppn", "4"}));
  EXPECT_EQ(launcher_arguments(Family::mpich, parse({{"hosts", "a,b"}, {"ranks_per_node", "2"}}),
                               4, true),
            (std::vector<std::string>{"-n", "4", "-hosts", "a,b", "-ppn", "2"}));
}

TEST(MpiNodeLauncher, ARelativeHostfileIsTakenFromTheCurrentDirectory) {
  TempDir dir;
  dir.write("nodes", "a\n");
  const auto saved = std::filesystem::current_path();
  std::filesystem::current_path(dir.path);
  const auto args =
      launcher_arguments(Family::mpich, parse({{"hostfile", "nodes"}, {"ranks_per_node", "2"}}),
                         2, false);
  const auto layout = layout_of(Family::mpich, {{"hostfile", "nodes"}, {"ranks_per_node", "2"}});
  std::filesystem::current_path(saved);
  EXPECT_EQ(args, (std::vector<std::string>{"-n", "2", "-f", (dir.path / "nodes").string(),
                                            "-ppn", "2"}));
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->key(), "1x2");
}

// The instance, with a fake launcher (no MPI needed): the hostfile is read when it opens, the
// key carries the layout, and a case of another rank count is refused.
TEST(MpiNodeInstance, OpeningReadsTheHostfileAndKeysTheLayout) {
  const std::string launcher = test::fake_launcher("dying-launcher");
  TempDir dir;
  const std::string missing = (dir.path / "missing-hostfile").string();
  try {
    test::open_mpi({{"library", launcher}, {"probe", launcher}, {"hostfile", missing},
                    {"ranks_per_node", "2"}});
    FAIL() << "opened with a missing hostfile";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.parameter(), "hostfile");
    EXPECT_TRUE(contains(e.what(), missing)) << e.what();
  }
  const std::string file = dir.write("nodes", "a slots=2\nb slots=2\n");
  const auto instance = test::open_mpi(
      {{"library", launcher}, {"probe", launcher}, {"hostfile", file}, {"ranks_per_node", "2"}});
  const Identity id = instance->identity();
  EXPECT_EQ(id.platform_key, "openmpi+2x2");
  EXPECT_EQ(id.details.at("layout"), "2 nodes x 2 ranks per node");
  const Params four = {{"op", "allreduce"}, {"ranks", "4"}, {"count", "1"}, {"dtype", "float64"}};
  EXPECT_NO_THROW(instance->validate_case(four));
  Params two = four;
  two["ranks"] = "2";
  EXPECT_THROW(instance->validate_case(two), ConfigError);
  EXPECT_THROW(instance->make_target(two), ConfigError);
}

}  // namespace
}  // namespace fprev::mpi
