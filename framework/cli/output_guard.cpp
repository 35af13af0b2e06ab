#include "output_guard.hpp"

#include <system_error>

#include "exit_status.hpp"

namespace fprev::cli {
namespace {

// The path with symbolic links of its existing part resolved, so that two spellings of one file
// (./golden/x, golden/../golden/x, a link to it) compare equal, also before the output exists.
std::filesystem::path resolved(const std::filesystem::path& path) {
  std::error_code error;
  std::filesystem::path out = std::filesystem::weakly_canonical(path, error);
  if (error) out = std::filesystem::absolute(path, error).lexically_normal();
  return out;
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code error;
  if (std::filesystem::equivalent(a, b, error) && !error) return true;  // hard links too
  return resolved(a) == resolved(b);
}

bool inside(const std::filesystem::path& path, const std::filesystem::path& directory) {
  const std::filesystem::path file = resolved(path);
  const std::filesystem::path folder = resolved(directory);
  auto f = file.begin();
  for (auto d = folder.begin(); d != folder.end(); ++d, ++f) {
    if (d->empty()) continue;  // the trailing "" of "dir/"
    if (f == file.end() || *f != *d) return false;
  }
  return true;
}

}  // namespace

void refuse_output_over_inputs(const std::string& option, const std::filesystem::path& output,
                               const RunInputs& inputs) {
  for (const auto& input : inputs.files)
    if (same_file(output, input))
      throw UsageError(option + " " + output.string() + " is the input " + input.string() +
                       ": writing would overwrite it; name another file");
  for (const auto& directory : inputs.directories)
    if (inside(output, directory))
      throw UsageError(option + " " + output.string() + " is inside " + directory.string() +
                       ", which this run reads or writes (goldens, pending results): writing there "
                       "could replace one of its inputs; name a file elsewhere");
}

}  // namespace fprev::cli
