// No false pass, no lost golden (issue 26), through the Runner with oracle targets:
//   * a golden that names another case than its path fails as unreadable (it passed before);
//   * a golden updated while check ran is not overwritten by accept: the pending result records
//     the bytes check compared with, not the golden as it was when the result was kept;
//   * a library identity of 2 MB is shortened with a marker: update writes a golden check reads;
//   * a golden that cannot be written fails its case (unwritable) and the run goes on;
//   * a golden without fingerprint passes on its order alone: a failure in strict mode.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "fprev/pending.hpp"
#include "fprev/runner.hpp"
#include "oracle_target.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {
namespace fs = std::filesystem;

constexpr std::size_t kLeaves = 10;

// Called once, on the first probe batch a target answers (then cleared): lets a test change the
// golden while a check is between reading it and keeping its pending result.
std::function<void()>& during_check() {
  static std::function<void()> hook;
  return hook;
}

class HookedTarget : public TreeOracleTarget {
 public:
  using TreeOracleTarget::TreeOracleTarget;
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override {
    if (auto hook = std::exchange(during_check(), nullptr)) hook();
    TreeOracleTarget::evaluate(batch, outputs);
  }
};

class Instance : public BackendInstance {
 public:
  Instance(std::string order, std::size_t configuration_bytes)
      : order_(std::move(order)), configuration_bytes_(configuration_bytes) {}
  Identity identity() const override {
    return {"oracle", "1.0", std::string(configuration_bytes_, 'c'), "here", {}};
  }
  std::vector<ParamSpec> case_params() const override { return {choice_param("op", {"sum"}, "routine").require()}; }
  void validate_case(const Params&) const override {}
  std::unique_ptr<Target> make_target(const Params&) const override {
    return std::make_unique<HookedTarget>(order_ == "forward" ? left_deep_tree(kLeaves) : right_deep_tree(kLeaves));
  }

 private:
  std::string order_;
  std::size_t configuration_bytes_;
};

class Backend : public fprev::Backend {
 public:
  std::string_view name() const override { return "hooked"; }
  std::string_view summary() const override { return "oracle targets for the trust tests"; }
  std::vector<ParamSpec> instance_params() const override {
    return {choice_param("order", {"forward", "backward"}, "").defaults_to("forward"),
            integer_param("configuration_bytes", 0, 4 << 20, "").defaults_to("6")};
  }
  std::vector<ParamSpec> case_params() const override { return Instance("", 0).case_params(); }
  std::unique_ptr<BackendInstance> open(const Params& p) const override {
    return std::make_unique<Instance>(p.at("order"), std::stoul(p.at("configuration_bytes")));
  }
};

const BackendRegistry& registry() {
  static const BackendRegistry r = [] {
    BackendRegistry registry;
    registry.add(std::make_unique<Backend>());
    return registry;
  }();
  return r;
}

Suite suite(const std::string& name, const std::string& settings = "") {
  return parse_suite("suite: " + name + "\nbackends:\n  - name: t\n    use: hooked\n" + settings +
                         "cases:\n  - op: sum\n",
                     name + ".yaml", registry());
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class TrustGate : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("fprev-trust-gate-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    during_check() = nullptr;
  }
  void TearDown() override { fs::remove_all(root_); }

  Runner runner(bool pending = false) const {
    RunnerOptions options;
    options.golden_root = root_ / "golden";
    options.tool_version = "test";
    if (pending) options.pending = PendingStore(options.golden_root);
    return Runner(registry(), options);
  }
  CaseResult update(const Suite& s) const { return runner().update(s, s.cases.at(0)); }
  CaseResult check(const Suite& s, bool pending = false) const { return runner(pending).check(s, s.cases.at(0)); }

  fs::path root_;
};

TEST_F(TrustGate, AGoldenNamingAnotherCaseFailsAsUnreadable) {
  const Suite alpha = suite("alpha"), beta = suite("beta");
  const CaseResult a = update(alpha), b = update(beta);
  ASSERT_EQ(a.status, CaseStatus::created) << a.message;
  ASSERT_EQ(b.status, CaseStatus::created) << b.message;
  ASSERT_EQ(check(beta).status, CaseStatus::passed);
  fs::copy_file(a.golden_path, b.golden_path, fs::copy_options::overwrite_existing);  // same tree
  const CaseResult copied = check(beta);
  EXPECT_EQ(copied.status, CaseStatus::broken_golden);  // passed before the fix
  EXPECT_NE(copied.message.find("this file belongs to another case"), std::string::npos) << copied.message;
  EXPECT_NE(copied.message.find("suite 'alpha'"), std::string::npos) << copied.message;
  EXPECT_TRUE(is_failure(copied, {}));
}

TEST_F(TrustGate, AcceptRefusesAGoldenThatChangedWhileCheckRan) {
  ASSERT_EQ(update(suite("s")).status, CaseStatus::created);
  const Suite now = suite("s", "    order: backward\n");  // the library changed its order
  const fs::path golden = golden_path(root_ / "golden", "s", "t", "here", now.cases.at(0).id);
  // While check reveals, someone re-baselines the golden (another update, a pull).
  during_check() = [&] {
    Golden rebaselined = read_golden(golden);
    rebaselined.meta.created = "1999-12-31T23:59:59Z";
    write_golden_file(golden, rebaselined);
  };
  const CaseResult checked = check(now, true);
  ASSERT_EQ(checked.status, CaseStatus::differs);
  ASSERT_FALSE(checked.pending_path.empty()) << checked.pending_error;
  const std::string golden_now = slurp(golden);
  const PendingStore store(root_ / "golden");
  const PendingFile file = store.locate("s", "t", "here", now.cases.at(0).id);
  try {
    store.accept(file, false);
    FAIL() << "accept overwrote a golden that changed during check";
  } catch (const PendingError& e) {
    EXPECT_NE(std::string(e.what()).find("changed since check"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(golden), golden_now);
}

TEST_F(TrustGate, AHugeLibraryIdentityIsShortenedAndTheGoldenReadsBack) {
  const Suite s = suite("s", "    configuration_bytes: 2097152\n");  // 2 MB, as openblas_get_config can
  const CaseResult created = update(s);
  ASSERT_EQ(created.status, CaseStatus::created) << created.message;
  const Golden golden = read_golden(created.golden_path);  // refused (line over 1 MiB) before the fix
  EXPECT_LE(golden.meta.library_configuration.size(), kMaxGoldenMetadataBytes + 64);
  EXPECT_NE(golden.meta.library_configuration.find("bytes left out"), std::string::npos);
  EXPECT_EQ(check(s).status, CaseStatus::passed);
}

TEST_F(TrustGate, AGoldenThatCannotBeWrittenFailsItsCaseOnly) {
  fs::create_directories(root_);
  std::ofstream(root_ / "golden") << "a file where the golden directory should be";
  const CaseResult r = update(suite("s"));  // threw out of update before the fix
  EXPECT_EQ(r.status, CaseStatus::unwritable);
  EXPECT_NE(r.message.find("cannot create directory"), std::string::npos) << r.message;
  EXPECT_TRUE(is_failure(r, {}));
}

TEST_F(TrustGate, AGoldenWithoutFingerprintFailsInStrictMode) {
  const Suite s = suite("s");
  const CaseResult created = update(s);
  ASSERT_EQ(created.status, CaseStatus::created);
  Golden older = read_golden(created.golden_path);
  older.fingerprints.clear();  // as an older file
  write_golden_file(created.golden_path, older);
  const CaseResult r = check(s);
  ASSERT_EQ(r.status, CaseStatus::passed);
  EXPECT_TRUE(passed_without_fingerprint(r));
  EXPECT_FALSE(is_failure(r, {}));
  EXPECT_TRUE(is_failure(r, {.strict = true}));  // passed --strict before the fix
  EXPECT_FALSE(is_skip(r, {.strict = true}));
}

}  // namespace
}  // namespace fprev
