// Runs a fuzz harness on files, without libFuzzer: the regression corpus (every input that ever
// crashed, hung or blew memory), the seeds and the shipped files, in the ordinary build and the
// sanitizer build alike. Each input runs in its own child process under a CPU-time and memory
// limit (bounded_child.hpp), so a hang or a runaway allocation fails the test instead of the
// machine.
//
//   <driver> [--max-memory-mb N] [--max-cpu-seconds N] [--min-inputs N] FILE_OR_DIRECTORY...
//
// Directories are read recursively, in name order. Exit status 0 when every input finished within
// the limits (and there were at least --min-inputs of them), 1 otherwise.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bounded_child.hpp"
#include "harness.hpp"

namespace {

namespace fs = std::filesystem;

struct Options {
  fprev::test_support::ChildLimits limits;
  std::size_t min_inputs = 1;
  std::vector<fs::path> paths;
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "regression driver: " << problem
            << "\nusage: driver [--max-memory-mb N] [--max-cpu-seconds N] [--min-inputs N] "
               "FILE_OR_DIRECTORY...\n";
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto number = [&]() -> long {
      if (i + 1 >= argc) usage(arg + " needs a value");
      char* end = nullptr;
      const long value = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || value < 0) usage(arg + " needs a whole number");
      return value;
    };
    if (arg == "--max-memory-mb")
      options.limits.max_memory_mb = static_cast<std::size_t>(number());
    else if (arg == "--max-cpu-seconds")
      options.limits.max_cpu_seconds = static_cast<int>(number());
    else if (arg == "--min-inputs")
      options.min_inputs = static_cast<std::size_t>(number());
    else if (arg.starts_with("--"))
      usage("unknown option " + arg);
    else
      options.paths.emplace_back(arg);
  }
  if (options.paths.empty()) usage("no inputs");
  return options;
}

std::vector<fs::path> input_files(const std::vector<fs::path>& paths) {
  std::vector<fs::path> files;
  for (const auto& path : paths) {
    if (!fs::is_directory(path)) {
      files.push_back(path);
      continue;
    }
    std::vector<fs::path> found;
    for (const auto& entry : fs::recursive_directory_iterator(path))
      if (entry.is_regular_file()) found.push_back(entry.path());
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "regression driver: cannot read " << path << "\n";
    std::exit(1);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  fprev::fuzz::set_cpu_seconds_per_input(options.limits.max_cpu_seconds);
  const std::vector<fs::path> files = input_files(options.paths);
  std::size_t failed = 0;
  std::size_t most_memory_kb = 0;
  double most_cpu = 0;
  for (const auto& file : files) {
    const std::string input = read_file(file);
    const auto outcome = fprev::test_support::run_bounded(
        [&] {
          LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
          return std::string();
        },
        options.limits);
    most_memory_kb = std::max(most_memory_kb, outcome.extra_memory_kb);
    most_cpu = std::max(most_cpu, outcome.cpu_seconds);
    if (!outcome.within_limits()) {
      ++failed;
      std::cout << "FAILED " << file.string() << ": " << outcome.describe() << "\n";
    }
  }
  std::cout << files.size() << " inputs, " << failed << " failed; the largest took "
            << static_cast<double>(most_memory_kb) / 1024.0 << " MB and " << most_cpu
            << " s of CPU\n";
  if (files.size() < options.min_inputs) {
    std::cout << "FAILED: expected at least " << options.min_inputs << " inputs\n";
    return 1;
  }
  return failed == 0 ? 0 : 1;
}
