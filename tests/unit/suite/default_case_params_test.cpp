// Backends that do not override Backend::case_params(): the default asks an instance opened with
// default settings. Where that instance cannot be opened the suite is reported, not run unchecked.
#include <gtest/gtest.h>

#include "fprev/suite.hpp"
#include "toy_backends.hpp"

namespace fprev {
namespace {

class SumOnlyInstance : public BackendInstance {
 public:
  Identity identity() const override { return {}; }
  std::vector<ParamSpec> case_params() const override {
    return {suite_test::choice("op", {"sum"}, true), suite_test::integer("n", 1, 100)};
  }
  void validate_case(const Params&) const override {}
  std::unique_ptr<Target> make_target(const Params&) const override { return nullptr; }
};

// Opens anywhere; declares its case parameters only through its instances.
class OpensBackend : public Backend {
 public:
  std::string_view name() const override { return "opens"; }
  std::string_view summary() const override { return "opens anywhere"; }
  std::vector<ParamSpec> instance_params() const override { return {}; }
  std::unique_ptr<BackendInstance> open(const Params&) const override {
    return std::make_unique<SumOnlyInstance>();
  }
};

// Never opens here, and does not declare its case parameters either.
class AbsentBackend : public Backend {
 public:
  std::string_view name() const override { return "absent"; }
  std::string_view summary() const override { return "library missing"; }
  std::vector<ParamSpec> instance_params() const override { return {}; }
  std::unique_ptr<BackendInstance> open(const Params&) const override {
    throw BackendUnavailable("libabsent.so not found");
  }
};

std::vector<std::string> errors_with(const std::string& backend, const std::string& cases) {
  BackendRegistry registry;
  registry.add(std::make_unique<OpensBackend>());
  registry.add(std::make_unique<AbsentBackend>());
  try {
    parse_suite("suite: s\nbackends:\n  - name: a\n    use: " + backend + "\ncases:\n" + cases,
                "t.yaml", registry);
  } catch (const SuiteError& error) {
    return error.errors();
  }
  return {};
}

TEST(DefaultCaseParams, AskAnOpenedInstance) {
  EXPECT_EQ(errors_with("opens", "  - op: sum\n    n: 8\n"), std::vector<std::string>{});
  EXPECT_EQ(errors_with("opens", "  - op: sum\n    n: 0\n"),
            std::vector<std::string>{
                "t.yaml:7:8: error: backend 'opens': 'n' must be between 1 and 100, got 0"});
}

TEST(DefaultCaseParams, BackendThatCannotOpenIsReportedWhereUsed) {
  EXPECT_EQ(errors_with("absent", "  - op: sum\n    n: 8\n"),
            std::vector<std::string>{"t.yaml:4:10: error: backend 'absent' cannot list its case "
                                     "parameters on this machine: libabsent.so not found"});
}

}  // namespace
}  // namespace fprev
