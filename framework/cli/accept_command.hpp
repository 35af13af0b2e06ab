// The command that accepts (or creates) the golden of a case, as check and the CTest tests print
// it. It must work as printed: it names the program as it was run, repeats the --suites/--golden
// arguments of the run, and sets the FPREV_<BACKEND>_<SETTING> overrides that were in effect (a
// golden accepted without FPREV_BLAS_LIBRARY=... would record another library's tree) and the
// FPREV_BACKEND_PATH that found the backend modules (a downstream project's own backend).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fprev/suite.hpp"

namespace fprev::cli {

class AcceptCommand {
 public:
  // `program`: how to run fprev-golden; `selection_arguments`: --suites/--golden to repeat.
  AcceptCommand(std::string program, std::vector<std::string> selection_arguments);
  // "[VAR=value ...] <program> update [--suites ... --golden ...] --suite S --backend B --case C",
  // each word quoted for a POSIX shell where needed.
  std::string for_case(const Suite& suite, const SuiteCase& c) const;
  // The same command for every case of the suite: for_case() without its --backend and --case.
  static std::string for_whole_suite(const std::string& case_command);

 private:
  std::string program_;
  std::vector<std::string> selection_arguments_;
};

// `word` as one word of a POSIX shell command: unchanged when it is made of safe characters,
// otherwise in single quotes.
std::string shell_quote(std::string_view word);

// The program as the user typed it when it names a path (argv[0] with a '/'), else
// "fprev-golden" (found on PATH).
std::string program_as_invoked(std::string_view argv0);
// The absolute path of the running executable with symbolic links resolved (/proc/self/exe), or
// `fallback` made absolute when that cannot be read.
std::string running_executable(std::string_view fallback);

}  // namespace fprev::cli
