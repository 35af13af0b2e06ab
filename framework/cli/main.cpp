// fprev-golden: reveal, gate and re-baseline floating-point accumulation orders.
#include <cstring>
#include <iostream>
#include <string_view>

#include "commands.hpp"

namespace {

constexpr const char* kUsage = R"(usage: fprev-golden <command> [options]

commands:
  reveal   reveal the summation tree of one target given on the command line
           fprev-golden reveal --backend reference --order pairwise --dtype float32 --n 16
           options: --backend NAME (required), backend settings (--library, --threads, --arch,
           --order, --lanes, --block, --width, ...), case (--op, --dtype, --n, --m, --k, ...),
           --format sexpr|text|json, --algorithm fprev|basic|naive, --seed N

exit status: 0 good, 1 a tree differs or a target misbehaves, 2 usage or configuration error
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "help") == 0) {
    (argc < 2 ? std::cerr : std::cout) << kUsage;
    return argc < 2 ? fprev::cli::kExitUsage : fprev::cli::kExitOk;
  }
  const std::string_view command = argv[1];
  if (command == "reveal") return fprev::cli::run_reveal(argc, argv);
  std::cerr << "fprev-golden: unknown command '" << command << "'\n\n" << kUsage;
  return fprev::cli::kExitUsage;
}
