// The suites and cases list, check and update work on (SelectionOptions), loaded and filtered.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fprev/golden.hpp"
#include "fprev/suite.hpp"
#include "options.hpp"

namespace fprev::cli {

struct SelectedCase {
  const Suite* suite;
  const SuiteCase* c;
};

struct Selection {
  std::vector<std::filesystem::path> suite_paths;  // --suites and SUITE_PATH..., else the default
  std::filesystem::path golden_root;               // --golden, else the default
  bool suite_paths_given = false;                  // on the command line (not a default)
  bool golden_given = false;
  std::vector<Suite> suites;                       // loaded (all of them: obsolete detection)
  std::vector<InvalidSuiteFile> invalid;           // keep_invalid: the files that did not load
  std::vector<SelectedCase> cases;                 // after the filters
  std::size_t excluded_by_label = 0;               // matched the filters but carry a left-out label
  std::vector<std::string> excluded_labels;        // --exclude-label, and long unless --label names it
  std::vector<std::string> suite_patterns, backend_patterns, case_patterns;  // the filters
};

// The labels whose cases are opt-in: left out of check and update unless --label names them (long:
// ddot 10^6, minutes to hours a case).
const std::vector<std::string>& opt_in_labels();
// The opt-in labels case `c` carries (empty: it runs by default).
std::vector<std::string> opt_in_labels_of(const SuiteCase& c);
// "long", "long, slow": labels as the reports name them.
std::string label_list(const std::vector<std::string>& labels);

// Loads the suites (throws SuiteError) and applies the filters. Defaults: ./suites or
// $FPREV_SUITES, ./golden or $FPREV_GOLDEN_DIR. A missing suite path or a filter that matches no
// case is a UsageError. keep_invalid: suite files that do not load are listed in
// Selection::invalid instead (list --cmake-tests registers failing tests for them).
Selection select_cases(const SelectionOptions& options, bool keep_invalid = false);

// --golden DIR, else $FPREV_GOLDEN_DIR, else ./golden. A UsageError when the option names
// something that is not a directory.
std::filesystem::path resolve_golden_root(const std::optional<std::string>& option);

// Whether `text` matches one of the glob patterns; true when there are none.
bool matches_any(const std::vector<std::string>& patterns, const std::string& text);

// The goldens of the selection that no case of the loaded suites refers to any more: of a loaded
// suite, and of the suites, backend instances and case ids the filters select.
std::vector<GoldenLocation> obsolete_in_selection(const Selection& selection);

// The --suites/--golden arguments that reproduce this selection's files in another command: those
// given on the command line as given, or (absolute) every path made absolute, defaults included,
// so the command works from any directory.
std::vector<std::string> selection_arguments(const Selection& selection, bool absolute);

std::string test_name(const Suite& suite, const SuiteCase& c);  // reproducibility/<s>/<b>/<c>

}  // namespace fprev::cli
