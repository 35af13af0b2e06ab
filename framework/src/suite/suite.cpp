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

const ParamSpec* find_spec(const std::vector<ParamSpec>& specs, const std::string& name) {
  for (const auto& spec : specs)
    if (spec.name == name) return &spec;
  return nullptr;
}

std::vector<std::string> spec_names(const std::vector<ParamSpec>& specs) {
  std::vector<std::string> names;
  for (const auto& spec : specs) names.push_back(spec.name);
  return names;
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

const Suite& SuiteError::readable() const {
  static const Suite nothing;
  return readable_ ? *readable_ : nothing;
}

void SuiteError::set_readable(Suite readable) { readable_ = std::make_shared<const Suite>(std::move(readable)); }

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

namespace {

// The value of a line `suite: <name>` (the first), when it is a valid name: a file that does not
// parse as YAML still says what it is called.
std::string suite_line_name(const std::filesystem::path& file) {
  const std::string head = detail::read_file_prefix(file, kMaxSuiteBytes);
  std::size_t start = 0;
  while (start < head.size()) {
    std::size_t end = head.find('\n', start);
    if (end == std::string::npos) end = head.size();
    std::string_view line(head.data() + start, end - start);
    start = end + 1;
    if (line.substr(0, 6) != "suite:") continue;
    line.remove_prefix(6);
    if (const std::size_t comment = line.find(" #"); comment != std::string_view::npos) line = line.substr(0, comment);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
    if (line.size() >= 2 && (line.front() == '"' || line.front() == '\'') && line.back() == line.front())
      line = line.substr(1, line.size() - 2);
    return is_file_name_safe(line) ? std::string(line) : "";
  }
  return "";
}

// What stands in for a suite that did not load: what the parser could read, named as
// InvalidSuiteFile says.
InvalidSuiteFile invalid_file(const std::filesystem::path& file, std::vector<SuiteDiagnostic> diagnostics,
                              Suite readable) {
  readable.file = file.string();
  if (readable.name.empty()) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec)) readable.name = suite_line_name(file);
  }
  if (readable.name.empty()) readable.name = suite_detail::sanitize_id_part(file.stem().string());
  if (!is_file_name_safe(readable.name)) readable.name = "unnamed";
  return {file.string(), std::move(diagnostics), std::move(readable)};
}

}  // namespace

LoadedSuites load_suites_keeping_going(const std::vector<std::filesystem::path>& files_or_directories,
                                       const BackendRegistry& registry, std::uint64_t max_cases) {
  LoadedSuites loaded;
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
        loaded.invalid.push_back(invalid_file(path, {file_problem(path, "no suite files (*.yaml, *.yml) in this directory")}, {}));
      files.insert(files.end(), found.begin(), found.end());
    } catch (const std::filesystem::filesystem_error& error) {
      loaded.invalid.push_back(invalid_file(path, {file_problem(path, std::string("cannot list directory: ") + error.what())}, {}));
    }
  }

  std::vector<Suite> suites;
  std::uint64_t cases = 0;
  for (std::size_t k = 0; k < files.size(); ++k) {
    try {
      suites.push_back(load_suite(files[k], registry));
    } catch (const SuiteError& error) {
      loaded.invalid.push_back(invalid_file(files[k], error.diagnostics(), error.readable()));
      continue;
    }
    // A total over the files of the run, not a file's problem: the whole run is refused, and the
    // files left are not read (the limit bounds the time and memory too).
    cases += suites.back().cases.size();
    if (cases > max_cases)
      throw SuiteError({file_problem(
          files[k], "the suite files of this run expand to more than " + detail::with_thousands_separators(max_cases) +
                        " cases together (" + detail::with_thousands_separators(cases) + " up to this file, " +
                        std::to_string(files.size() - k - 1) +
                        " more files not read), the most one run may have; select fewer files, or raise "
                        "the limit with --max-cases N")});
  }
  std::map<std::string, std::string> first_by_name;  // name -> where it is first used
  std::vector<InvalidSuiteFile> duplicates;
  for (auto& suite : suites) {
    const auto [it, inserted] =
        first_by_name.emplace(suite.name, suite_detail::location(suite.file, suite.line, suite.column));
    if (inserted) {
      loaded.suites.push_back(std::move(suite));
      continue;
    }
    SuiteDiagnostic problem{suite_detail::position(suite.file, suite.line, suite.column),
                            "duplicate suite name '" + suite.name + "'; first used at " + it->second};
    const std::string file = suite.file;
    duplicates.push_back(invalid_file(file, {std::move(problem)}, std::move(suite)));
  }
  loaded.invalid.insert(loaded.invalid.end(), std::make_move_iterator(duplicates.begin()),
                        std::make_move_iterator(duplicates.end()));
  return loaded;
}

std::vector<Suite> load_suites(const std::vector<std::filesystem::path>& files_or_directories,
                               const BackendRegistry& registry, std::uint64_t max_cases) {
  LoadedSuites loaded = load_suites_keeping_going(files_or_directories, registry, max_cases);
  std::vector<SuiteDiagnostic> problems;
  for (const InvalidSuiteFile& file : loaded.invalid)
    problems.insert(problems.end(), file.diagnostics.begin(), file.diagnostics.end());
  if (!problems.empty()) throw SuiteError(std::move(problems));
  return std::move(loaded.suites);
}

}  // namespace fprev
