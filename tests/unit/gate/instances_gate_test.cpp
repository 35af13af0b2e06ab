// The backend instances a runner opens (each a library loaded in a worker: a Python worker imports
// torch, about a second of CPU; an MPI instance starts jobs):
//   * instances with the same backend and resolved settings are opened once, under any name and in
//     any suite (instance_key);
//   * a setting's invariance variant (threads: 2) is opened once per run and serves every case that
//     asks for it, as the case's own instance does; the runs of a run-to-run contract each get a
//     fresh instance, every case, or they would prove nothing;
//   * the variants of a case parameter (a batch size m) are targets of the case's own instance made
//     one at a time, none while the case's own target lives: a target of a worker-run backend
//     holds a worker of its own, so three live targets were three Python workers, each importing
//     torch; one at a time, the instance's one worker serves them all;
//   * a variant of several threads claims the cores (RunnerOptions::claim_cores, check --jobs) for
//     its calls only: not while its library loads, not for the case's own calls.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "fprev/runner.hpp"
#include "gate_fixture.hpp"
#include "oracle_target.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {
namespace fs = std::filesystem;

// Opens counted by the value of the setting `lanes` (which changes nothing: every instance adds
// left to right, so every contract holds).
std::map<std::string, int>& opens() {
  static std::map<std::string, int> counts;
  return counts;
}

// Targets alive now, and the most alive at once since the count was cleared.
struct LiveTargets {
  int now = 0, most = 0;
};
LiveTargets& live_targets() {
  static LiveTargets counts;
  return counts;
}

class LiveCountedTarget final : public TreeOracleTarget {
 public:
  explicit LiveCountedTarget(Tree tree) : TreeOracleTarget(std::move(tree)) {
    LiveTargets& live = live_targets();
    live.most = std::max(live.most, ++live.now);
  }
  ~LiveCountedTarget() override { --live_targets().now; }
};

class Instance : public BackendInstance {
 public:
  Identity identity() const override { return {"oracle", "1.0", "", "here", {}}; }
  std::vector<ParamSpec> case_params() const override {
    return {choice_param("op", {"sum"}, "routine").require(), integer_param("n", 2, 64, "summands").defaults_to("10"),
            choice_param("batch", {"1", "2", "4"}, "a batch size that changes nothing").defaults_to("1")};
  }
  void validate_case(const Params&) const override {}
  std::unique_ptr<Target> make_target(const Params& p) const override {
    return std::make_unique<LiveCountedTarget>(left_deep_tree(std::stoul(p.at("n"))));
  }
};

class CountingBackend : public Backend {
 public:
  std::string_view name() const override { return "counted"; }
  std::string_view summary() const override { return "oracle targets whose instances are counted"; }
  std::vector<ParamSpec> instance_params() const override {
    return {choice_param("lanes", {"1", "2", "4"}, "").defaults_to("1")};
  }
  std::vector<ParamSpec> case_params() const override { return Instance().case_params(); }
  std::unique_ptr<BackendInstance> open(const Params& p) const override {
    ++opens()[p.at("lanes")];
    return std::make_unique<Instance>();
  }
  bool runs_foreign_code() const override { return false; }
};

// Claims of the cores (RunnerOptions::claim_cores): taken, and alive now.
struct Claims {
  int taken = 0, live = 0;
};
Claims& claims() {
  static Claims counts;
  return counts;
}

// Calls and target makes by the library's thread count, and whether the cores were claimed then.
struct ClaimWatch {
  std::map<std::string, int> calls_claimed, calls_shared, made_claimed;
};
ClaimWatch& claim_watch() {
  static ClaimWatch watch;
  return watch;
}

class ClaimWatchingTarget final : public TreeOracleTarget {
 public:
  ClaimWatchingTarget(Tree tree, std::string threads) : TreeOracleTarget(std::move(tree)), threads_(std::move(threads)) {
    if (claims().live > 0) ++claim_watch().made_claimed[threads_];
  }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    record();
    TreeOracleTarget::evaluate(batch, outputs);
  }
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override {
    record();
    TreeOracleTarget::evaluate(batch, outputs);
  }

 private:
  void record() const { ++(claims().live > 0 ? claim_watch().calls_claimed : claim_watch().calls_shared)[threads_]; }
  std::string threads_;
};

class ThreadedInstance : public Instance {
 public:
  explicit ThreadedInstance(std::string threads) : threads_(std::move(threads)) {}
  std::unique_ptr<Target> make_target(const Params& p) const override {
    return std::make_unique<ClaimWatchingTarget>(left_deep_tree(std::stoul(p.at("n"))), threads_);
  }

 private:
  std::string threads_;
};

// A backend whose library runs `threads` threads (as the blas and python backends' setting).
class ThreadedBackend : public CountingBackend {
 public:
  std::string_view name() const override { return "threaded"; }
  std::vector<ParamSpec> instance_params() const override {
    return {integer_param("threads", 1, 64, "library threads").defaults_to("1")};
  }
  std::unique_ptr<BackendInstance> open(const Params& p) const override {
    return std::make_unique<ThreadedInstance>(p.at("threads"));
  }
};

const BackendRegistry& registry() {
  static const BackendRegistry r = [] {
    BackendRegistry registry;
    registry.add(std::make_unique<CountingBackend>());
    registry.add(std::make_unique<ThreadedBackend>());
    return registry;
  }();
  return r;
}

class RunnerInstances : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = gate_test::scratch_directory("fprev-runner-instances");
    opens().clear();
    live_targets() = {};
  }
  void TearDown() override { fs::remove_all(root_); }

  RunnerOptions options() const {
    RunnerOptions o;
    o.golden_root = root_ / "golden";
    o.streams = 1;  // probe streams would be targets of their own
    o.tool_version = "test";
    return o;
  }
  static Suite suite(const std::string& contract) {
    return parse_suite("suite: s\nbackends:\n  - name: t\n    use: counted\ncases:\n"
                       "  - op: sum\n    n: [10, 12, 14]\n    invariant:\n      " + contract + "\n",
                       "s.yaml", registry());
  }

  fs::path root_;
};

TEST_F(RunnerInstances, TheSameSettingsUnderTwoNamesAndInTwoSuitesOpenOnce) {
  const std::string backends =
      "backends:\n  - name: a\n    use: counted\n    lanes: 2\n  - name: b\n    use: counted\n    lanes: 2\n"
      "  - name: c\n    use: counted\n    lanes: 4\n";
  const Suite first = parse_suite("suite: first\n" + backends + "cases:\n  - op: sum\n", "first.yaml", registry());
  const Suite second = parse_suite("suite: second\n" + backends + "cases:\n  - op: sum\n", "second.yaml", registry());
  ASSERT_EQ(first.cases.size(), 3u);
  Runner runner(registry(), options());
  for (const Suite* s : {&first, &second})
    for (const SuiteCase& c : s->cases) EXPECT_EQ(runner.update(*s, c).status, CaseStatus::created) << c.backend_instance;
  EXPECT_EQ(opens()["2"], 1);
  EXPECT_EQ(opens()["4"], 1);

  EXPECT_EQ(instance_key(registry(), first, "a"), instance_key(registry(), second, "b"));
  EXPECT_NE(instance_key(registry(), first, "a"), instance_key(registry(), first, "c"));
  // An instance the suite does not define keys by its name (its cases report it as undefined).
  EXPECT_EQ(instance_key(registry(), first, "nowhere"), "unresolved first/nowhere");
}

TEST_F(RunnerInstances, ASettingsVariantIsOpenedOncePerRun) {
  const Suite s = suite("lanes: [1, 2, 4]");
  ASSERT_EQ(s.cases.size(), 3u);
  Runner runner(registry(), options());
  for (const SuiteCase& c : s.cases) {
    const CaseResult r = runner.update(s, c);
    ASSERT_EQ(r.status, CaseStatus::created) << r.message;
    ASSERT_EQ(r.invariance.size(), 1u);
  }
  // The case's own instance (lanes 1) once, and each other value once for the three cases.
  EXPECT_EQ(opens()["1"], 1);
  EXPECT_EQ(opens()["2"], 1);
  EXPECT_EQ(opens()["4"], 1);
  // A runner of its own (another slot of --jobs) opens its own.
  Runner other(registry(), options());
  EXPECT_EQ(other.check(s, s.cases.at(0)).status, CaseStatus::passed);
  EXPECT_EQ(opens()["2"], 2);
}

TEST_F(RunnerInstances, ACaseParameterVariantIsATargetOfTheCaseInstanceMadeOneAtATime) {
  const Suite s = suite("batch: [1, 2, 4]");
  Runner runner(registry(), options());
  for (const SuiteCase& c : s.cases) {
    const CaseResult r = runner.update(s, c);
    ASSERT_EQ(r.status, CaseStatus::created) << r.message;
    ASSERT_EQ(r.invariance.size(), 1u);
    EXPECT_TRUE(r.invariance[0].invariant);
    ASSERT_EQ(r.invariance_stats.size(), 1u);
    EXPECT_EQ(r.invariance_stats[0].proofs, 2u);
    EXPECT_GT(r.invariance_stats[0].target_calls, 0u);
  }
  EXPECT_EQ(opens()["1"], 1);  // no instance of its own for any batch size
  EXPECT_EQ(live_targets().now, 0);
  EXPECT_EQ(live_targets().most, 1);
}

TEST_F(RunnerInstances, EveryRunOfARunToRunContractIsAFreshInstance) {
  const Suite s = suite("runs: 3");
  Runner runner(registry(), options());
  for (const SuiteCase& c : s.cases) ASSERT_EQ(runner.update(s, c).status, CaseStatus::created);
  // The case's own instance once; runs 2 and 3 fresh for each of the three cases.
  EXPECT_EQ(opens()["1"], 1 + 3 * 2);
}

TEST_F(RunnerInstances, AVariantOfSeveralThreadsClaimsTheCoresForItsCallsOnly) {
  const Suite s = parse_suite("suite: s\nbackends:\n  - name: t\n    use: threaded\ncases:\n"
                              "  - op: sum\n    n: [10, 12]\n    invariant:\n      threads: [1, 4, 2]\n"
                              "  - op: sum\n    n: 14\n    invariant:\n      batch: [1, 2]\n",
                              "s.yaml", registry());
  ASSERT_EQ(s.cases.size(), 3u);
  claims() = {};
  claim_watch() = {};
  RunnerOptions o = options();
  o.claim_cores = [] {
    ++claims().taken;
    ++claims().live;
    return std::shared_ptr<void>(static_cast<void*>(&claims()), [](void*) { --claims().live; });
  };
  Runner runner(registry(), o);
  for (const SuiteCase& c : s.cases) {
    const CaseResult r = runner.update(s, c);
    ASSERT_EQ(r.status, CaseStatus::created) << r.message;
    ASSERT_EQ(r.invariance.size(), 1u);
    EXPECT_TRUE(r.invariance[0].invariant);
    EXPECT_EQ(claims().live, 0) << "a claim outlived its case (" << c.id << ")";
  }
  // One claim per variant of several threads (its one target) in each case over threads, none for
  // the batch contract.
  EXPECT_EQ(claims().taken, 4);
  // The variants' calls all ran with the cores claimed; their libraries loaded without a claim
  // (both variants are made before either is called: a claim made with the target would have been
  // alive when the second was made).
  for (const std::string threads : {"4", "2"}) {
    EXPECT_GT(claim_watch().calls_claimed[threads], 0) << threads;
    EXPECT_EQ(claim_watch().calls_shared[threads], 0) << threads;
    EXPECT_EQ(claim_watch().made_claimed[threads], 0) << threads;
  }
  // The cases' own calls (one thread) shared the cores.
  EXPECT_GT(claim_watch().calls_shared["1"], 0);
  EXPECT_EQ(claim_watch().calls_claimed["1"], 0);
}

// What `check --jobs` runs alone and `list` gives CTest as processors: the library's threads, from
// the instance's resolved `threads` setting (its default too), 1 for a backend without one and for
// an instance that is not defined.
TEST(InstanceThreads, AreTheResolvedThreadsSetting) {
  const Suite s = parse_suite(
      "suite: s\nbackends:\n  - name: two\n    use: threaded\n    threads: 2\n  - name: default\n    use: threaded\n"
      "  - name: counted\n    use: counted\n    lanes: 4\ncases:\n  - op: sum\n",
      "s.yaml", registry());
  EXPECT_EQ(instance_threads(registry(), s, "two"), 2u);
  EXPECT_EQ(instance_threads(registry(), s, "default"), 1u);
  EXPECT_EQ(instance_threads(registry(), s, "counted"), 1u);
  EXPECT_EQ(instance_threads(registry(), s, "nowhere"), 1u);
}

// A case's threads: its instance's, or more where an invariance contract runs its variants on more.
TEST(InstanceThreads, ACaseCountsTheThreadsOfItsInvarianceVariants) {
  const Suite s = parse_suite(
      "suite: s\nbackends:\n  - name: one\n    use: threaded\n  - name: two\n    use: threaded\n    threads: 2\n"
      "cases:\n  - op: sum\n    backends: one\n  - op: sum\n    backends: two\n"
      "  - op: sum\n    n: 12\n    backends: one\n    invariant:\n      threads: [1, 4]\n",
      "s.yaml", registry());
  ASSERT_EQ(s.cases.size(), 3u);
  for (const SuiteCase& c : s.cases) {
    const std::size_t own = c.backend_instance == "two" ? 2 : 1;
    EXPECT_EQ(case_own_threads(registry(), s, c), own) << c.backend_instance << "/" << c.id;
    EXPECT_EQ(case_threads(registry(), s, c), !c.invariant.empty() ? 4 : own) << c.backend_instance << "/" << c.id;
  }
}

}  // namespace
}  // namespace fprev
