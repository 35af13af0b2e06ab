// Helpers for the tests that launch real MPI jobs (label mpi). A missing MPI skips, saying why.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "collective_target.hpp"
#include "fprev/reveal.hpp"
#include "fprev/sexpr.hpp"
#include "mpi_test_support.hpp"

namespace fprev::mpi::test {

// Opens an instance or skips the test when that MPI is not installed here.
#define FPREV_OPEN_OR_SKIP(instance, settings)              \
  std::unique_ptr<BackendInstance> instance;                \
  try {                                                     \
    instance = ::fprev::mpi::test::open_mpi(settings);      \
  } catch (const ::fprev::BackendUnavailable& unavailable) { \
    GTEST_SKIP() << unavailable.what();                     \
  }

inline Params mpi_case(const std::string& op, int ranks, int count = 1,
                       const std::string& dtype = "float64") {
  return {{"op", op}, {"ranks", std::to_string(ranks)}, {"count", std::to_string(count)},
          {"dtype", dtype}};
}

inline std::string reveal_sexpr(const BackendInstance& instance, const Params& c) {
  auto target = instance.make_target(c);
  return to_sexpr(reveal(*target).tree);
}

// Sets an environment variable for the scope (the launcher inherits fprev-golden's environment).
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnvironment() { ::unsetenv(name_); }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
};

}  // namespace fprev::mpi::test
