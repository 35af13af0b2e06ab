// One job serves every case of its launch (job_pool.hpp): the cases of one rank count share a job,
// another rank count starts its own, and a job whose case failed (a rank crashed or hung) is torn
// down, that case alone failing, while the next case of its launch gets a fresh job. What a reused
// job reveals is what a job of its own reveals. Every idle job ends with the instance.
#include <algorithm>

#include "fprev/order_map.hpp"

#include "launch_test_support.hpp"

namespace fprev::mpi {
namespace {

using test::contains;
using test::mpi_case;
using test::process_alive;
using test::ScopedEnvironment;

struct Made {
  std::unique_ptr<Target> target;
  std::size_t jobs_started = 0;
  std::vector<int> processes;  // the launcher and its descendants
};

Made make(const BackendInstance& instance, const Params& c) {
  Made m;
  m.target = instance.make_target(c);
  m.jobs_started = m.target->info().jobs_started;
  m.processes = dynamic_cast<CollectiveTarget&>(*m.target).job().live_processes();
  std::sort(m.processes.begin(), m.processes.end());
  return m;
}

std::string reveal_map(Target& target) {
  const RevealResult r = reveal(target);
  std::string text;
  for (const std::string& line : describe_map(r.map)) text += line + "\n";
  return text;
}

void expect_all_ended(const std::vector<int>& processes) {
  for (int pid : processes) EXPECT_FALSE(process_alive(pid)) << "process " << pid << " survived";
}

TEST(MpiJobReuse, TheCasesOfOneLaunchShareAJobAndRevealWhatAJobOfTheirOwnDoes) {
  FPREV_OPEN_OR_SKIP(instance, (Params{{"library", "openmpi"}}));
  std::vector<int> all;
  std::string shared_map;
  {
    Made first = make(*instance, mpi_case("allreduce", 3));
    EXPECT_EQ(first.jobs_started, 1u);
    EXPECT_EQ(reveal(*first.target).tree.leaf_count(), 3u);
    all = first.processes;
  }
  {
    // Another collective, dtype and count on the same 3 ranks: the same job, configured anew.
    Made second = make(*instance, mpi_case("reduce", 3, 4096, "float32"));
    EXPECT_EQ(second.jobs_started, 0u);
    EXPECT_EQ(second.processes, all);
    shared_map = reveal_map(*second.target);
  }
  {
    Made other = make(*instance, mpi_case("allreduce", 4));  // another launch: -np 4
    EXPECT_EQ(other.jobs_started, 1u);
    EXPECT_NE(other.processes, all);
    all.insert(all.end(), other.processes.begin(), other.processes.end());
  }
  // The same case on a job of its own (a fresh instance) gives the same map.
  {
    FPREV_OPEN_OR_SKIP(fresh, (Params{{"library", "openmpi"}}));
    Made own = make(*fresh, mpi_case("reduce", 3, 4096, "float32"));
    EXPECT_EQ(own.jobs_started, 1u);
    EXPECT_EQ(reveal_map(*own.target), shared_map);
  }
  for (int pid : all) EXPECT_TRUE(process_alive(pid)) << "an idle job's process " << pid << " ended early";
  instance.reset();  // the end of the run: every idle job ends
  expect_all_ended(all);
}

// A rank that prints in one case and crashes in the next, both on one job: the print fails nothing,
// the crash fails its case only, with the job's launcher output (saying that the job served an
// earlier case); its job is gone, and the next case of the launch gets a fresh job that works.
TEST(MpiJobReuse, ACrashInAReusedJobFailsOnlyItsCase) {
  ScopedEnvironment fault("FPREV_MPI_PROBE_TEST_FAULT", "print:1,crash:7");
  FPREV_OPEN_OR_SKIP(instance, (Params{{"library", "openmpi"}, {"timeout", "30"}}));
  std::string tree;
  std::vector<int> first_job;
  {
    Made printing = make(*instance, mpi_case("allreduce", 3, 1));
    EXPECT_EQ(printing.jobs_started, 1u);
    tree = to_sexpr(reveal(*printing.target).tree);  // a print is no failure
    first_job = printing.processes;
  }
  {
    Made crashing = make(*instance, mpi_case("allreduce", 3, 7));
    EXPECT_EQ(crashing.jobs_started, 0u);
    EXPECT_EQ(crashing.processes, first_job);
    try {
      reveal(*crashing.target);
      FAIL() << "a tree from a job whose rank crashed";
    } catch (const RevealFailure& e) {
      EXPECT_EQ(e.diagnostic().finding, Finding::target_error) << e.what();
      EXPECT_TRUE(contains(e.what(), "count=7")) << e.what();
      EXPECT_TRUE(contains(e.what(), "which served 1 earlier case(s)")) << e.what();
    }
    expect_all_ended(first_job);
  }
  Made next = make(*instance, mpi_case("allreduce", 3, 1));
  EXPECT_EQ(next.jobs_started, 1u);
  EXPECT_EQ(to_sexpr(reveal(*next.target).tree), tree);
}

TEST(MpiJobReuse, AHangInAReusedJobFailsOnlyItsCaseMpich) {
  ScopedEnvironment fault("FPREV_MPI_PROBE_TEST_FAULT", "hang:2");
  FPREV_OPEN_OR_SKIP(instance, (Params{{"library", "mpich"}, {"timeout", "3"}}));
  std::vector<int> first_job;
  {
    Made fine = make(*instance, mpi_case("reduce", 3, 1));
    EXPECT_EQ(reveal(*fine.target).tree.leaf_count(), 3u);
    first_job = fine.processes;
  }
  {
    Made hanging = make(*instance, mpi_case("reduce", 3, 2));
    EXPECT_EQ(hanging.jobs_started, 0u);
    try {
      reveal(*hanging.target);
      FAIL() << "a tree from a job whose rank hangs";
    } catch (const RevealFailure& e) {
      EXPECT_TRUE(contains(e.what(), "timed out after 3 s")) << e.what();
    }
    expect_all_ended(first_job);
  }
  Made next = make(*instance, mpi_case("reduce", 3, 1));
  EXPECT_EQ(next.jobs_started, 1u);
  EXPECT_EQ(reveal(*next.target).tree.leaf_count(), 3u);
}

}  // namespace
}  // namespace fprev::mpi
