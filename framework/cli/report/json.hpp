// The one JSON path of fprev-golden: every --json / --format json document is built from these
// functions with nlohmann-json and written by write_json(). The schema is docs/json.md (and the
// machine-readable docs/fprev-golden.schema.json the tests validate against).
//
// JSON types stay inside the command line: the framework's public headers know nothing of JSON,
// so the installed package does not depend on nlohmann-json.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>

#include "fprev/backend.hpp"
#include "fprev/diff.hpp"
#include "fprev/golden.hpp"
#include "fprev/impact.hpp"
#include "fprev/invariance.hpp"
#include "fprev/order_map.hpp"
#include "fprev/reveal.hpp"
#include "fprev/runner.hpp"
#include "fprev/target_calls.hpp"
#include "fprev/tree.hpp"

namespace fprev::cli {

// Objects keep the order in which members are set, so a document always prints the same bytes
// and reads top-down (command first).
using Json = nlohmann::ordered_json;

// Bumped when a field changes meaning or disappears; new fields do not bump it.
inline constexpr int kJsonSchemaVersion = 1;

// {"schema_version": 1, "command": <command>, "tool_version": ...}: the head of every document.
Json json_document(std::string_view command);

Json tree_to_json(const Tree& tree);                  // summary fields and the S-expression
Json identity_to_json(const Identity& identity);
Json metadata_to_json(const GoldenMetadata& meta);
// {"metadata", "result", "tree", "classes", "fingerprint", "fingerprints", "finding"}
Json golden_to_json(const Golden& golden);
// What a golden records, without its metadata: {"result", "tree", "classes", "fingerprint",
// "fingerprints", "finding"} (the part golden_to_json and show/diff share).
Json result_to_json(const Golden& golden);
Json finding_to_json(const RecordedFinding& finding);
Json fingerprint_to_json(const Fingerprint& fingerprint);
Json fingerprint_change_to_json(const FingerprintComparison& change);
Json fingerprint_stats_to_json(const FingerprintStats& stats);
// What a change costs (fprev/impact.hpp): null when there is none. The first changed class pair's
// figures at the top ("sets" by name, the bounds in units of u), every pair under "changes".
Json impact_to_json(const std::optional<ResultImpact>& impact);
Json diff_to_json(const TreeDiff& diff);
// `jobs_started`: the jobs the backend launched for the case's targets (TargetInfo::jobs_started).
Json stats_to_json(const RevealStats& stats, std::size_t jobs_started);
// The classes of an order map, one entry per region: {"class": k, "rows": [[first, last], ...],
// "columns": [[first, last], ...], "tree": "<S-expression>", "description": one-line summary}.
// A class made of several regions has several entries with the same "class" and "tree".
Json order_classes_to_json(const OrderMap& map);
// The alignment check's result (fprev/alignment.hpp): null when not recorded / not checked.
Json alignment_to_json(const std::optional<AlignmentResult>& alignment);
Json alignment_stats_to_json(const AlignmentStats& stats);
// A case's target calls by part, and their total (docs/json.md, "target_calls").
Json target_calls_to_json(const TargetCalls& calls);
// Invariance verdicts (fprev/invariance.hpp): an array of {"parameter", "level", "values",
// "invariant", "summary", "counterexample": null or {"value", "base_value", "row", "column",
// "element", "leaves", "base_subtree", "variant_subtree", "explanation"}}.
Json invariance_to_json(const std::vector<InvarianceResult>& results);
Json invariance_stats_to_json(const InvarianceStats& stats);
Json diagnostic_to_json(const Diagnostic& diagnostic);
Json params_to_json(const Params& params);            // {"name": "value", ...}

// The status names of the JSON reports: identifiers ("missing_golden"), not the table's words.
std::string status_name(CaseStatus status);
// "passed", "failed" or "skipped": how the gate counts the status.
std::string outcome_name(const CaseResult& result, SkipPolicy policy);

// One case of a check or update report. `accept_command` is the command that accepts or creates
// the golden ("" when the case needs none).
Json case_to_json(const CaseResult& result, SkipPolicy policy, const std::string& accept_command);

// Pretty-printed (two spaces), followed by a newline. Bytes that are not valid UTF-8 (a library's
// configuration string, say) become U+FFFD, so the output is always valid JSON; non-finite numbers
// are written as null.
void write_json(std::ostream& out, const Json& document);

}  // namespace fprev::cli
