// Goldens record no path of the machine that wrote them: a project's own files relative to the
// project, the home folder as "~", system paths as they are.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "fprev/golden.hpp"

namespace fprev {
namespace {

namespace fs = std::filesystem;

TEST(MachineIndependentPaths, ProjectRelativeHomeAsTildeSystemPathsKept) {
  const fs::path before = fs::current_path();
  const fs::path project = fs::temp_directory_path() / ("fprev_paths_" + std::to_string(::getpid()));
  fs::create_directories(project);
  const std::string project_path = fs::canonical(project).string();
  fs::current_path(project);
  const char* old_home = std::getenv("HOME");
  const std::string saved_home = old_home != nullptr ? old_home : "";
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(machine_independent_paths(project_path + "/mysums.py"), "mysums.py");
  EXPECT_EQ(machine_independent_paths("/home/someone/.pyenv/versions/3.11.7/bin/python3"),
            "~/.pyenv/versions/3.11.7/bin/python3");
  EXPECT_EQ(machine_independent_paths("/usr/lib/x86_64-linux-gnu/libopenblas.so.0, " + project_path + "/lib/my.so"),
            "/usr/lib/x86_64-linux-gnu/libopenblas.so.0, lib/my.so");
  EXPECT_EQ(machine_independent_paths("/usr/bin/python3"), "/usr/bin/python3");
  // a folder of the same name elsewhere, or a longer name, is not the project
  EXPECT_EQ(machine_independent_paths("/x" + project_path + "/a"), "/x" + project_path + "/a");
  EXPECT_EQ(machine_independent_paths(project_path + "-other/a"), project_path + "-other/a");
  EXPECT_EQ(machine_independent_paths("/home/someone-else/a"), "/home/someone-else/a");
  if (old_home != nullptr) ::setenv("HOME", saved_home.c_str(), 1);
  else ::unsetenv("HOME");
  fs::current_path(before);
  fs::remove_all(project);
}

}  // namespace
}  // namespace fprev
