// What supervision costs (docs/worker-protocol.md): whole-process `fprev-golden reveal` runs of
// OpenBLAS cases, the library in a supervised worker process (the default) beside the same run
// with the library in the gate's own process (FPREV_WORKERS=off, as before workers), on the same
// machine in one benchmark run. Wall time of the whole process (start, library load, reveal,
// fingerprint, exit), real time, each case repeated. Counters:
//   in_worker    1 for the supervised run, 0 for the in-process one
// The cases: sdot 16384, sgemm 512^3, ddot 10^5 (1 library thread, 1 probe stream, so the
// two runs do the same work on one core).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

extern char** environ;

namespace {

// Runs fprev-golden with `arguments`, stdout and stderr to /dev/null; false when it did not exit 0.
bool run_tool(const std::vector<std::string>& arguments, bool in_worker) {
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e)
    if (!std::string_view(*e).starts_with("FPREV_WORKERS=")) environment.emplace_back(*e);
  if (!in_worker) environment.emplace_back("FPREV_WORKERS=off");
  std::vector<char*> envp, argv;
  for (auto& s : environment) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string program = FPREV_GOLDEN_EXECUTABLE;
  argv.push_back(program.data());
  std::vector<std::string> args = arguments;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) return false;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void whole_process_reveal(benchmark::State& state, std::vector<std::string> case_arguments, bool in_worker) {
  std::vector<std::string> arguments = {"reveal", "--backend", "blas", "--library", "openblas",
                                        "--threads", "1", "--streams", "1"};
  arguments.insert(arguments.end(), case_arguments.begin(), case_arguments.end());
  for (auto _ : state)
    if (!run_tool(arguments, in_worker)) {
      state.SkipWithError("fprev-golden reveal failed (OpenBLAS missing?)");
      return;
    }
  state.counters["in_worker"] = in_worker ? 1 : 0;
}

const std::vector<std::string> kSdot16k = {"--op", "dot", "--dtype", "float32", "--n", "16384"};
const std::vector<std::string> kSgemm512 = {"--op", "gemm", "--dtype", "float32", "--m", "512", "--n", "512", "--k", "512"};
const std::vector<std::string> kDdot100k = {"--op", "dot", "--dtype", "float64", "--n", "100000"};

BENCHMARK_CAPTURE(whole_process_reveal, sdot_16384_in_process, kSdot16k, false)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK_CAPTURE(whole_process_reveal, sdot_16384_worker, kSdot16k, true)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK_CAPTURE(whole_process_reveal, sgemm_512_in_process, kSgemm512, false)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);
BENCHMARK_CAPTURE(whole_process_reveal, sgemm_512_worker, kSgemm512, true)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(5);
BENCHMARK_CAPTURE(whole_process_reveal, ddot_100000_in_process, kDdot100k, false)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK_CAPTURE(whole_process_reveal, ddot_100000_worker, kDdot100k, true)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
