// fprev-golden trace: runs a program with the blas backend's interposer preloaded and writes a
// suite of the BLAS calls it made (docs/trace.md; fprev/blas/trace.hpp does the BLAS side).
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "../commands.hpp"
#include "fprev/blas/trace.hpp"

extern char** environ;

namespace fprev::cli {
namespace {

namespace fs = std::filesystem;

std::string shell_words(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) {
    const bool plain = !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                               "0123456789-_./=:,+@%") == std::string::npos;
    std::string quoted = "'";
    for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    text += (text.empty() ? "" : " ") + (plain ? word : quoted + "'");
  }
  return text;
}

// A scratch directory for the trace files, removed when the command ends.
class TraceDirectory {
 public:
  TraceDirectory() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/fprev-trace-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("cannot create a directory for the trace in " + pattern + ": " + std::strerror(errno));
    path_ = pattern;
  }
  ~TraceDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TraceDirectory(const TraceDirectory&) = delete;
  TraceDirectory& operator=(const TraceDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs the program with the interposer preloaded and returns how it ended ("exit status 0",
// "killed by signal 11 (Segmentation fault)"); `failed` when it did not end with status 0.
std::string run_traced(const std::vector<std::string>& command, const std::string& interposer,
                       const fs::path& directory, bool& failed) {
  std::vector<std::string> environment;
  std::string preload = interposer;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("LD_PRELOAD=", 0) == 0)
      preload += ":" + entry.substr(11);
    else if (entry.rfind("FPREV_BLAS_TRACE_DIR=", 0) != 0)
      environment.push_back(entry);
  }
  environment.push_back("LD_PRELOAD=" + preload);
  environment.push_back("FPREV_BLAS_TRACE_DIR=" + directory.string());
  std::vector<char*> envp, argv;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> words = command;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  pid_t pid = 0;
  const int error = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data());
  if (error != 0) throw UsageError("cannot run '" + command[0] + "': " + std::strerror(error));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("waiting for the traced program: ") + std::strerror(errno));
  if (WIFEXITED(status)) {
    failed = WEXITSTATUS(status) != 0;
    return "exit status " + std::to_string(WEXITSTATUS(status));
  }
  failed = true;
  const int signal = WTERMSIG(status);
  return "killed by signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
}

// Temporary file beside the target, flushed, renamed over it: readers see the old or the new suite.
void write_atomically(const fs::path& path, const std::string& text) {
  const fs::path directory = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::string temporary = (directory / ("." + path.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  const char* data = text.data();
  std::size_t left = text.size();
  bool ok = true;
  while (ok && left != 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0 && errno == EINTR) continue;
    ok = written > 0;
    if (ok) data += written, left -= static_cast<std::size_t>(written);
  }
  ok = ok && ::fchmod(fd, 0644) == 0 && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    throw std::runtime_error("cannot write " + path.string() + ": " + reason);
  }
}

std::string suite_name_for(const fs::path& output) {
  std::string name = output.stem().string();
  for (char& c : name) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) c = '-';
  }
  while (!name.empty() && (name[0] == '.' || name[0] == '-' || name[0] == '_')) name.erase(0, 1);
  if (name.size() > 128) name.resize(128);
  return name.empty() ? "traced" : name;
}

// Why there is no suite: what the program loaded and called instead of the gated kinds.
std::string nothing_traced(const blas::Trace& trace) {
  std::ostringstream out;
  if (trace.loaded.empty() && trace.other_calls.empty())
    out << "the program loaded no BLAS and called no BLAS routine the interposer knows (CBLAS or "
           "Fortran BLAS symbols of a shared library): there is nothing to gate. A program that links its "
           "BLAS statically, or calls it under other names (MKL's mkl_* entry points), cannot be traced";
  else
    out << "the program made no dot, gemv or gemm call in float32 or float64, the kinds the gate reveals";
  for (const std::string& file : trace.loaded) out << "\n  loaded " << file;
  for (const auto& [routine, calls] : trace.other_calls) out << "\n  called " << routine << " " << calls << " times (not gated)";
  return out.str();
}

}  // namespace

int run_trace(const TraceOptions& options) {
  if (options.command.empty())
    throw UsageError("trace needs the program to run after '--': fprev-golden trace --output FILE -- COMMAND [ARGS...]");
  const std::string interposer = blas::trace_interposer_path();
  if (!fs::exists(interposer))
    throw UsageError("the BLAS interposer " + interposer + " is missing (it is built and installed with fprev-golden, "
                     "beside fprev-golden-worker; FPREV_BLAS_TRACE_INTERPOSER names another)");
  // A suite to merge into is checked before the program runs.
  std::optional<Suite> existing;
  std::string existing_text;
  if (options.merge) {
    existing = load_suite(*options.merge, builtin_backends());
    std::ifstream in(*options.merge);
    existing_text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  blas::TracedSuiteOptions suite_options;
  suite_options.command = shell_words(options.command);
  suite_options.top = options.top;
  suite_options.min_count = options.min_count;
  suite_options.suite_name = existing ? existing->name : suite_name_for(options.output);

  TraceDirectory directory;
  bool program_failed = false;
  suite_options.exit_status = run_traced(options.command, interposer, directory.path(), program_failed);
  std::cerr << "fprev-golden trace: " << suite_options.command << " ended with " << suite_options.exit_status
            << (program_failed ? " (it failed: the trace holds the calls it made until it ended)" : "") << "\n";
  const blas::Trace trace = blas::read_trace_directory(directory.path());
  if (trace.processes == 0) {
    std::cerr << "fprev-golden trace: no suite written: no process of the program wrote a trace (a statically "
                 "linked program does not load the interposer; a process killed by a signal or ending with "
                 "_exit() writes none)\n";
    return kExitFailure;
  }
  if (trace.calls.empty()) {
    std::cerr << "fprev-golden trace: no suite written: " << nothing_traced(trace) << "\n";
    return kExitFailure;
  }
  const blas::TracedCases traced = blas::traced_cases(trace, suite_options);
  if (traced.cases.empty()) {
    std::cerr << "fprev-golden trace: no suite written: none of the program's BLAS calls is left to gate:\n";
    for (const std::string& line : traced.not_gated) std::cerr << "  " << line << "\n";
    return kExitFailure;
  }
  std::size_t added = traced.cases.size();
  const std::string text = existing ? blas::merge_traced_cases(existing_text, *existing, traced, builtin_backends(), added)
                                    : blas::traced_suite_text(traced, suite_options);
  if (text.size() > kMaxSuiteBytes)
    throw UsageError("the suite would be " + std::to_string(text.size()) + " bytes, more than a suite may hold (" +
                     std::to_string(kMaxSuiteBytes) + "); keep the most frequent calls with --top N");
  parse_suite(text, options.output.string(), builtin_backends());  // what is written loads
  write_atomically(options.output, text);

  // The program's own output went to stdout; the report goes to stderr, apart from it.
  std::uint64_t calls = 0;
  for (const auto& c : traced.cases) calls += c.count;
  if (existing)
    std::cerr << "added " << added << " of " << traced.cases.size() << " traced cases to " << options.output.string()
              << " (the others were there already)\n";
  else
    std::cerr << "wrote " << options.output.string() << ": " << traced.cases.size() << " cases for " << calls
              << (calls == 1 ? " BLAS call" : " BLAS calls") << "\n";
  for (const std::string& line : traced.not_gated) std::cerr << "  not gated: " << line << "\n";
  std::cerr << "record their goldens with: fprev-golden update --suites " << shell_words({options.output.string()})
            << "\n";
  return kExitOk;
}

}  // namespace fprev::cli
