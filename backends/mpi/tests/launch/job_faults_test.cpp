// Jobs that misbehave, made to on purpose through the probe program's test-only fault switch
// (FPREV_MPI_PROBE_TEST_FAULT): ranks that receive different bits, a rank that crashes, a rank
// that hangs. Each is a diagnostic, never a tree, and no process of the job is left.
#include "launch_test_support.hpp"

namespace fprev::mpi {
namespace {

using test::mpi_case;
using test::process_alive;
using test::ScopedEnvironment;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The job's processes: the launcher and its descendants (ranks).
std::vector<int> job_processes(Target& target) {
  auto* collective = dynamic_cast<CollectiveTarget*>(&target);
  return collective != nullptr ? collective->job().live_processes() : std::vector<int>{};
}

TEST(MpiJobFaults, RanksThatReceiveDifferentBitsAreAFinding) {
  ScopedEnvironment fault("FPREV_MPI_PROBE_TEST_FAULT", "ranks_disagree");
  FPREV_OPEN_OR_SKIP(instance, (Params{{"library", "openmpi"}}));
  auto target = instance->make_target(mpi_case("allreduce", 4, 3));
  try {
    reveal(*target);
    FAIL() << "a tree from an allreduce whose ranks disagree";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::ranks_disagree) << e.what();
    EXPECT_TRUE(contains(e.what(), "element 2")) << e.what();
    EXPECT_TRUE(contains(e.what(), "at rank 3")) << e.what();
  }
}

TEST(MpiJobFaults, AReduceIgnoresTheOtherRanksBuffers) {
  // The same fault on a reduce changes nothing: only the root's result is defined.
  ScopedEnvironment fault("FPREV_MPI_PROBE_TEST_FAULT", "ranks_disagree");
  FPREV_OPEN_OR_SKIP(instance, (Params{{"library", "openmpi"},
                                       {"tuning", "OMPI_MCA_coll_tuned_reduce_algorithm=1"}}));
  auto target = instance->make_target(mpi_case("reduce", 4, 3));
  EXPECT_EQ(to_sexpr(reveal(*target).tree), "(0 (1 (2 3)))");
}

void expect_crash_reported(const std::string& library) {
  ScopedEnvironment fault("FPREV_MPI_PROBE_TEST_FAULT", "crash");
  FPREV_OPEN_OR_SKIP(instance, (Params{{"library", library}, {"timeout", "30"}}));
  auto target = instance->make_target(mpi_case("allreduce", 3));
  const std::vector<int> processes = job_processes(*target);
  EXPECT_GE(processes.size(), 4u);  // the launcher and three ranks at least
  try {
    reveal(*target);
    FAIL() << "a tree from a job whose rank crashed";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::target_error) << e.what();
    EXPECT_TRUE(contains(e.what(), "launcher output")) << e.what();
  }
  for (int pid : processes) EXPECT_FALSE(process_alive(pid)) << "process " << pid << " survived";
}

TEST(MpiJobFaults, ACrashedRankFailsWithTheLauncherOutputOpenMpi) { expect_crash_reported("openmpi"); }
TEST(MpiJobFaults, ACrashedRankFailsWithTheLauncherOutputMpich) { expect_crash_reported("mpich"); }

void expect_hang_killed(const std::string& library) {
  ScopedEnvironment fault("FPREV_MPI_PROBE_TEST_FAULT", "hang");
  FPREV_OPEN_OR_SKIP(instance, (Params{{"library", library}, {"timeout", "3"}}));
  auto target = instance->make_target(mpi_case("allreduce", 3));
  const std::vector<int> processes = job_processes(*target);
  EXPECT_GE(processes.size(), 4u);
  const auto start = std::chrono::steady_clock::now();
  try {
    reveal(*target);
    FAIL() << "a tree from a job whose rank hangs";
  } catch (const RevealFailure& e) {
    EXPECT_EQ(e.diagnostic().finding, Finding::target_error) << e.what();
    EXPECT_TRUE(contains(e.what(), "timed out")) << e.what();
    EXPECT_TRUE(contains(e.what(), "timed out after 3 s (the time limit)")) << e.what();
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  for (int pid : processes) EXPECT_FALSE(process_alive(pid)) << "process " << pid << " survived";
}

TEST(MpiJobFaults, AHangingRankIsKilledAfterTheTimeLimitOpenMpi) { expect_hang_killed("openmpi"); }
TEST(MpiJobFaults, AHangingRankIsKilledAfterTheTimeLimitMpich) { expect_hang_killed("mpich"); }

TEST(MpiJobFaults, ACleanRevealLeavesNoProcess) {
  FPREV_OPEN_OR_SKIP(instance, (Params{{"library", "openmpi"}}));
  std::vector<int> processes;
  {
    auto target = instance->make_target(mpi_case("reduce_scatter_block", 3, 2));
    processes = job_processes(*target);
    EXPECT_GE(processes.size(), 4u);
    EXPECT_EQ(reveal(*target).tree.leaf_count(), 3u);
  }
  for (int pid : processes) EXPECT_FALSE(process_alive(pid)) << "process " << pid << " survived";
}

}  // namespace
}  // namespace fprev::mpi
