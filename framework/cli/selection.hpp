// Options shared by list, check and update: where the suites and goldens are, and which cases.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "args.hpp"
#include "fprev/suite.hpp"

namespace fprev::cli {

struct SelectedCase {
  const Suite* suite;
  const SuiteCase* c;
};

struct Selection {
  std::vector<std::filesystem::path> suite_paths;  // as given (--suites), default ./suites
  std::filesystem::path golden_root;               // --golden, default ./golden
  std::vector<Suite> suites;                       // loaded (all of them: obsolete detection)
  std::vector<SelectedCase> cases;                 // after the filters
};

// Consumes --suites, --golden, --suite, --backend and --case from `args`, loads the suites
// (throws SuiteError) and applies the filters. A filter that matches nothing is a UsageError.
Selection select_cases(Args& args);

std::string test_name(const Suite& suite, const SuiteCase& c);  // reproducibility/<s>/<b>/<c>

}  // namespace fprev::cli
