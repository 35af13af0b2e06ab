// What the library reports about itself, and the check that the tuning reached it.
#include <gtest/gtest.h>

#include "effective_settings.hpp"

namespace fprev::mpi {
namespace {

// MPI_Get_library_version() as Debian 12's libraries return it (MPICH: abridged after its
// configure line).
const std::string kOpenMpi =
    "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022";
const std::string kMpich =
    "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n"
    "MPICH ABI:\t14:2:2\nMPICH Device:\tch4:ucx\nMPICH configure:\t--with-device=ch4:ucx\n";

std::vector<TuningVariable> forced_ring() {
  return normalize_tuning(Family::openmpi, {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "4"}});
}

TEST(MpiEffectiveSettings, VersionAndConfiguration) {
  EXPECT_EQ(library_version_number(Family::openmpi, kOpenMpi), "4.1.4");
  EXPECT_EQ(library_version_number(Family::mpich, kMpich), "4.0.2");
  EXPECT_EQ(library_version_number(Family::mpich, "something else"), "unknown");
  EXPECT_EQ(library_configuration(Family::openmpi, kOpenMpi, {{"coll", ""}}), kOpenMpi);
  EXPECT_EQ(library_configuration(Family::openmpi, kOpenMpi, {{"coll", "basic,libnbc,self"}}),
            kOpenMpi + "; coll components basic,libnbc,self");
  EXPECT_EQ(library_configuration(Family::mpich, kMpich, {}), "MPICH 4.0.2, device ch4:ucx");
}

TEST(MpiEffectiveSettings, ATuningThatReachedTheLibraryPasses) {
  EXPECT_NO_THROW(check_effective_settings(
      Family::openmpi, forced_ring(),
      {{"coll_tuned_allreduce_algorithm", "4=ring"}, {"coll_tuned_use_dynamic_rules", "1=true"}},
      kOpenMpi));
  // By name as well as by number.
  EXPECT_NO_THROW(check_effective_settings(
      Family::openmpi,
      normalize_tuning(Family::openmpi, {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "ring"}}),
      {{"coll_tuned_allreduce_algorithm", "4=ring"}, {"coll_tuned_use_dynamic_rules", "1=true"}},
      kOpenMpi));
  // MPICH reads enums back as numbers: a name cannot be compared, and is accepted.
  EXPECT_NO_THROW(check_effective_settings(
      Family::mpich, {{"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "recursive_doubling"}},
      {{"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "3"}}, kMpich));
}

TEST(MpiEffectiveSettings, AMisspeltVariableIsRefused) {
  try {
    check_effective_settings(
        Family::openmpi,
        normalize_tuning(Family::openmpi, {{"OMPI_MCA_coll_tuned_allreduce_algoritm", "4"}}),
        {{"coll_tuned_use_dynamic_rules", "1=true"}}, kOpenMpi);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("coll_tuned_allreduce_algoritm"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("ignored"), std::string::npos);
  }
}

TEST(MpiEffectiveSettings, AnInvalidValueReadBackAsTheDefaultIsRefused) {
  // Open MPI warns about an invalid enum value and keeps 0 ("ignore": its own decision).
  EXPECT_THROW(check_effective_settings(
                   Family::openmpi,
                   normalize_tuning(Family::openmpi,
                                    {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "bogus"}}),
                   {{"coll_tuned_allreduce_algorithm", "0=ignore"},
                    {"coll_tuned_use_dynamic_rules", "1=true"}},
                   kOpenMpi),
               ConfigError);
  EXPECT_THROW(check_effective_settings(Family::mpich,
                                        {{"MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE", "4096"}},
                                        {{"MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE", "2048"}}, kMpich),
               ConfigError);
}

TEST(MpiEffectiveSettings, AnAlgorithmForcedOutsideTheTuningIsRefused) {
  const std::map<std::string, std::string> forced_by_a_file = {
      {"coll_tuned_use_dynamic_rules", "1=true"},
      {"coll_tuned_allreduce_algorithm", "4=ring"},
      {"coll_tuned_reduce_algorithm", "0=ignore"},
      {"coll_tuned_dynamic_rules_filename", ""}};
  EXPECT_THROW(check_effective_settings(Family::openmpi, {}, forced_by_a_file, kOpenMpi),
               ConfigError);
  auto rules_file = forced_by_a_file;
  rules_file["coll_tuned_allreduce_algorithm"] = "0=ignore";
  rules_file["coll_tuned_dynamic_rules_filename"] = "/etc/rules.conf";
  EXPECT_THROW(check_effective_settings(Family::openmpi, {}, rules_file, kOpenMpi), ConfigError);
  // Without dynamic rules Open MPI ignores the algorithm variables; with them and nothing forced
  // it runs its fixed decision.
  auto ignored = forced_by_a_file;
  ignored["coll_tuned_use_dynamic_rules"] = "0=false";
  EXPECT_NO_THROW(check_effective_settings(Family::openmpi, {}, ignored, kOpenMpi));
  auto nothing_forced = rules_file;
  nothing_forced["coll_tuned_dynamic_rules_filename"] = "";
  EXPECT_NO_THROW(check_effective_settings(Family::openmpi, {}, nothing_forced, kOpenMpi));
  EXPECT_THROW(check_effective_settings(Family::mpich, {},
                                        {{"MPIR_CVAR_REDUCE_INTRA_ALGORITHM", "2"}}, kMpich),
               ConfigError);
}

TEST(MpiEffectiveSettings, AProbeOfAnotherFamilyIsRefused) {
  EXPECT_THROW(check_effective_settings(Family::openmpi, {}, {}, kMpich), ConfigError);
  EXPECT_THROW(check_effective_settings(Family::mpich, {}, {}, kOpenMpi), ConfigError);
}

}  // namespace
}  // namespace fprev::mpi
