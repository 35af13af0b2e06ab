// An output file is never an input of the same run. A command that writes a file an option names
// (show/diff --output, check --html) refuses, before it writes anything, a path that is one
// of the files the run reads (a golden, a suite, a library, a backend module) or that lies inside a
// directory the run reads or keeps its results in (the golden directory, the pending directory):
// the file would be replaced by the report about it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fprev::cli {

struct RunInputs {
  std::vector<std::filesystem::path> files;        // read by the run
  std::vector<std::filesystem::path> directories;  // read, or written by the run itself
};

// Throws UsageError naming the option, the output and the input it would overwrite.
void refuse_output_over_inputs(const std::string& option, const std::filesystem::path& output,
                               const RunInputs& inputs);

}  // namespace fprev::cli
