// Instance settings: tuning syntax and families, the platform key, launcher arguments and the
// environment a job gets.
#include <gtest/gtest.h>

#include "launcher.hpp"
#include "mpi_settings.hpp"

namespace fprev::mpi {
namespace {

Settings parse(const Params& params) {
  return parse_settings(resolve_params(instance_param_specs(), params, "test"));
}

std::vector<TuningVariable> tuning(Family family, const std::string& text) {
  return normalize_tuning(family, parse({{"tuning", text}}).tuning);
}

TEST(MpiSettings, DefaultsAreOpenMpiOversubscribedWithATimeLimit) {
  const Settings s = parse({});
  EXPECT_EQ(s.library, "openmpi");
  EXPECT_TRUE(s.tuning.empty());
  EXPECT_TRUE(s.oversubscribe);
  EXPECT_TRUE(s.allow_run_as_root);
  EXPECT_TRUE(s.launcher_args.empty());
  EXPECT_EQ(s.timeout, std::chrono::seconds(60));
  EXPECT_TRUE(s.probe.empty());
}

TEST(MpiSettings, TuningIsParsedIntoSortedPairs) {
  const Settings s = parse({{"tuning", "  OMPI_MCA_coll_tuned_reduce_algorithm=5   "
                                       "OMPI_MCA_coll_tuned_allreduce_algorithm=ring "}});
  ASSERT_EQ(s.tuning.size(), 2u);
  EXPECT_EQ(s.tuning[0].name, "OMPI_MCA_coll_tuned_allreduce_algorithm");
  EXPECT_EQ(s.tuning[0].value, "ring");
  EXPECT_EQ(s.tuning[1].name, "OMPI_MCA_coll_tuned_reduce_algorithm");
  EXPECT_EQ(s.tuning[1].value, "5");
}

TEST(MpiSettings, MalformedTuningIsAConfigErrorNamingTheWord) {
  for (const char* bad : {"OMPI_MCA_x", "=4", "OMPI_MCA_x=", "OMPI-MCA=1", "A=1 A=2"}) {
    try {
      parse({{"tuning", bad}});
      ADD_FAILURE() << bad;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.parameter(), "tuning") << bad;
    }
  }
}

TEST(MpiSettings, EachFamilyTakesOnlyItsOwnVariables) {
  EXPECT_THROW(tuning(Family::openmpi, "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring"), ConfigError);
  EXPECT_THROW(tuning(Family::mpich, "OMPI_MCA_coll_tuned_allreduce_algorithm=4"), ConfigError);
  EXPECT_THROW(tuning(Family::openmpi, "OMPI_MCA_=4"), ConfigError);
  try {
    tuning(Family::mpich, "OMPI_MCA_coll_tuned_allreduce_algorithm=4");
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("MPIR_CVAR_"), std::string::npos) << e.what();
  }
}

TEST(MpiSettings, AForcedOpenMpiAlgorithmImpliesDynamicRules) {
  const auto t = tuning(Family::openmpi, "OMPI_MCA_coll_tuned_allreduce_algorithm=4");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1].name, "OMPI_MCA_coll_tuned_use_dynamic_rules");
  EXPECT_EQ(t[1].value, "1");
  EXPECT_TRUE(t[1].implied);
  // Written out, it is not added twice; other variables imply nothing.
  EXPECT_EQ(tuning(Family::openmpi, "OMPI_MCA_coll_tuned_allreduce_algorithm=4 "
                                    "OMPI_MCA_coll_tuned_use_dynamic_rules=1")
                .size(),
            2u);
  EXPECT_EQ(tuning(Family::openmpi, "OMPI_MCA_btl_vader_single_copy_mechanism=none").size(), 1u);
  EXPECT_EQ(tuning(Family::mpich, "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring").size(), 1u);
}

TEST(MpiSettings, PlatformKeyIsTheFamilyAndTheTuning) {
  EXPECT_EQ(platform_key(Family::openmpi, {}), "openmpi");
  EXPECT_EQ(platform_key(Family::mpich, {}), "mpich");
  const auto forced = tuning(Family::openmpi, "OMPI_MCA_coll_tuned_allreduce_algorithm=4");
  EXPECT_EQ(platform_key(Family::openmpi, forced), "openmpi+coll_tuned_allreduce_algorithm.4");
  // The same configuration written out in full has the same key.
  EXPECT_EQ(platform_key(Family::openmpi,
                         tuning(Family::openmpi, "OMPI_MCA_coll_tuned_use_dynamic_rules=1 "
                                                 "OMPI_MCA_coll_tuned_allreduce_algorithm=4")),
            "openmpi+coll_tuned_allreduce_algorithm.4");
  // Dynamic rules alone (no forced algorithm) stay visible.
  EXPECT_EQ(platform_key(Family::openmpi,
                         tuning(Family::openmpi, "OMPI_MCA_coll_tuned_use_dynamic_rules=1")),
            "openmpi+coll_tuned_use_dynamic_rules.1");
  EXPECT_EQ(platform_key(Family::mpich,
                         tuning(Family::mpich, "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring "
                                               "MPIR_CVAR_REDUCE_INTRA_ALGORITHM=binomial")),
            "mpich+allreduce_intra_algorithm.ring+reduce_intra_algorithm.binomial");
}

TEST(MpiSettings, PlatformKeyIsAlwaysAFileName) {
  std::string many;
  for (int i = 0; i < 20; ++i)
    many += "MPIR_CVAR_SOME_RATHER_LONG_VARIABLE_NAME_" + std::to_string(i) + "=/a/path:x ";
  const std::string key = platform_key(Family::mpich, tuning(Family::mpich, many));
  EXPECT_LE(key.size(), 128u);
  for (char c : key)
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
                c == '+')
        << key;
  // Distinct tunings keep distinct keys after shortening.
  EXPECT_NE(key, platform_key(Family::mpich, tuning(Family::mpich, many + "MPIR_CVAR_X=1")));
}

TEST(MpiSettings, CvarNames) {
  EXPECT_EQ(cvar_name(Family::openmpi, "OMPI_MCA_coll_tuned_allreduce_algorithm"),
            "coll_tuned_allreduce_algorithm");
  EXPECT_EQ(cvar_name(Family::mpich, "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"),
            "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM");
}

TEST(MpiLauncher, OpenMpiArgumentsFollowTheSettings) {
  Settings s = parse({{"launcher_args", "--mca btl self,vader"}});
  EXPECT_EQ(launcher_arguments(Family::openmpi, s, 8, true),
            (std::vector<std::string>{"-np", "8", "--oversubscribe", "--allow-run-as-root",
                                      "--bind-to", "none", "--mca", "btl", "self,vader"}));
  EXPECT_EQ(launcher_arguments(Family::openmpi, s, 3, false),
            (std::vector<std::string>{"-np", "3", "--oversubscribe", "--bind-to", "none", "--mca",
                                      "btl", "self,vader"}));
  s = parse({{"oversubscribe", "false"}, {"allow_run_as_root", "false"}});
  EXPECT_EQ(launcher_arguments(Family::openmpi, s, 2, true),
            (std::vector<std::string>{"-np", "2", "--bind-to", "none"}));
}

TEST(MpiLauncher, MpichArguments) {
  EXPECT_EQ(launcher_arguments(Family::mpich, parse({}), 6, true),
            (std::vector<std::string>{"-n", "6"}));
}

TEST(MpiLauncher, InheritedAlgorithmVariablesAreLeftOutAndTheTuningAdded) {
  const auto env = launch_environment(
      {"PATH=/usr/bin", "OMPI_MCA_coll_tuned_allreduce_algorithm=1", "OMPI_MCA_btl=self,vader",
       "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring", "HOME=/root"},
      tuning(Family::openmpi, "OMPI_MCA_coll_tuned_reduce_algorithm=5"));
  EXPECT_EQ(env.variables,
            (std::vector<std::string>{"PATH=/usr/bin", "OMPI_MCA_btl=self,vader", "HOME=/root",
                                      "OMPI_MCA_coll_tuned_reduce_algorithm=5",
                                      "OMPI_MCA_coll_tuned_use_dynamic_rules=1"}));
  EXPECT_EQ(env.ignored, (std::vector<std::string>{"OMPI_MCA_coll_tuned_allreduce_algorithm",
                                                   "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"}));
}

TEST(MpiLauncher, FamilyFromVersionOutput) {
  // As the Debian 12 launchers print it.
  EXPECT_EQ(family_from_version("mpirun.openmpi (OpenRTE) 4.1.4\n\nReport bugs to "
                                "http://www.open-mpi.org/community/help/\n"),
            Family::openmpi);
  EXPECT_EQ(family_from_version("mpirun (Open MPI) 5.0.3\n"), Family::openmpi);
  EXPECT_EQ(family_from_version("HYDRA build details:\n    Version:    4.0.2\n"), Family::mpich);
  EXPECT_EQ(family_from_version("frobnicator 2.0\n"), std::nullopt);
}

// MPICH ranks yield while they wait only where spinning costs: more ranks than cores on this
// machine (auto), or when asked; never for Open MPI, which yields by itself when oversubscribed.
TEST(MpiSettings, IdleYieldIsForOversubscribedMpichJobsOnThisMachine) {
  const Settings automatic = parse({});
  EXPECT_EQ(automatic.idle_yield, "auto");
  EXPECT_TRUE(idle_yield_wanted(Family::mpich, automatic, 16, 2));
  EXPECT_FALSE(idle_yield_wanted(Family::mpich, automatic, 2, 2));
  EXPECT_FALSE(idle_yield_wanted(Family::mpich, automatic, 8, 16));
  EXPECT_FALSE(idle_yield_wanted(Family::openmpi, automatic, 16, 2));
  const Settings across = parse({{"hosts", "a,b"}, {"ranks_per_node", "8"}});
  EXPECT_FALSE(idle_yield_wanted(Family::mpich, across, 16, 2));  // the nodes' cores are not known here
  EXPECT_TRUE(idle_yield_wanted(Family::mpich, parse({{"idle_yield", "true"}}), 2, 16));
  EXPECT_FALSE(idle_yield_wanted(Family::mpich, parse({{"idle_yield", "false"}}), 16, 2));
  EXPECT_FALSE(idle_yield_wanted(Family::openmpi, parse({{"idle_yield", "true"}}), 16, 2));
  try {
    parse({{"idle_yield", "sometimes"}});
    FAIL() << "idle_yield: sometimes was accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("idle_yield"), std::string::npos) << what;
    EXPECT_NE(what.find("auto"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace fprev::mpi
