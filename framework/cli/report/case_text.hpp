// The text of check and update reports, shared by the text and the CTest reporters: the block of
// a case that needs attention, the summary table, the closing line.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "../options.hpp"
#include "fprev/golden.hpp"
#include "fprev/runner.hpp"

namespace fprev::cli {

// A golden no case refers to any more, and what check --unreferenced did with it.
struct ObsoleteGolden {
  GoldenLocation location;
  bool deleted = false;
  std::string kept_because;  // --unreferenced=delete: why it was not deleted ("" otherwise)
};

// How a run ended, counted once for every reporter and for the exit status.
struct CaseCounts {
  std::size_t passed = 0;   // includes update's created/changed/unchanged/repaired
  std::size_t failed = 0;
  std::size_t skipped = 0;
  std::size_t created = 0;
  std::size_t changed = 0;
  std::size_t unchanged = 0;
  std::size_t repaired = 0;
};
CaseCounts count_cases(const std::vector<CaseResult>& results, SkipPolicy policy);

// "12 passed, 1 failed, 2 skipped"; update prefixes "3 created, 1 changed, 8 unchanged, ". With
// environment overrides in effect (environment_overrides.hpp), they follow:
// "12 passed, 0 failed, 2 skipped (environment overrides: FPREV_BLAS_KERNEL=Haswell)".
std::string closing_line(const CaseCounts& counts, const std::string& overrides = "");

std::string identity_text(const Identity& identity);  // "OpenBLAS 0.3.21 (Haswell)"
std::string test_name(const CaseResult& result);      // reproducibility/<suite>/<backend>/<case>

// Why a case failed, in one line without regular-expression characters ("the summation tree
// changed", "the target misbehaves: nondeterministic"); "" when it did not fail. CTest's JUnit
// output carries it as the failure message (list --cmake-tests matches these phrases).
std::string failure_reason(const CaseResult& result, SkipPolicy policy);
// Every phrase failure_reason() can return, the most specific first.
std::vector<std::string> all_failure_reasons();

// The block for people about one case: the diff, the diagnostic, the skip reason, the command
// that accepts or creates its golden, and where check kept the revealed result for review.
// Nothing for a passed or unchanged case.
void print_case_details(std::ostream& out, const CaseResult& result, SkipPolicy policy,
                        const std::string& accept_command);
// The detail column of the summary table: the tree summary, the diff in brief, the finding or the
// reason of a skip, in one line.
std::string case_detail(const CaseResult& result);
// Aligned table: suite, backend, case, status, time, tree summary or reason (case_detail).
void print_summary_table(std::ostream& out, const std::vector<CaseResult>& results);
// The obsolete goldens and what was done with them; `policy` says whether they fail the run.
void print_obsolete(std::ostream& out, const std::vector<ObsoleteGolden>& obsolete, UnreferencedPolicy policy);
// Whether the obsolete goldens fail the run: --unreferenced=fail and some, or
// --unreferenced=delete and one that could not be deleted.
bool obsolete_fails(const std::vector<ObsoleteGolden>& obsolete, UnreferencedPolicy policy);

}  // namespace fprev::cli
