// Distributed mode starts only inside an MPI job of several ranks (fprev/distributed.hpp): which
// MPI started the process is read from the variables its launcher sets, and a serial run is left
// alone (no MPI loaded, no per-rank counts). The real jobs are in tests/e2e/distributed_e2e.sh.
#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/distributed.hpp"

namespace fprev {
namespace {

// Sets the launcher variables of one test and restores the environment afterwards.
class LauncherVariables {
 public:
  explicit LauncherVariables(std::initializer_list<std::pair<const char*, const char*>> set) {
    for (const char* name : kAll) {
      const char* old = std::getenv(name);
      saved_.push_back({name, old != nullptr ? std::optional<std::string>(old) : std::nullopt});
      ::unsetenv(name);
    }
    for (const auto& [name, value] : set) ::setenv(name, value, 1);
  }
  LauncherVariables(const LauncherVariables&) = delete;
  LauncherVariables& operator=(const LauncherVariables&) = delete;
  ~LauncherVariables() {
    for (const auto& [name, value] : saved_) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
  }

 private:
  static constexpr const char* kAll[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK",
                                         "SLURM_PROCID", "SLURM_NTASKS"};
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(MpiLaunch, NoLauncherIsASerialRun) {
  const LauncherVariables none({});
  EXPECT_FALSE(detect_mpi_launch("").has_value());
}

TEST(MpiLaunch, OpenMpisMpirunIsRecognisedWithItsSize) {
  const LauncherVariables openmpi({{"OMPI_COMM_WORLD_SIZE", "4"}});
  const auto launch = detect_mpi_launch("");
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->implementation, "openmpi");
  EXPECT_EQ(launch->world_size, 4);
}

TEST(MpiLaunch, MpichsHydraIsRecognised) {
  const LauncherVariables mpich({{"PMI_SIZE", "2"}, {"PMI_RANK", "1"}});
  const auto launch = detect_mpi_launch("");
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->implementation, "mpich");
  EXPECT_EQ(launch->world_size, 2);
}

TEST(MpiLaunch, OneRankNeedsNoMpi) {
  const LauncherVariables one({{"OMPI_COMM_WORLD_SIZE", "1"}});
  EXPECT_FALSE(detect_mpi_launch("").has_value());
}

TEST(MpiLaunch, SrunWithPmixNeedsTheImplementationNamed) {
  const LauncherVariables srun({{"PMIX_RANK", "0"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "8"}});
  EXPECT_FALSE(detect_mpi_launch("").has_value());  // not recognised by itself: serial
  const auto launch = detect_mpi_launch("mpich");
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->implementation, "mpich");
  EXPECT_EQ(launch->world_size, 8);
}

TEST(MpiLaunch, NamingAnImplementationOverridesTheGuess) {
  const LauncherVariables openmpi({{"OMPI_COMM_WORLD_SIZE", "2"}});
  EXPECT_EQ(detect_mpi_launch("mpich")->implementation, "mpich");
}

TEST(MpiLaunch, MpiOutsideAJobIsRefusedWithTheCommandToUse) {
  const LauncherVariables none({});
  try {
    detect_mpi_launch("openmpi");
    FAIL() << "--mpi outside an MPI job was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("mpirun -np N fprev-golden"), std::string::npos) << e.what();
  }
}

TEST(MpiLaunch, AnUnknownImplementationIsRefusedWithTheAllowedOnes) {
  const LauncherVariables openmpi({{"OMPI_COMM_WORLD_SIZE", "2"}});
  try {
    detect_mpi_launch("intelmpi");
    FAIL() << "an unknown MPI was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'openmpi' or 'mpich'"), std::string::npos) << e.what();
  }
}

TEST(SerialRun, HasNoRanksAndLeavesStatsAlone) {
  EXPECT_EQ(active_distributed_session(), nullptr);
  EXPECT_EQ(distributed_streams(), 0u);
  EXPECT_TRUE(rank_work().empty());
  RevealStats stats;
  stats.probes = 12;
  record_rank_work(stats, {});
  EXPECT_EQ(stats.ranks, 1u);
  EXPECT_TRUE(stats.rank_probes.empty());
}

}  // namespace
}  // namespace fprev
