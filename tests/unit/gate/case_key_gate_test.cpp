// A case keyed by what decides its own order (BackendInstance::case_platform_key): an instance
// whose `sum` depends on nothing of the host and whose `dot` depends on its library files the
// sum under `any` and the dot under the instance's key, and checks each against its own.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "fprev/golden.hpp"
#include "fprev/runner.hpp"
#include "oracle_target.hpp"
#include "random_trees.hpp"

namespace {

namespace fs = std::filesystem;

class PerCaseKeyInstance : public fprev::BackendInstance {
 public:
  fprev::Identity identity() const override { return {"keyed", "1.0", "", "blas-family-t1", {}}; }
  std::vector<fprev::ParamSpec> case_params() const override {
    return {fprev::choice_param("op", {"sum", "dot"}, "routine").require()};
  }
  std::unique_ptr<fprev::Target> make_target(const fprev::Params&) const override {
    return std::make_unique<fprev::TreeOracleTarget>(fprev::left_deep_tree(8));
  }
  std::string case_platform_key(const fprev::Params& params) const override {
    return params.at("op") == "sum" ? "any" : "";
  }
};

class PerCaseKeyBackend : public fprev::Backend {
 public:
  std::string_view name() const override { return "keyed"; }
  std::string_view summary() const override { return "sum keyed by nothing, dot by the instance"; }
  std::vector<fprev::ParamSpec> instance_params() const override { return {}; }
  std::vector<fprev::ParamSpec> case_params() const override { return PerCaseKeyInstance().case_params(); }
  std::unique_ptr<fprev::BackendInstance> open(const fprev::Params&) const override {
    return std::make_unique<PerCaseKeyInstance>();
  }
};

TEST(CasePlatformKey, EachCaseIsFiledUnderWhatDecidesItsOrder) {
  fprev::BackendRegistry registry;
  registry.add(std::make_unique<PerCaseKeyBackend>());
  const fprev::Suite suite = fprev::parse_suite(
      "suite: keyed\nbackends:\n  - name: k\n    use: keyed\ncases:\n  - op: [sum, dot]\n", "keyed.yaml", registry);
  const fs::path root = fs::temp_directory_path() / ("fprev-case-key-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fprev::RunnerOptions options;
  options.golden_root = root;
  options.tool_version = "test";
  fprev::Runner runner(registry, options);
  ASSERT_EQ(suite.cases.size(), 2u);
  for (const auto& c : suite.cases) {
    const fprev::CaseResult recorded = runner.update(suite, c);
    ASSERT_EQ(recorded.status, fprev::CaseStatus::created) << recorded.message;
    const std::string key = c.params.at("op") == "sum" ? "any" : "blas-family-t1";
    EXPECT_EQ(recorded.platform_key, key);
    EXPECT_EQ(recorded.golden_path, fprev::golden_path(root, "keyed", "k", key, c.id));
    EXPECT_EQ(fprev::read_golden(recorded.golden_path).meta.platform_key, key);
    EXPECT_EQ(runner.check(suite, c).status, fprev::CaseStatus::passed);
  }
  fs::remove_all(root);
}

}  // namespace
