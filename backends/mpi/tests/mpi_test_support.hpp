// Helpers shared by the mpi backend's tests.
#pragma once

#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fprev/backend.hpp"
#include "fprev/backends/mpi.hpp"

namespace fprev::mpi::test {

inline std::string fake_launcher(const std::string& name) {
  return std::string(FPREV_MPI_TEST_FAKES) + "/" + name;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Alive and not a zombie.
inline bool process_alive(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const auto close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() || text[close + 2] != 'Z';
}

// A private directory removed with everything in it at the end of the scope.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string pattern = "/tmp/fprev-mpi-test-XXXXXX";
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `text` to the file `name` in the directory; returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::filesystem::path file = path / name;
    std::ofstream(file) << text;
    return file.string();
  }
};

// Opens the mpi backend with `settings` (defaults filled in).
inline std::unique_ptr<BackendInstance> open_mpi(const Params& settings) {
  const auto backend = make_backend();
  return backend->open(resolve_params(backend->instance_params(), settings, "test"));
}

}  // namespace fprev::mpi::test
