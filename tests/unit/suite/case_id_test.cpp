// The default case-id rule, applied directly; expected ids are written from the documented rule.
#include <gtest/gtest.h>

#include "fprev/suite.hpp"
#include "toy_backends.hpp"

namespace fprev {
namespace {

std::vector<ParamSpec> toy_specs() { return suite_test::ToyBackend().case_params(); }

std::string id_for(const Params& set) {
  const auto specs = toy_specs();
  return default_case_id(specs, set, resolve_params(specs, set, "test"));
}

TEST(CaseId, ExamplesFromTheDesign) {
  EXPECT_EQ(id_for({{"op", "gemm"}, {"dtype", "float32"}, {"m", "64"}, {"n", "64"}, {"k", "256"}}),
            "gemm-float32-m64n64k256");
  EXPECT_EQ(id_for({{"op", "dot"}, {"dtype", "float64"}, {"n", "1000"}}), "dot-float64-n1000");
  EXPECT_EQ(id_for({{"op", "sum"}, {"order", "sequential"}, {"n", "1024"}}),
            "sum-float32-sequential-n1024");  // dtype from its default
}

TEST(CaseId, ParameterKinds) {
  EXPECT_EQ(id_for({{"op", "sum"}, {"fused", "true"}, {"n", "4"}}), "sum-float32-fused-n4");
  EXPECT_EQ(id_for({{"op", "sum"}, {"fused", "false"}, {"n", "4"}}), "sum-float32-nofused-n4");
  EXPECT_EQ(id_for({{"op", "sum"}, {"lanes", "8"}, {"n", "4"}}), "sum-float32-lanes8-n4");
}

TEST(CaseId, OtherParametersAlphabeticallyShapeLastInMNKOrder) {
  EXPECT_EQ(id_for({{"op", "gemm"},
                    {"order", "reverse"},
                    {"lanes", "2"},
                    {"fused", "true"},
                    {"k", "3"},
                    {"n", "2"},
                    {"m", "1"}}),
            "gemm-float32-fused-lanes2-reverse-m1n2k3");
  EXPECT_EQ(id_for({{"op", "gemm"}, {"k", "3"}, {"n", "2"}}), "gemm-float32-n2k3");
}

TEST(CaseId, ValuesAreSanitised) {
  ParamSpec tag;
  tag.name = "tag";
  const std::vector<ParamSpec> specs{tag};
  EXPECT_EQ(default_case_id(specs, {{"tag", "Big Run/1"}}, {{"tag", "Big Run/1"}}), "tagbig_run_1");
  EXPECT_EQ(default_case_id(specs, {}, {}), "");
}

TEST(CaseId, FileNameSafe) {
  for (const char* good : {"a", "0", "gemm-float32-m64n64k256", "x.y_z-1"})
    EXPECT_TRUE(is_file_name_safe(good)) << good;
  for (const char* bad : {"", ".", "..", "-a", "_a", ".a", "A", "a/b", "a b", "a\\b", "é"})
    EXPECT_FALSE(is_file_name_safe(bad)) << bad;
}

}  // namespace
}  // namespace fprev
