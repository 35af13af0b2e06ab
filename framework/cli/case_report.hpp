// Reports of check and update: one block per case that needs attention, a summary table, JSON.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "fprev/golden.hpp"
#include "fprev/json.hpp"
#include "fprev/runner.hpp"

namespace fprev::cli {

std::string identity_text(const Identity& identity);  // "OpenBLAS 0.3.21 (Haswell)"
// The details of one case for people: the diff, the diagnostic, the skip reason.
void print_case_details(std::ostream& out, const CaseResult& result, bool strict);
// Aligned table: suite, backend, case, status, time, tree summary or reason.
void print_summary_table(std::ostream& out, const std::vector<CaseResult>& results);
// "12 passed, 1 failed, 2 skipped" (update: "3 created, 1 changed, 8 unchanged, ...").
std::string closing_line(const std::vector<CaseResult>& results, bool strict);
Json case_to_json(const CaseResult& result, bool strict);
void print_obsolete(std::ostream& out, const std::vector<GoldenLocation>& obsolete);

}  // namespace fprev::cli
