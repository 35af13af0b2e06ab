// What an opened instance says about the library, and tuning that would not reach it.
#include <regex>

#include "launch_test_support.hpp"

namespace fprev::mpi {
namespace {

TEST(MpiIdentity, OpenMpiReportsVersionAndEffectiveSettings) {
  FPREV_OPEN_OR_SKIP(instance,
                     (Params{{"library", "openmpi"},
                             {"tuning", "OMPI_MCA_coll_tuned_allreduce_algorithm=4"}}));
  const Identity id = instance->identity();
  EXPECT_EQ(id.library, "Open MPI");
  EXPECT_TRUE(std::regex_match(id.version, std::regex(R"(\d+\.\d+\.\d+.*)"))) << id.version;
  EXPECT_EQ(id.platform_key, "openmpi+coll_tuned_allreduce_algorithm.4");
  EXPECT_EQ(id.details.at("coll_tuned_allreduce_algorithm"), "4=ring");
  EXPECT_EQ(id.details.at("tuning"), "OMPI_MCA_coll_tuned_allreduce_algorithm=4 "
                                     "OMPI_MCA_coll_tuned_use_dynamic_rules=1");
  EXPECT_EQ(id.details.count("launch_failure"), 0u);
  // No path of this machine: goldens record the details.
  EXPECT_EQ(id.details.at("probe"), "fprev-mpi-probe-openmpi");
}

TEST(MpiIdentity, MpichReportsVersionAndDevice) {
  FPREV_OPEN_OR_SKIP(instance, (Params{{"library", "mpich"}}));
  const Identity id = instance->identity();
  EXPECT_EQ(id.library, "MPICH");
  EXPECT_EQ(id.platform_key, "mpich");
  EXPECT_TRUE(std::regex_match(id.version, std::regex(R"(\d+\.\d+.*)"))) << id.version;
  EXPECT_NE(id.configuration.find("device"), std::string::npos) << id.configuration;
  EXPECT_EQ(id.details.at("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"), "0");
}

TEST(MpiIdentity, ALauncherGivenByPathIsRecognised) {
  FPREV_OPEN_OR_SKIP(probe, (Params{{"library", "openmpi"}}));
  const std::string launcher = probe->identity().details.at("launcher");
  FPREV_OPEN_OR_SKIP(instance, (Params{{"library", launcher}}));
  EXPECT_EQ(instance->identity().library, "Open MPI");
  EXPECT_EQ(instance->identity().details.at("launcher"), launcher);
}

TEST(MpiIdentity, TuningThatWouldBeIgnoredIsRefused) {
  for (const char* tuning : {"OMPI_MCA_coll_tuned_allreduce_algoritm=4",   // misspelt
                             "OMPI_MCA_coll_tuned_allreduce_algorithm=99",  // out of range
                             "OMPI_MCA_coll_tuned_allreduce_algorithm=bogus"}) {
    try {
      test::open_mpi({{"library", "openmpi"}, {"tuning", tuning}});
      ADD_FAILURE() << "accepted " << tuning;
    } catch (const BackendUnavailable& e) {
      GTEST_SKIP() << e.what();
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.parameter(), "tuning") << e.what();
    }
  }
  try {
    test::open_mpi({{"library", "mpich"}, {"tuning", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITM=smp"}});
    ADD_FAILURE() << "accepted a misspelt MPICH variable";
  } catch (const BackendUnavailable& e) {
    GTEST_SKIP() << e.what();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.parameter(), "tuning") << e.what();
  }
}

}  // namespace
}  // namespace fprev::mpi
