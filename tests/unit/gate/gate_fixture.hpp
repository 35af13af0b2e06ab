// What the gate tests of goldens, pending results and overlays share: the smallest suite (one
// reference case, a pairwise sum of 8, in suite "s", instance "ref") and a scratch directory per test.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "fprev/runner.hpp"

namespace fprev::gate_test {

inline Suite pairwise_sum_suite() {
  return parse_suite("suite: s\n"
                     "backends:\n"
                     "  - name: ref\n"
                     "    use: reference\n"
                     "cases:\n"
                     "  - op: sum\n"
                     "    order: pairwise\n"
                     "    n: 8\n",
                     "s.yaml", builtin_backends());
}

// <temp>/<prefix>-<pid>-<test name>, emptied.
inline std::filesystem::path scratch_directory(const std::string& prefix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()) + "-" + info->name());
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace fprev::gate_test
