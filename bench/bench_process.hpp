// Whole-process benchmarks: runs a program (fprev-golden, or a launcher that starts it) with
// stdout and stderr to /dev/null, with variables removed from and added to the environment.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace fprev::bench {

// False when it could not start or did not exit 0. `drop` names variables left out (NAME).
inline bool run_program(const std::vector<std::string>& command, const std::vector<std::string>& drop = {},
                        const std::vector<std::string>& add = {}) {
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    bool dropped = false;
    for (const std::string& name : drop) dropped = dropped || entry.starts_with(name + "=");
    if (!dropped) environment.emplace_back(entry);
  }
  environment.insert(environment.end(), add.begin(), add.end());
  std::vector<char*> envp, argv;
  for (auto& s : environment) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) return false;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace fprev::bench
