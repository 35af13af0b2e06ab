// fprev-golden: reveal, gate and re-baseline floating-point accumulation orders.
#include <cstring>
#include <iostream>
#include <map>
#include <string_view>

#include "commands.hpp"
#include "fprev/backend.hpp"
#include "fprev/golden.hpp"
#include "fprev/reveal.hpp"
#include "fprev/suite.hpp"

namespace {

constexpr const char* kUsage = R"(usage: fprev-golden <command> [options]

commands:
  list     the expanded cases of the suites
  check    the gate: reveal every selected case and compare it with its golden
  update   re-baseline: write the goldens of the selected cases, print new/changed/unchanged
           (refuses when the environment variable CI is set, unless --force)
  diff     compare two goldens or trees: fprev-golden diff OLD NEW
  show     render a golden or tree: fprev-golden show FILE|SEXPR --format text|sexpr|summary|dot|svg|json
  reveal   reveal one target given on the command line, e.g.
           fprev-golden reveal --backend reference --order pairwise --dtype float32 --n 16
  env      the platform fingerprint and which backends are usable here

selection (list, check, update):
  --suites PATH     a suite file or directory (repeatable; default ./suites or $FPREV_SUITES)
  --golden DIR      the golden directory (default ./golden or $FPREV_GOLDEN_DIR)
  --suite NAME      only these suites (repeatable, glob)
  --backend NAME    only these backend instances (repeatable, glob)
  --case GLOB       only cases whose id matches (repeatable)
options:
  --json            machine-readable report on stdout
  --strict          a missing golden fails (also FPREV_STRICT=1)
  --ctest           (check) one case, exit 77 when skipped: used by the CTest tests
  --force           (update) write even when CI is set

reveal options: --backend NAME, backend settings (--library, --threads, --arch, ...), case
  parameters (--op, --dtype, --n, --m, --k, --order, --lanes, --block, --width, ...),
  --format sexpr|text|json, --algorithm fprev|basic|naive, --seed N

environment: FPREV_<BACKEND>_<SETTING> overrides a setting of every instance of a backend,
  e.g. FPREV_BLAS_LIBRARY=/opt/openblas-next/lib/libopenblas.so

exit status: 0 good, 1 a tree differs or a target misbehaves, 2 usage or configuration error
)";

using Command = int (*)(int, char**);

}  // namespace

int main(int argc, char** argv) {
  namespace cli = fprev::cli;
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "help") == 0 ||
      std::strcmp(argv[1], "-h") == 0) {
    (argc < 2 ? std::cerr : std::cout) << kUsage;
    return argc < 2 ? cli::kExitUsage : cli::kExitOk;
  }
  const std::map<std::string_view, Command> commands = {
      {"list", cli::run_list},     {"check", cli::run_check}, {"update", cli::run_update},
      {"diff", cli::run_diff},     {"show", cli::run_show},   {"reveal", cli::run_reveal},
      {"env", cli::run_env}};
  const auto it = commands.find(argv[1]);
  if (it == commands.end()) {
    std::cerr << "fprev-golden: unknown command '" << argv[1] << "'\n\n" << kUsage;
    return cli::kExitUsage;
  }
  const std::string prefix = std::string("fprev-golden ") + argv[1] + ": ";
  try {
    return it->second(argc, argv);
  } catch (const cli::UsageError& e) {
    std::cerr << prefix << e.what() << "\n";
  } catch (const fprev::SuiteError& e) {
    std::cerr << e.what() << "\n";
  } catch (const fprev::ConfigError& e) {
    std::cerr << prefix << e.what() << "\n";
  } catch (const fprev::GoldenIoError& e) {
    std::cerr << prefix << e.what() << "\n";
    return cli::kExitFailure;
  }
  return cli::kExitUsage;
}
