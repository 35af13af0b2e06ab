// SVG through Graphviz: `dot` is found on PATH and run directly (posix_spawn, no shell), reading
// and writing temporary files, so no text of ours ever reaches a command line.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "fprev/render.hpp"

extern char** environ;

namespace fprev {
namespace fs = std::filesystem;
namespace {

// A temporary file created with mkstemp, removed when it goes out of scope.
class TempFile {
 public:
  explicit TempFile(const std::string& stem) {
    std::string pattern = (fs::temp_directory_path() / (stem + "-XXXXXX")).string();
    const int fd = ::mkstemp(pattern.data());
    if (fd < 0) throw std::runtime_error("cannot create a temporary file: " + std::string(std::strerror(errno)));
    ::close(fd);
    path_ = pattern;
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() { ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return std::move(buffer).str();
}

}  // namespace

std::optional<fs::path> find_program(std::string_view name) {
  if (name.empty() || name.find('/') != std::string_view::npos) return std::nullopt;
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::string_view directories(path);
  while (true) {
    const std::size_t colon = directories.find(':');
    const std::string_view directory = directories.substr(0, colon);
    if (!directory.empty()) {
      const fs::path candidate = fs::path(directory) / name;
      std::error_code error;
      if (fs::is_regular_file(candidate, error) && ::access(candidate.c_str(), X_OK) == 0)
        return candidate;
    }
    if (colon == std::string_view::npos) break;
    directories.remove_prefix(colon + 1);
  }
  return std::nullopt;
}

SvgResult render_svg_from_dot(std::string_view dot) {
  SvgResult result;
  const auto program = find_program("dot");
  if (!program) {
    result.error = "Graphviz 'dot' was not found on PATH; install Graphviz or use the DOT output";
    return result;
  }
  try {
    TempFile input("fprev-dot-in");
    TempFile output("fprev-dot-out");
    TempFile messages("fprev-dot-err");
    {
      std::ofstream out(input.path(), std::ios::binary);
      out << dot;
      if (!out) throw std::runtime_error("cannot write " + input.path());
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, messages.path().c_str(), O_WRONLY | O_TRUNC, 0);
    std::string argv0 = "dot", format = "-Tsvg", flag = "-o", out_path = output.path(),
                in_path = input.path();
    char* argv[] = {argv0.data(), format.data(), flag.data(), out_path.data(), in_path.data(), nullptr};
    pid_t pid = 0;
    // No signal blocked (the command line blocks SIGTERM, SIGINT and SIGHUP for its own handling).
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
    const int spawned = ::posix_spawn(&pid, program->c_str(), &actions, &attributes, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (spawned != 0) {
      result.error = "cannot run " + program->string() + ": " + std::strerror(spawned);
      return result;
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) {
        result.error = "cannot wait for " + program->string() + ": " + std::strerror(errno);
        return result;
      }
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      result.error = program->string() + " failed";
      if (WIFEXITED(status)) result.error += " with exit status " + std::to_string(WEXITSTATUS(status));
      const std::string stderr_text = slurp(messages.path());
      if (!stderr_text.empty()) result.error += ": " + stderr_text;
      return result;
    }
    result.svg = slurp(output.path());
    result.ok = !result.svg.empty();
    if (!result.ok) result.error = program->string() + " produced no output";
  } catch (const std::exception& error) {
    result.error = error.what();
  }
  return result;
}

SvgResult render_svg(const Tree& tree, std::string_view title, const DrawingOptions& options) {
  return render_svg_from_dot(render_dot(tree, title, options));
}

}  // namespace fprev
