// fprev-golden: reveal, gate and re-baseline floating-point accumulation orders.
//
// Every error of every sub-command ends in the one handler below, which prints
// `fprev-golden <command>: error: <message>` and exits with the documented status
// (exit_status.hpp; docs/cli.md's exit-status table).
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli_app.hpp"
#include "control_escape.hpp"
#include "exit_status.hpp"
#include "fprev/backend.hpp"
#include "fprev/distributed.hpp"
#include "fprev/golden.hpp"
#include "fprev/reveal.hpp"
#include "fprev/suite.hpp"
#include "termination.hpp"

namespace {

namespace cli = fprev::cli;

// Prints the error in flight and returns its exit status. Must be called inside a catch block.
int report_current_exception(const std::string& command) noexcept {
  const std::string prefix = "fprev-golden" + (command.empty() ? "" : " " + command) + ": error: ";
  const std::string help = "fprev-golden" + (command.empty() ? "" : " " + command) + " --help";
  try {
    throw;
  } catch (const cli::UsageError& e) {
    std::cerr << prefix << e.what() << "\n(see " << help << ")\n";
    return cli::kExitUsage;
  } catch (const fprev::SuiteError& e) {
    // Each problem on its own compiler-style line (file:line:col: error: ...), for editors and CI.
    std::cerr << prefix << "the suites are invalid (" << e.diagnostics().size() << " problem"
              << (e.diagnostics().size() == 1 ? "" : "s") << "):\n";
    for (const std::string& line : e.errors()) std::cerr << line << "\n";
    return fprev::SuiteError::exit_status;
  } catch (const fprev::ConfigError& e) {
    std::cerr << prefix << e.what() << "\n";
    return cli::kExitUsage;
  } catch (const fprev::GoldenIoError& e) {
    std::cerr << prefix << e.what() << "\n";
    return cli::kExitFailure;
  } catch (const fprev::GoldenParseError& e) {
    std::cerr << prefix << e.what() << "\n";
    return cli::kExitFailure;
  } catch (const fprev::BackendUnavailable& e) {
    std::cerr << prefix << "backend unavailable here: " << e.what() << "\n";
    return cli::kExitFailure;
  } catch (const fprev::TargetError& e) {
    std::cerr << prefix << "the target failed: " << e.what() << "\n";
    return cli::kExitFailure;
  } catch (const fprev::RevealFailure& e) {
    std::cerr << prefix << e.diagnostic().to_string() << "\n";
    return cli::kExitFailure;
  } catch (const fprev::RevealOverBudget& e) {  // reveal --max-seconds
    std::cerr << prefix << e.what() << "\n";
    return cli::kExitFailure;
  } catch (const std::bad_alloc&) {
    std::cerr << prefix << "out of memory\n";
    return cli::kExitInternal;
  } catch (const std::exception& e) {
    std::cerr << prefix << "internal error: " << e.what() << "\n";
    return cli::kExitInternal;
  } catch (...) {
    std::cerr << prefix << "internal error: an unknown exception\n";
    return cli::kExitInternal;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Stopped from outside, the gate ends every process it started (before any thread starts).
  cli::end_descendants_on_termination();
  int status = 0;
  {
    // Foreign text (a golden's library line, a file name) never reaches the terminal raw.
    const cli::EscapedStandardStreams escaped;
    std::string command;  // the sub-command, once known
    try {
      std::vector<std::string> arguments(argv + (argc > 0 ? 1 : 0), argv + argc);
      status = cli::run_command_line(argc > 0 ? argv[0] : "fprev-golden", std::move(arguments), command);
    } catch (...) {
      status = report_current_exception(command);
    }
  }
  // A distributed run's rank 0 may end its MPI job only now that the status is known.
  return fprev::finish_distributed_job(status);
}
