// Fuzz harness: the suite loader, with the shipped backends registered (their parameters, static
// case checks and id rules are part of what a suite's text reaches). Any text either loads, and
// then the suite written back as YAML (suite_yaml_writer.hpp) loads to the same suite, or is
// refused with a SuiteError whose problems are bounded: at most kMaxReportedSuiteErrors plus one
// line counting the rest, each message short, each position inside the text.
#include <algorithm>
#include <set>
#include <string>

#include "fprev/backend.hpp"
#include "fprev/suite.hpp"
#include "harness.hpp"
#include "suite_yaml_writer.hpp"

using namespace fprev;

namespace {

void check_refusal(const SuiteError& error, std::string_view text) {
  const auto& problems = error.diagnostics();
  fuzz::require(!problems.empty(), "a SuiteError without problems");
  fuzz::require(problems.size() <= kMaxReportedSuiteErrors + 1, "too many problems reported",
                error.what());
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  for (const auto& problem : problems) {
    fuzz::require(problem.where.line <= lines + 1, "a problem on a line beyond the text",
                  problem.str());
    fuzz::require_bounded_message(problem.str(), 1200);
  }
}

void check_loaded(const Suite& suite) {
  fuzz::require(is_file_name_safe(suite.name), "a loaded suite's name is not file-name safe",
                suite.name);
  fuzz::require(suite.cases.size() <= kMaxSuiteCases, "a loaded suite has too many cases");
  std::set<std::pair<std::string, std::string>> ids;
  for (const auto& c : suite.cases) {
    fuzz::require(is_file_name_safe(c.id), "a case id is not file-name safe", c.id);
    fuzz::require(suite.find_backend(c.backend_instance) != nullptr,
                  "a case of an undeclared instance", c.backend_instance);
    fuzz::require(ids.emplace(c.backend_instance, c.id).second, "a case id is not unique", c.id);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fprev::fuzz::CpuLimit cpu_limit;
  const std::string_view text = fuzz::as_text(data, size);
  const BackendRegistry& registry = builtin_backends();
  Suite suite;
  try {
    suite = parse_suite(text, "fuzz.yaml", registry);
  } catch (const SuiteError& error) {
    check_refusal(error, text);
    return 0;
  }
  check_loaded(suite);
  const std::string written = fuzz::write_suite_yaml(suite);
  Suite again;
  try {
    again = parse_suite(written, "rewritten.yaml", registry);
  } catch (const SuiteError& error) {
    fuzz::fail("the written form of a loaded suite does not load",
               std::string(error.what()) + "\n--- written:\n" + written);
  }
  const std::string difference = fuzz::suite_difference(suite, again);
  fuzz::require(difference.empty(), "the suite changed through writing",
                difference + "\n--- written:\n" + written);
  return 0;
}
