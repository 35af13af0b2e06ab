#include "json.hpp"

#include <cmath>
#include <optional>

#include "fprev/impact.hpp"
#include "fprev/result_diff.hpp"
#include "fprev/sexpr.hpp"
#include "fprev/summary.hpp"
#include "../version.hpp"

namespace fprev::cli {
namespace {

// A string, or null when empty: optional text fields are null rather than "" in the schema.
Json text_or_null(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

// JSON has no NaN or infinity; a raw output that is one is exactly what a diagnostic must show.
Json number_or_name(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

Json string_map_to_json(const std::map<std::string, std::string>& map) {
  Json json = Json::object();
  for (const auto& [key, value] : map) json[key] = value;
  return json;
}

}  // namespace

Json json_document(std::string_view command) {
  Json json = Json::object();
  json["schema_version"] = kJsonSchemaVersion;
  json["command"] = command;
  json["tool_version"] = kToolVersion;
  return json;
}

Json tree_to_json(const Tree& tree) {
  const TreeSummary summary = summarize(tree);
  Json arity = Json::object();
  for (const auto& [children, count] : summary.arity) arity[std::to_string(children)] = count;
  Json json = Json::object();
  json["leaves"] = summary.leaves;
  json["inner_nodes"] = summary.inner_nodes;
  json["depth"] = summary.depth;
  json["arity"] = std::move(arity);
  json["max_arity"] = summary.max_arity;
  json["description"] = summary.description;
  json["recognized"] = summary.recognized;
  json["sexpr"] = to_sexpr(tree);
  return json;
}

Json identity_to_json(const Identity& identity) {
  Json json = Json::object();
  json["library"] = identity.library;
  json["version"] = identity.version;
  json["configuration"] = identity.configuration;
  json["platform_key"] = identity.platform_key;
  json["details"] = string_map_to_json(identity.details);
  return json;
}

Json metadata_to_json(const GoldenMetadata& meta) {
  Json json = Json::object();
  json["format_version"] = meta.format_version;
  json["suite"] = meta.suite;
  json["case"] = meta.case_id;
  json["backend"] = meta.backend;
  json["platform_key"] = meta.platform_key;
  json["library"] = meta.library;
  json["library_version"] = meta.library_version;
  json["library_configuration"] = meta.library_configuration;
  json["tool_version"] = meta.tool_version;
  json["created"] = meta.created;
  json["extra"] = string_map_to_json(meta.extra);
  return json;
}

Json finding_to_json(const RecordedFinding& finding) {
  Json json = Json::object();
  json["finding"] = to_string(finding.finding);
  json["message"] = finding.message;
  json["probe"] = text_or_null(finding.probe);
  json["likely_cause"] = text_or_null(finding.likely_cause);
  return json;
}

Json result_to_json(const Golden& golden) {
  Json json = Json::object();
  json["result"] = golden.finding ? "finding" : golden.is_single_tree() ? "tree" : "map";
  json["tree"] = golden.is_single_tree() ? tree_to_json(golden.tree()) : Json(nullptr);
  json["classes"] = golden.finding ? Json(nullptr) : order_classes_to_json(golden.map);
  json["fingerprint"] = golden.fingerprint() != nullptr ? fingerprint_to_json(*golden.fingerprint()) : Json(nullptr);
  Json fingerprints = Json::array();
  for (const Fingerprint& f : golden.fingerprints) fingerprints.push_back(fingerprint_to_json(f));
  json["fingerprints"] = std::move(fingerprints);
  json["finding"] = golden.finding ? finding_to_json(*golden.finding) : Json(nullptr);
  json["alignment"] = alignment_to_json(golden.alignment);
  json["invariance"] = invariance_to_json(golden.invariance);
  return json;
}

Json alignment_to_json(const std::optional<AlignmentResult>& alignment) {
  if (!alignment) return Json(nullptr);
  static constexpr const char* kVerdicts[] = {"not_checked", "not_applicable", "independent", "dependent"};
  Json json = Json::object();
  json["verdict"] = kVerdicts[static_cast<int>(alignment->verdict)];
  json["summary"] = alignment->summary();
  json["offsets_checked"] = alignment->offsets;
  json["padded_leading_dimensions"] = alignment->padded;
  Json classes = Json::array();
  for (const OffsetClass& c : alignment->classes) {
    Json entry = Json::object();
    entry["offsets"] = c.placements.offsets;
    entry["padded"] = c.placements.padded;
    entry["tree"] = c.map.single_class() ? tree_to_json(c.map.classes[0].tree) : Json(nullptr);
    entry["classes"] = order_classes_to_json(c.map);
    classes.push_back(std::move(entry));
  }
  json["classes"] = std::move(classes);
  return json;
}

Json alignment_stats_to_json(const AlignmentStats& stats) {
  Json json = Json::object();
  json["placements"] = stats.placements;
  json["proofs"] = stats.proofs;
  json["proofs_failed"] = stats.proofs_failed;
  json["reveals"] = stats.reveals;
  json["probes"] = stats.probes;
  json["multi_pair_probes"] = stats.multi_pair_probes;
  json["target_calls"] = stats.target_calls;
  json["seconds"] = stats.seconds;
  return json;
}

Json target_calls_to_json(const TargetCalls& calls) {
  Json json = Json::object();
  json["reveal"] = calls.reveal;
  json["verification"] = calls.verification;
  json["placement_proof"] = calls.placement_proof;
  json["fingerprint"] = calls.fingerprint;
  json["invariance"] = calls.invariance;
  json["other"] = calls.other;
  json["total"] = calls.total();
  return json;
}

Json invariance_to_json(const std::vector<InvarianceResult>& results) {
  Json array = Json::array();
  for (const InvarianceResult& r : results) {
    Json json = Json::object();
    json["parameter"] = r.parameter;
    json["level"] = invariance_level(r.parameter);
    json["values"] = r.values;
    json["invariant"] = r.invariant;
    json["summary"] = r.summary();
    if (r.counterexample) {
      const InvarianceCounterexample& c = *r.counterexample;
      Json ce = Json::object();
      ce["value"] = c.value;
      ce["base_value"] = c.base_value;
      ce["row"] = c.row;
      ce["column"] = c.column;
      ce["single_output"] = c.single_output;
      ce["leaves"] = c.leaves.empty() ? Json(nullptr) : Json(c.leaves);
      ce["base_subtree"] = c.base_subtree.empty() ? Json(nullptr) : Json(c.base_subtree);
      ce["variant_subtree"] = c.variant_subtree.empty() ? Json(nullptr) : Json(c.variant_subtree);
      ce["explanation"] = r.explanation();
      json["counterexample"] = std::move(ce);
    } else {
      json["counterexample"] = nullptr;
    }
    array.push_back(std::move(json));
  }
  return array;
}

Json invariance_stats_to_json(const InvarianceStats& stats) {
  Json json = Json::object();
  json["variants"] = stats.variants;
  json["proofs"] = stats.proofs;
  json["proofs_failed"] = stats.proofs_failed;
  json["reveals"] = stats.reveals;
  json["probes"] = stats.probes;
  json["target_calls"] = stats.target_calls;
  json["seconds"] = stats.seconds;
  return json;
}

Json golden_to_json(const Golden& golden) {
  Json json = Json::object();
  json["metadata"] = metadata_to_json(golden.meta);
  json.update(result_to_json(golden));
  return json;
}

Json fingerprint_to_json(const Fingerprint& fingerprint) {
  Json json = Json::object();
  json["digest"] = fingerprint.digest();
  json["facts"] = string_map_to_json(fingerprint.facts);
  json["model"] = fingerprint.model;
  Json outputs = Json::object();
  for (const auto& [set, values] : fingerprint.outputs) {
    Json list = Json::array();
    for (double v : values) list.push_back(hex_double(v));
    outputs[set] = std::move(list);
  }
  json["outputs"] = std::move(outputs);
  return json;
}

namespace {

// {"uniform": {...}, "normal": {...}, "cancel": {...}}: one input set's figures each.
Json impact_sets_to_json(const TreeImpact& impact) {
  Json sets = Json::object();
  for (const ImpactSet& s : impact.sets) {
    Json set = Json::object();
    set["inputs"] = s.inputs;
    set["differing"] = s.differing;
    set["max_ulp"] = s.max_ulp;
    set["median_ulp"] = s.median_ulp;
    set["old_max_relative_error"] = s.old_max_relative_error;
    set["new_max_relative_error"] = s.new_max_relative_error;
    set["max_relative_difference"] = s.max_relative_difference;
    set["median_condition"] = s.median_condition;
    sets[s.name] = std::move(set);
  }
  return sets;
}

Json class_impact_to_json(const ClassImpact& change) {
  Json json = Json::object();
  json["elements"] = change.elements.empty() ? Json(nullptr) : Json(change.elements);
  json["element_count"] = change.element_count;
  json["before_class"] = change.before_class;
  json["after_class"] = change.after_class;
  json["sets"] = impact_sets_to_json(change.impact);
  json["old_bound_u"] = change.impact.old_bound.h;
  json["new_bound_u"] = change.impact.new_bound.h;
  json["suggested_tolerance"] = change.impact.suggested_tolerance;
  json["notes"] = change.impact.notes;
  return json;
}

}  // namespace

Json impact_to_json(const std::optional<ResultImpact>& impact) {
  if (!impact) return nullptr;
  const ClassImpact& first = impact->changes.front();
  Json json = Json::object();
  json["summary"] = impact_line(*impact);
  json["sets"] = impact_sets_to_json(first.impact);
  json["old_bound_u"] = first.impact.old_bound.h;
  json["new_bound_u"] = first.impact.new_bound.h;
  json["suggested_tolerance"] = impact->suggested_tolerance;
  json["arithmetic"] = impact->arithmetic;
  Json changes = Json::array();
  for (const ClassImpact& change : impact->changes) changes.push_back(class_impact_to_json(change));
  json["changes"] = std::move(changes);
  json["unevaluated_changes"] = impact->unevaluated;
  return json;
}

Json fingerprint_change_to_json(const FingerprintComparison& change) {
  Json json = Json::object();
  json["same"] = change.same();
  json["summary"] = change.summary();
  json["inputs"] = change.inputs;
  json["differing_outputs"] = change.differing_outputs;
  if (change.differing_outputs != 0) {
    Json first = Json::object();
    first["set"] = change.first_set;
    first["row"] = change.first_row;
    first["golden"] = hex_double(change.golden_output);
    first["new"] = hex_double(change.new_output);
    first["ulps"] = change.ulps ? Json(*change.ulps) : Json(nullptr);
    json["first_difference"] = std::move(first);
  } else {
    json["first_difference"] = nullptr;
  }
  json["changed_facts"] = change.changed_facts;
  json["inputs_comparable"] = change.inputs_comparable;
  return json;
}

Json fingerprint_stats_to_json(const FingerprintStats& stats) {
  Json json = Json::object();
  json["target_calls"] = stats.target_calls;
  json["inputs"] = stats.inputs;
  json["seconds"] = stats.seconds;
  return json;
}

Json diff_to_json(const TreeDiff& diff) {
  Json json = Json::object();
  json["comparable"] = diff.comparable;
  json["equal"] = diff.comparable && diff.equal;
  json["note"] = text_or_null(diff.note);
  json["old_inner_nodes"] = diff.old_inner;
  json["new_inner_nodes"] = diff.new_inner;
  json["agreeing_inner_nodes"] = diff.agreeing_inner_nodes;
  json["difference_count"] = diff.difference_count;
  json["condensed"] = diff.condensed;
  Json items = Json::array();
  for (const DiffItem& item : diff.differences) {
    Json entry = Json::object();
    entry["leaves"] = item.leaves_text;
    entry["leaf_count"] = item.leaves.size();
    entry["old"] = item.old_sexpr;
    entry["new"] = item.new_sexpr;
    items.push_back(std::move(entry));
  }
  json["differences"] = std::move(items);
  return json;
}

Json stats_to_json(const RevealStats& stats, std::size_t jobs_started) {
  Json json = Json::object();
  json["probes"] = stats.probes;
  json["target_calls"] = stats.target_calls;
  json["verification_calls"] = stats.verification_calls;
  json["random_inputs"] = stats.value_inputs;
  json["target_seconds"] = stats.target_seconds;
  json["total_seconds"] = stats.total_seconds;
  json["low_range_mode"] = stats.low_range_mode;
  json["verified_probes"] = stats.verified_probes;
  json["simulated_inputs"] = stats.simulated_inputs;
  json["arithmetic_note"] = text_or_null(stats.arithmetic_note);
  json["classes"] = stats.map_classes;
  json["class_splits"] = stats.class_splits;
  json["element_checks"] = stats.element_checks;
  json["pair_grid_calls"] = stats.pair_grid_calls;
  json["pair_grid_answers"] = stats.pair_grid_answers;
  json["fused_node_tests"] = stats.fused_node_tests;
  json["confirmed"] = stats.confirmed;
  json["confirm_probes"] = stats.confirm_probes;
  json["streams"] = stats.streams;
  json["waves"] = stats.waves;
  json["ranks"] = stats.ranks;
  json["rank_probes"] = stats.rank_probes;
  json["guesses_proven"] = stats.guesses_proven;
  json["guesses_failed"] = stats.guesses_failed;
  json["jobs_started"] = jobs_started;
  json["every_element_proven"] = stats.every_element_proven;
  json["element_proof_calls"] = stats.element_proof_calls;
  json["element_proof_skipped"] = text_or_null(stats.element_proof_skipped);
  return json;
}

Json order_classes_to_json(const OrderMap& map) {
  const auto ranges = [](const IndexRanges& list) {
    Json json = Json::array();
    for (const IndexRange& r : list) json.push_back(Json::array({r.first, r.last}));
    return json;
  };
  Json json = Json::array();
  for (std::size_t k = 0; k < map.classes.size(); ++k) {
    const OrderClass& c = map.classes[k];
    const std::string sexpr = to_sexpr(c.tree);
    const std::string description = format_summary(summarize(c.tree));
    for (const Region& region : c.regions) {
      Json entry = Json::object();
      entry["class"] = k;
      entry["rows"] = ranges(region.rows);
      entry["columns"] = ranges(region.columns);
      entry["tree"] = sexpr;
      entry["description"] = description;
      json.push_back(std::move(entry));
    }
  }
  return json;
}

Json diagnostic_to_json(const Diagnostic& diagnostic) {
  Json json = Json::object();
  json["finding"] = to_string(diagnostic.finding);
  json["message"] = diagnostic.message;
  json["probe"] = text_or_null(diagnostic.probe);
  json["raw_output"] = diagnostic.raw_output ? number_or_name(*diagnostic.raw_output) : Json(nullptr);
  json["likely_cause"] = text_or_null(diagnostic.likely_cause);
  if (const auto& v = diagnostic.variability) {
    Json variability = Json::object();
    variability["runs"] = v->runs;
    variability["inputs"] = v->inputs;
    variability["V_c"] = v->count_variability;
    variability["V_ermv"] = v->ermv;
    variability["distinct_outputs"] = v->distinct_outputs;
    json["variability"] = std::move(variability);
  } else {
    json["variability"] = nullptr;
  }
  return json;
}

Json params_to_json(const Params& params) { return string_map_to_json(params); }

std::string status_name(CaseStatus status) {
  std::string name(to_string(status));
  for (char& c : name)
    if (c == ' ') c = '_';
  return name;
}

std::string outcome_name(const CaseResult& r, SkipPolicy policy) {
  if (is_failure(r, policy)) return "failed";
  if (is_skip(r, policy)) return "skipped";
  return "passed";
}

Json case_to_json(const CaseResult& r, SkipPolicy policy, const std::string& accept_command) {
  const bool opened = !r.platform_key.empty();
  Json json = Json::object();
  json["test"] = "reproducibility/" + r.suite + "/" + r.backend + "/" + r.case_id;
  json["suite"] = r.suite;
  json["backend"] = r.backend;
  json["case"] = r.case_id;
  json["call_sites"] = r.call_sites;
  json["status"] = status_name(r.status);
  json["outcome"] = outcome_name(r, policy);
  json["message"] = text_or_null(r.message);
  json["platform_key"] = text_or_null(r.platform_key);
  json["golden_path"] = text_or_null(r.golden_path.string());
  json["identity"] = opened ? identity_to_json(r.identity) : Json(nullptr);
  json["target"] = text_or_null(r.target_description);
  json["seconds"] = r.seconds;
  json["golden"] = r.golden ? golden_to_json(*r.golden) : Json(nullptr);
  const Tree* revealed_tree = r.revealed_tree();
  json["revealed"] = revealed_tree != nullptr ? tree_to_json(*revealed_tree) : Json(nullptr);
  json["revealed_classes"] = r.revealed ? order_classes_to_json(*r.revealed) : Json(nullptr);
  const bool changed = r.golden && (r.status == CaseStatus::differs || r.status == CaseStatus::changed);
  const std::optional<Golden> now = changed ? golden_of(r, "-") : std::nullopt;
  const bool tree_diff = now && r.golden->is_single_tree() && now->is_single_tree();
  json["diff"] = tree_diff ? diff_to_json(diff_trees(r.golden->tree(), now->tree())) : Json(nullptr);
  json["change"] = now ? Json(result_diff_summary(*r.golden, *now)) : Json(nullptr);
  json["diagnostic"] = r.diagnostic ? diagnostic_to_json(*r.diagnostic) : Json(nullptr);
  json["stats"] = r.revealed || r.diagnostic ? stats_to_json(r.stats, r.jobs_started) : Json(nullptr);
  json["accept_command"] = text_or_null(accept_command);
  json["fingerprint"] = !r.fingerprints.empty() ? fingerprint_to_json(r.fingerprints[r.fingerprint_change ? r.fingerprint_class : 0])
                                                : Json(nullptr);
  Json fingerprints = Json::array();
  for (const Fingerprint& f : r.fingerprints) fingerprints.push_back(fingerprint_to_json(f));
  json["fingerprints"] = std::move(fingerprints);
  json["fingerprint_class"] = r.fingerprint_class;
  json["fingerprint_change"] = r.fingerprint_change ? fingerprint_change_to_json(*r.fingerprint_change) : Json(nullptr);
  json["impact"] = impact_to_json(r.impact);
  json["fingerprint_stats"] = !r.fingerprints.empty() ? fingerprint_stats_to_json(r.fingerprint_stats) : Json(nullptr);
  json["alignment"] = alignment_to_json(r.alignment);
  json["alignment_differs"] = r.alignment_differs;
  json["alignment_stats"] = r.alignment ? alignment_stats_to_json(r.alignment_stats) : Json(nullptr);
  json["target_calls"] =
      r.revealed || r.diagnostic
          ? target_calls_to_json(count_target_calls(r.stats, r.alignment ? &r.alignment_stats : nullptr,
                                                    r.fingerprints.empty() ? nullptr : &r.fingerprint_stats,
                                                    r.other_target_calls, r.invariance_stats))
          : Json(nullptr);
  json["invariance"] = invariance_to_json(r.invariance);
  Json invariance_stats = Json::array();
  for (const InvarianceStats& s : r.invariance_stats) invariance_stats.push_back(invariance_stats_to_json(s));
  json["invariance_stats"] = std::move(invariance_stats);
  json["invariance_changes"] = r.invariance_changes;
  json["invariance_lost"] = r.invariance_lost;
  json["pending_file"] = text_or_null(r.pending_path.string());
  json["pending_error"] = text_or_null(r.pending_error);
  return json;
}

void write_json(std::ostream& out, const Json& document) {
  out << document.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}

}  // namespace fprev::cli
