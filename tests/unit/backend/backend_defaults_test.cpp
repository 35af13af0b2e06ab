// What a backend author may leave out: case parameters declared once on the Backend (an instance
// constructed with it takes them), validate_case with nothing to check, and a sum or dot target
// made from a function (fprev/sum_target.hpp) that reveals the function's order.
#include <gtest/gtest.h>

#include <algorithm>
#include <span>

#include "fprev/backend.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"
#include "fprev/sum_target.hpp"

namespace fprev {
namespace {

float blocks_of_four(std::span<const float> x) {
  float total = 0;
  for (std::size_t i = 0; i < x.size(); i += 4) {
    float block = 0;
    for (std::size_t k = i; k < std::min(i + 4, x.size()); ++k) block += x[k];
    total += block;
  }
  return total;
}

// The same tree whatever the numbering of inner nodes: every l(i,j) agrees.
bool same_shape(const Tree& a, const Tree& b) {
  if (a.leaf_count() != b.leaf_count()) return false;
  for (NodeId i = 0; i < a.leaf_count(); ++i)
    for (NodeId j = i + 1; j < a.leaf_count(); ++j)
      if (a.lca_leaf_count(i, j) != b.lca_leaf_count(i, j)) return false;
  return true;
}

class Instance final : public BackendInstance {
 public:
  using BackendInstance::BackendInstance;
  Identity identity() const override { return {"t", "1", "", "any", {}}; }
  std::unique_ptr<Target> make_target(const Params& p) const override {
    return make_sum_target<float>(static_cast<std::size_t>(param_int(p, "n")), "blocks of 4", blocks_of_four);
  }
};

// `declares`: whether the backend declares its case parameters (else nobody does).
class MinimalBackend final : public Backend {
 public:
  explicit MinimalBackend(bool declares) : declares_(declares) {}
  std::string_view name() const override { return "minimal"; }
  std::string_view summary() const override { return "test"; }
  std::vector<ParamSpec> instance_params() const override { return {}; }
  std::vector<ParamSpec> case_params() const override {
    if (!declares_) return Backend::case_params();
    return {integer_param("n", 1, 1000, "summands").require()};
  }
  std::unique_ptr<BackendInstance> open(const Params&) const override { return std::make_unique<Instance>(*this); }

 private:
  bool declares_;
};

TEST(BackendDefaults, AnInstanceTakesItsBackendsCaseParameters) {
  const MinimalBackend backend(true);
  const auto instance = backend.open({});
  const std::vector<ParamSpec> specs = instance->case_params();
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].name, "n");
  EXPECT_TRUE(specs[0].required);
  EXPECT_NO_THROW(instance->validate_case({{"n", "8"}}));  // nothing to check by default
}

TEST(BackendDefaults, NeitherDeclaringThemIsAnErrorNotARecursion) {
  const MinimalBackend backend(false);
  try {
    (void)backend.case_params();
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("declares no case parameters"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Backend::case_params()"), std::string::npos) << e.what();
  }
  // An instance made without its backend says what to do too.
  class Orphan final : public BackendInstance {
   public:
    Identity identity() const override { return {}; }
    std::unique_ptr<Target> make_target(const Params&) const override { return nullptr; }
  };
  EXPECT_THROW((void)Orphan().case_params(), std::logic_error);
}

TEST(BackendDefaults, ASumTargetFromAFunctionRevealsItsOrder) {
  const MinimalBackend backend(true);
  const auto target = backend.open({})->make_target({{"n", "8"}});
  EXPECT_EQ(target->info().n, 8u);
  EXPECT_EQ(target->info().traits.summand, SummandKind::plain);
  const Tree tree = reveal(*target).tree;
  // Two blocks of four, each added left to right, then the blocks in order.
  EXPECT_TRUE(same_shape(tree, parse_sexpr("((((0 1) 2) 3) (((4 5) 6) 7))"))) << to_sexpr(tree);
}

TEST(BackendDefaults, ADotTargetFromAFunctionRevealsItsOrder) {
  const auto target = make_dot_target<double>(5, "reverse dot", [](std::span<const double> x, std::span<const double> y) {
    double s = 0;
    for (std::size_t k = x.size(); k-- > 0;) s += x[k] * y[k];
    return s;
  });
  EXPECT_EQ(target->info().traits.summand, SummandKind::product);
  const Tree tree = reveal(*target).tree;
  EXPECT_TRUE(same_shape(tree, parse_sexpr("((((4 3) 2) 1) 0)"))) << to_sexpr(tree);
}

}  // namespace
}  // namespace fprev
