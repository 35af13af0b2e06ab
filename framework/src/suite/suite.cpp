// Suite files on disk: reading them, whole directories of them, and the error type that carries
// every problem found. The YAML itself is checked in suite_parser.cpp.
#include "fprev/suite.hpp"

#include <algorithm>
#include <map>
#include <system_error>

#include "suite_detail.hpp"
#include "text/text_checks.hpp"

namespace fprev {
namespace {

std::string join_lines(const std::vector<SuiteDiagnostic>& diagnostics) {
  std::string out;
  for (const auto& diagnostic : diagnostics) {
    if (!out.empty()) out += '\n';
    out += diagnostic.str();
  }
  return out;
}

SuiteDiagnostic file_problem(const std::filesystem::path& path, std::string message) {
  return SuiteDiagnostic{SourcePosition::whole(path.string()), std::move(message)};
}

bool is_suite_file_name(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  const std::string extension = path.extension().string();
  return !name.empty() && name.front() != '.' && (extension == ".yaml" || extension == ".yml");
}

}  // namespace

namespace suite_detail {

SourcePosition position(const std::string& file, int line, int column) {
  if (line <= 0) return SourcePosition::whole(file);
  return SourcePosition::at(file, static_cast<std::size_t>(line),
                            static_cast<std::size_t>(std::max(column, 0)));
}

std::string location(const std::string& file, int line, int column) {
  return format_position(position(file, line, column));
}

}  // namespace suite_detail

std::string SuiteDiagnostic::str() const { return format_position(where) + ": error: " + message; }

SuiteError::SuiteError(std::vector<SuiteDiagnostic> diagnostics)
    : std::runtime_error(join_lines(diagnostics)), diagnostics_(std::move(diagnostics)) {
  if (diagnostics_.empty()) diagnostics_.push_back({SourcePosition::whole(""), "invalid suite"});
}

std::vector<std::string> SuiteError::errors() const {
  std::vector<std::string> out;
  for (const auto& diagnostic : diagnostics_) out.push_back(diagnostic.str());
  return out;
}

const BackendInstanceSpec* Suite::find_backend(std::string_view instance_name) const {
  for (const auto& instance : backends)
    if (instance.name == instance_name) return &instance;
  return nullptr;
}

Suite load_suite(const std::filesystem::path& file, const BackendRegistry& registry) {
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (!std::filesystem::exists(status))
    throw SuiteError({file_problem(file, "cannot read suite file: no such file")});
  if (std::filesystem::is_directory(status))
    throw SuiteError({file_problem(file, "cannot read suite file: it is a directory")});
  detail::BoundedRead read = detail::read_file_bounded(file, kMaxSuiteBytes);
  if (read.status == detail::ReadStatus::too_large) {
    // Pointed at where the limit is crossed, like the same text given to parse_suite.
    const std::string head = detail::read_file_prefix(file, kMaxSuiteBytes);
    std::string message = "the file is longer than " +
                          detail::with_thousands_separators(kMaxSuiteBytes) +
                          " bytes, the most a suite file may have";
    if (std::filesystem::is_regular_file(status))
      message += " (it has " + detail::with_thousands_separators(std::filesystem::file_size(file, ec)) + ")";
    throw SuiteError({{position_of_offset(file.string(), head, head.size()), std::move(message)}});
  }
  if (read.status != detail::ReadStatus::ok)
    throw SuiteError({file_problem(file, "cannot read suite file: " + read.error)});
  return parse_suite(read.text, file.string(), registry);
}

std::vector<std::filesystem::path> find_suite_files(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(directory))
    if (entry.is_regular_file() && is_suite_file_name(entry.path())) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<Suite> load_suites(const std::vector<std::filesystem::path>& files_or_directories,
                               const BackendRegistry& registry, std::uint64_t max_cases) {
  std::vector<SuiteDiagnostic> problems;
  std::vector<std::filesystem::path> files;
  for (const auto& path : files_or_directories) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      files.push_back(path);  // load_suite reports a missing file
      continue;
    }
    try {
      const auto found = find_suite_files(path);
      if (found.empty())
        problems.push_back(file_problem(path, "no suite files (*.yaml, *.yml) in this directory"));
      files.insert(files.end(), found.begin(), found.end());
    } catch (const std::filesystem::filesystem_error& error) {
      problems.push_back(file_problem(path, std::string("cannot list directory: ") + error.what()));
    }
  }

  std::vector<Suite> suites;
  std::map<std::string, const Suite*> by_name;
  std::uint64_t cases = 0;
  for (std::size_t k = 0; k < files.size(); ++k) {
    try {
      suites.push_back(load_suite(files[k], registry));
    } catch (const SuiteError& error) {
      problems.insert(problems.end(), error.diagnostics().begin(), error.diagnostics().end());
      continue;
    }
    cases += suites.back().cases.size();
    if (cases > max_cases) {  // the files left are not read: the limit bounds the time and memory too
      problems.push_back(file_problem(
          files[k], "the suite files of this run expand to more than " + detail::with_thousands_separators(max_cases) +
                        " cases together (" + detail::with_thousands_separators(cases) + " up to this file, " +
                        std::to_string(files.size() - k - 1) +
                        " more files not read), the most one run may have; select fewer files, or raise "
                        "the limit with --max-cases N"));
      throw SuiteError(std::move(problems));
    }
  }
  for (const auto& suite : suites) {
    const auto [it, inserted] = by_name.emplace(suite.name, &suite);
    if (!inserted) {
      const Suite& first = *it->second;
      problems.push_back({suite_detail::position(suite.file, suite.line, suite.column),
                          "duplicate suite name '" + suite.name + "'; first used at " +
                              suite_detail::location(first.file, first.line, first.column)});
    }
  }
  if (!problems.empty()) throw SuiteError(std::move(problems));
  return suites;
}

}  // namespace fprev
