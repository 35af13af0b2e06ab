// The report for tools: one JSON document (docs/json.md, "check and update").
#include "json.hpp"
#include "reporter.hpp"

namespace fprev::cli {
namespace {

std::string unreferenced_name(UnreferencedPolicy policy) {
  switch (policy) {
    case UnreferencedPolicy::warn: return "warn";
    case UnreferencedPolicy::fail: return "fail";
    case UnreferencedPolicy::remove: return "delete";
  }
  return "warn";
}

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(std::ostream& out) : out_(out) {}

  void run_started(const RunInfo& info) override {
    command_ = info.command;
    policy_ = info.policy;
    excluded_by_label_ = info.excluded_by_label;
    excluded_labels_ = info.excluded_labels;
  }

  void case_finished(const CaseResult& result, const std::string& accept_command) override {
    cases_.push_back(case_to_json(result, policy_, accept_command));
  }

  void run_finished(const RunSummary& summary) override {
    Json document = json_document(command_);
    document["strict"] = policy_.strict;
    document["ci"] = policy_.ci;
    const CaseCounts& c = summary.counts;
    document["counts"] = {{"passed", c.passed},   {"failed", c.failed},
                          {"skipped", c.skipped}, {"created", c.created},
                          {"changed", c.changed}, {"unchanged", c.unchanged},
                          {"repaired", c.repaired}};
    document["summary"] = closing_line(c, describe_overrides(summary.environment_overrides));
    Json overrides = Json::array();
    for (const EnvironmentOverride& o : summary.environment_overrides) {
      Json entry = Json::object();
      entry["variable"] = o.variable;
      entry["value"] = o.value;
      overrides.push_back(std::move(entry));
    }
    document["environment_overrides"] = std::move(overrides);
    document["lost_ranks"] = summary.lost_ranks;
    document["cases"] = std::move(cases_);
    Json obsolete = Json::array(), deleted = Json::array(), kept = Json::array();
    for (const auto& g : summary.obsolete) {
      obsolete.push_back(g.location.path.string());
      if (g.deleted) deleted.push_back(g.location.path.string());
      else if (summary.unreferenced == UnreferencedPolicy::remove)
        kept.push_back({{"path", g.location.path.string()}, {"reason", g.kept_because}});
    }
    document["obsolete_goldens"] = std::move(obsolete);
    document["unreferenced"] = unreferenced_name(summary.unreferenced);
    document["deleted_goldens"] = std::move(deleted);
    document["undeleted_goldens"] = std::move(kept);
    document["review_command"] = summary.review_command.empty() ? Json(nullptr) : Json(summary.review_command);
    document["excluded_by_label"] = excluded_by_label_;
    document["excluded_labels"] = excluded_labels_;
    write_json(out_, document);
  }

 private:
  std::ostream& out_;
  std::string command_;
  SkipPolicy policy_;
  std::size_t excluded_by_label_ = 0;
  std::vector<std::string> excluded_labels_;
  Json cases_ = Json::array();
};

}  // namespace

std::unique_ptr<Reporter> make_json_reporter(std::ostream& out) {
  return std::make_unique<JsonReporter>(out);
}

}  // namespace fprev::cli
