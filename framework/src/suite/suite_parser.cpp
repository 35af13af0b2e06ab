// Checks the YAML of one suite and expands its cases. Every problem is collected with its position
// (the loader never stops at the first one) and thrown at the end as one SuiteError, so a user
// fixes a suite in one round. Backends are only asked for their parameter lists and static checks;
// nothing is opened here.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "fprev/invariance.hpp"
#include "fprev/suite.hpp"
#include "suite/bounded_yaml.hpp"
#include "suite_detail.hpp"
#include "text/text_checks.hpp"

namespace fprev {
namespace {

// Errors kept before sorting (the first kMaxReportedSuiteErrors in file order are reported).
constexpr std::size_t kMaxKeptErrors = 1000;
constexpr std::size_t kMaxMessageBytes = 1024;  // a message quoting a long value is shortened
constexpr std::size_t kMaxNamesListed = 20;     // of backend instances, in "allowed values"
constexpr std::size_t kMaxInstancesPerDeclaration = 1000;

const char* const kTopLevelKeys = "suite, description, environment_overrides, backends, cases";

struct Pos {
  int line = 0;
  int column = 0;
};

Pos pos_of(const YAML::Node& node, Pos fallback) {
  // yaml-cpp places an empty value at the next token, often the next line: point at its key.
  if (!node.IsDefined() || node.IsNull()) return fallback;
  const YAML::Mark mark = node.Mark();
  if (mark.is_null() || mark.line < 0 || mark.column < 0) return fallback;
  return {mark.line + 1, mark.column + 1};
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a single value";
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      break;
  }
  return "no value";
}

using suite_detail::find_spec;
using suite_detail::spec_names;

// "1 entry", "1,000 entries".
std::string counted(std::uint64_t count, std::string_view one, std::string_view many) {
  return detail::with_thousands_separators(count) + " " + std::string(count == 1 ? one : many);
}

// A name, value or key from the file, quoted for a message: bounded, whatever its length.
std::string quote(const std::string& text) { return quoted_excerpt(text); }

// The problems of one file, bounded: each message at most kMaxMessageBytes, the first
// kMaxKeptErrors kept (then only counted), and kMaxReportedSuiteErrors reported by take().
class Diagnostics {
 public:
  explicit Diagnostics(std::string file) : file_(std::move(file)) {}

  void error(Pos pos, std::string message) {
    message = detail::shorten_message(std::move(message), kMaxMessageBytes);
    const std::size_t key = std::hash<std::string>{}(message) ^
                            (std::hash<int>{}(pos.line) * 31 + std::hash<int>{}(pos.column)) * 1000003;
    if (!seen_.insert(key).second) return;  // the same problem found via two cases
    ++count_;
    if (list_.size() < kMaxKeptErrors)
      list_.push_back({suite_detail::position(file_, pos.line, pos.column), std::move(message)});
  }
  std::size_t count() const { return count_; }
  const std::string& file() const { return file_; }
  std::string location(Pos pos) const {
    return suite_detail::location(file_, pos.line, pos.column);
  }

  // In file order (stable: several problems at one place keep the order they were found in), at
  // most kMaxReportedSuiteErrors, then one saying how many more there were.
  std::vector<SuiteDiagnostic> take() {
    std::stable_sort(list_.begin(), list_.end(), [](const auto& a, const auto& b) {
      return std::tie(a.where.line, a.where.column) < std::tie(b.where.line, b.where.column);
    });
    if (count_ > kMaxReportedSuiteErrors) {
      list_.resize(kMaxReportedSuiteErrors);
      list_.push_back({SourcePosition::whole(file_),
                       detail::with_thousands_separators(count_ - kMaxReportedSuiteErrors) +
                           " more errors not shown (only the first " +
                           std::to_string(kMaxReportedSuiteErrors) + " are)"});
    }
    return std::move(list_);
  }

 private:
  std::string file_;
  std::vector<SuiteDiagnostic> list_;
  std::size_t count_ = 0;
  std::unordered_set<std::size_t> seen_;  // hashes of (position, message)
};

// A map entry: its key as text, with positions.
struct Field {
  std::string key;
  Pos key_pos;
  YAML::Node value;
  Pos value_pos;
};

// The entries of a map in document order. Keys that are not plain names and repeated keys (which
// yaml-cpp accepts silently) are reported and left out.
std::vector<Field> read_fields(const YAML::Node& map, Pos map_pos, Diagnostics& diags) {
  std::vector<Field> fields;
  std::unordered_map<std::string, std::size_t> index;  // key -> fields
  for (const auto& entry : map) {
    const Pos key_pos = pos_of(entry.first, map_pos);
    if (!entry.first.IsScalar()) {
      diags.error(key_pos, "a key must be a plain name, got " + describe(entry.first));
      continue;
    }
    const std::string& key = entry.first.Scalar();
    const auto [first, inserted] = index.emplace(key, fields.size());
    if (!inserted) {
      diags.error(key_pos, "key " + quote(key) + " is repeated; first given at " +
                               diags.location(fields[first->second].key_pos));
      continue;
    }
    fields.push_back({key, key_pos, entry.second, pos_of(entry.second, key_pos)});
  }
  return fields;
}

// The text of a field that must hold one value.
std::optional<std::string> scalar_field(const Field& field, Diagnostics& diags) {
  if (field.value.IsScalar()) return field.value.Scalar();
  diags.error(field.value_pos,
              quote(field.key) + " must be a single value, got " + describe(field.value));
  return std::nullopt;
}

// One value of a case parameter, with where it is written.
struct Value {
  std::string text;
  Pos pos;
};

// A case parameter of an entry: one value, or the values of a list.
struct ParamField {
  std::string key;
  Pos key_pos;
  std::vector<Value> values;
};

// Backend instances as declared: valid enough to check cases against when `backend` is set.
struct DeclaredInstance {
  std::string name;           // "" when the name itself is invalid
  std::string declared_name;  // as written; differs from `name` where a list-valued setting
                              // expanded the declaration
  const Backend* backend = nullptr;
  Pos pos;                            // the instance's map
  Pos name_pos;                       // its name
  std::size_t spec_index = SIZE_MAX;  // index into Suite::backends, when fully valid
};

class SuiteParser {
 public:
  SuiteParser(const std::string& file, const BackendRegistry& registry)
      : diags_(file), registry_(registry) {
    suite_.file = file;
  }

  Suite parse(std::string_view text) {
    suite_detail::BoundedYaml yaml = suite_detail::load_bounded_yaml(text);
    for (auto& problem : yaml.problems)
      diags_.error({problem.line, problem.column}, std::move(problem.message));
    if (!yaml.root) fail();
    if (!yaml.root->IsDefined() || yaml.root->IsNull()) {
      diags_.error({}, std::string("the file holds no suite; expected a map with the keys ") +
                           kTopLevelKeys);
      fail();
    }
    parse_root(*yaml.root);
    if (diags_.count() > 0) fail();
    return std::move(suite_);
  }

 private:
  // Throws the problems, with what could be read (SuiteError::readable).
  [[noreturn]] void fail() {
    SuiteError error(diags_.take());
    Suite readable;
    readable.name = suite_.name;
    readable.file = suite_.file;
    readable.line = suite_.line;
    readable.column = suite_.column;
    std::set<std::string> named;
    for (const DeclaredInstance& instance : instances_)
      if (!instance.name.empty() && named.insert(instance.name).second)
        readable.backends.push_back({instance.name, instance.backend != nullptr ? std::string(instance.backend->name()) : "",
                                     {}, instance.pos.line, instance.pos.column});
    readable.cases = suite_.cases;  // collect_cases() kept only those of valid instances
    error.set_readable(std::move(readable));
    throw error;
  }

  void parse_root(const YAML::Node& root) {
    const Pos root_pos = pos_of(root, {1, 1});
    if (!root.IsMap()) {
      diags_.error(root_pos, "a suite must be a map with the keys " + std::string(kTopLevelKeys) +
                                 ", got " + describe(root));
      return;
    }
    const Field* backends = nullptr;
    const Field* cases = nullptr;
    bool has_name = false;
    const auto fields = read_fields(root, root_pos, diags_);
    for (const auto& field : fields) {
      if (field.key == "suite") {
        has_name = true;
        parse_name(field);
      } else if (field.key == "description") {
        if (auto text = scalar_field(field, diags_)) suite_.description = *text;
      } else if (field.key == "environment_overrides") {
        parse_environment_overrides(field);
      } else if (field.key == "backends") {
        backends = &field;
      } else if (field.key == "cases") {
        cases = &field;
      } else {
        diags_.error(field.key_pos,
                     "unknown key " + quote(field.key) + "; allowed values: " + kTopLevelKeys);
      }
    }
    if (!has_name) diags_.error(root_pos, "missing required key 'suite' (the suite's name)");
    if (backends == nullptr)
      diags_.error(root_pos,
                   "missing required key 'backends' (the backend instances); "
                   "allowed backends: " +
                       registry_.names());
    else
      parse_backends(*backends);
    if (cases == nullptr)
      diags_.error(root_pos, "missing required key 'cases' (the cases to test)");
    else
      parse_cases(*cases);
    collect_cases();
  }

  void parse_name(const Field& field) {
    const auto name = scalar_field(field, diags_);
    if (!name) return;
    if (!is_file_name_safe(*name)) {
      diags_.error(field.value_pos,
                   "suite name " + quote(*name) + " is not file-name safe; " + kSafeNameRule);
      return;
    }
    suite_.name = *name;
    suite_.line = field.value_pos.line;
    suite_.column = field.value_pos.column;
  }

  // environment_overrides: the FPREV_... variables this suite accepts as overrides under CI
  // (docs/suite-format.md); elsewhere every override is allowed and named in the summary.
  void parse_environment_overrides(const Field& field) {
    const auto values = read_param_values(field, "leave 'environment_overrides' out instead");
    if (!values) return;
    for (const Value& value : *values) {
      const std::string& name = value.text;
      const bool valid = name.size() > 6 && name.size() <= kMaxNameLength && name.rfind("FPREV_", 0) == 0 &&
                         std::all_of(name.begin(), name.end(), [](char c) {
                           return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
                         });
      if (!valid) {
        diags_.error(value.pos, "environment override " + quote(name) +
                                    " is not the name of an FPREV_ variable (FPREV_ followed by upper-case "
                                    "letters, digits and '_', e.g. FPREV_BLAS_LIBRARY)");
        continue;
      }
      suite_.environment_overrides.push_back(name);
    }
  }

  // A field that must be a non-empty list; returns false (reported) otherwise.
  bool check_list(const Field& field, const std::string& what, const std::string& one) {
    if (!field.value.IsSequence()) {
      diags_.error(field.value_pos, quote(field.key) + " must be a list of " + what + ", got " +
                                        describe(field.value));
      return false;
    }
    if (field.value.size() == 0) {
      diags_.error(field.value_pos,
                   quote(field.key) + " is empty; a suite needs at least one " + one);
      return false;
    }
    return true;
  }

  // ---- backends ---------------------------------------------------------------------------------

  void parse_backends(const Field& field) {
    if (!check_list(field, "backend instances", "backend instance")) return;
    for (const auto& item : field.value) {
      const Pos pos = pos_of(item, field.value_pos);
      if (!item.IsMap()) {
        diags_.error(pos,
                     "a backend instance must be a map with 'name', 'use' and the backend's "
                     "settings, got " +
                         describe(item));
        continue;
      }
      parse_instance(item, pos);
    }
  }

  void parse_instance(const YAML::Node& node, Pos pos) {
    const std::size_t errors_before = diags_.count();
    DeclaredInstance instance;
    instance.pos = pos;
    const Field* use_field = nullptr;
    std::vector<const Field*> settings;
    const auto fields = read_fields(node, pos, diags_);
    bool has_name = false;
    for (const auto& field : fields) {
      if (field.key == "name") {
        has_name = true;
        parse_instance_name(field, instance);
      } else if (field.key == "use") {
        use_field = &field;
      } else {
        settings.push_back(&field);
      }
    }
    if (!has_name)
      diags_.error(pos, "backend instance without 'name' (the name goldens are filed under)");
    if (use_field == nullptr) {
      diags_.error(pos, "backend instance " +
                            (instance.name.empty() ? std::string() : quote(instance.name) + " ") +
                            "has no 'use' (its backend); allowed values: " + registry_.names());
    } else if (auto use = scalar_field(*use_field, diags_)) {
      instance.backend = registry_.find(*use);
      if (instance.backend == nullptr)
        diags_.error(use_field->value_pos,
                     registry_.unknown_backend_message(*use));
      else
        case_specs(*instance.backend, use_field->value_pos);
    }

    std::vector<Expansion> expansions;
    if (instance.backend != nullptr) expansions = check_settings(*instance.backend, settings, pos);
    if (diags_.count() != errors_before || instance.name.empty() || instance.backend == nullptr) {
      // Kept, so that cases naming it are not reported as naming an unknown instance.
      if (!instance.name.empty() && claim_instance_name(instance.name, instance.name_pos))
        keep_instance(instance);
      return;
    }
    if (!claim_instance_name(instance.name, instance.name_pos)) return;
    for (auto& expansion : expansions) {
      DeclaredInstance expanded = instance;
      expanded.name = instance.name + expansion.suffix;
      if (!expansion.suffix.empty() && !claim_instance_name(expanded.name, instance.name_pos))
        continue;
      expanded.spec_index = suite_.backends.size();
      keep_instance(expanded);
      suite_.backends.push_back({expanded.name, std::string(instance.backend->name()),
                                 std::move(expansion.settings), pos.line, pos.column});
    }
  }

  void parse_instance_name(const Field& field, DeclaredInstance& instance) {
    const auto name = scalar_field(field, diags_);
    if (!name) return;
    if (!is_file_name_safe(*name)) {
      diags_.error(field.value_pos, "backend instance name " + quote(*name) +
                                        " is not file-name safe; " + kSafeNameRule);
      return;
    }
    instance.name = *name;
    instance.declared_name = *name;
    instance.name_pos = field.value_pos;
  }

  // False (reported) when another instance has the name already, as declared or expanded.
  bool claim_instance_name(const std::string& name, Pos pos) {
    const auto named = instances_by_name_.find(name);
    if (named == instances_by_name_.end()) return true;
    const DeclaredInstance& other = instances_[named->second.front()];
    diags_.error(pos, "duplicate backend instance name " + quote(name) + "; first declared at " +
                          diags_.location(other.name_pos));
    return false;
  }

  // Keeps an instance and indexes it by its name and, when a list-valued setting expanded it, by
  // the name as declared too (which then stands for every expansion). Lookups by name stay O(1)
  // however many instances a hostile suite declares.
  void keep_instance(DeclaredInstance instance) {
    const std::size_t index = instances_.size();
    instances_by_name_[instance.name].push_back(index);
    if (instance.declared_name != instance.name)
      instances_by_name_[instance.declared_name].push_back(index);
    instances_.push_back(std::move(instance));
  }

  // One instance of a declaration: the name's suffix ("" or "-haswell-2") and its settings.
  struct Expansion {
    std::string suffix;
    Params settings;
  };

  // The settings of a declaration. A setting given as a list expands the declaration into one
  // instance per combination of the listed values (the first list varying slowest), each named
  // <name>-<value>[-<value>...] with the values sanitised as in case ids.
  std::vector<Expansion> check_settings(const Backend& backend,
                                        const std::vector<const Field*>& settings, Pos pos) {
    const std::size_t errors_before = diags_.count();
    const auto specs = backend.instance_params();
    const std::string context = "backend " + quote(std::string(backend.name()));
    Params given;
    std::vector<std::pair<std::string, std::vector<std::string>>> lists;  // setting, its values
    for (const Field* field : settings) {
      const ParamSpec* spec = find_spec(specs, field->key);
      if (spec == nullptr) {
        auto allowed = spec_names(specs);
        allowed.insert(allowed.begin(), {"name", "use"});
        diags_.error(field->key_pos, "unknown setting " + quote(field->key) + " for " + context +
                                         "; allowed values: " + join_values(allowed));
        continue;
      }
      const auto values = read_param_values(*field, "the instance would expand to none");
      if (!values) continue;
      std::vector<std::string> canonical;
      for (const Value& value : *values) {
        try {
          // A path is checked as the loader will resolve it; the instance's name keeps it as written.
          resolve_params({*spec}, {{field->key, spec->type == ParamType::path ? relative_to_suite(value.text) : value.text}},
                         context);
          const Params one{{field->key, value.text}};
          canonical.push_back(spec->type == ParamType::integer
                                  ? std::to_string(param_int(one, field->key))
                                  : value.text);
        } catch (const ConfigError& error) {
          diags_.error(value.pos, error.what());
        }
      }
      if (field->value.IsSequence())
        lists.emplace_back(field->key, std::move(canonical));
      else if (!canonical.empty())
        given[field->key] = canonical.front();
    }
    if (diags_.count() != errors_before) return {};

    std::size_t total = 1;
    for (const auto& list : lists) total *= list.second.size();
    if (total > kMaxInstancesPerDeclaration) {
      diags_.error(pos, "this backend instance expands to more than " +
                            std::to_string(kMaxInstancesPerDeclaration) + " instances");
      return {};
    }
    std::vector<Expansion> expansions;
    std::vector<std::size_t> index(lists.size(), 0);
    for (std::size_t combination = 0; combination < total; ++combination) {
      Expansion expansion{"", given};
      for (std::size_t i = 0; i < lists.size(); ++i) {
        const std::string& value = lists[i].second[index[i]];
        expansion.settings[lists[i].first] = value;
        expansion.suffix += "-" + suite_detail::sanitize_id_part(value);
      }
      const auto resolve_paths = [&] {
        for (const ParamSpec& spec : specs)
          if (spec.type == ParamType::path)
            if (auto it = expansion.settings.find(spec.name); it != expansion.settings.end())
              it->second = relative_to_suite(it->second);
      };
      resolve_paths();
      try {
        expansion.settings = resolve_params(specs, expansion.settings, context);  // defaults
      } catch (const ConfigError& error) {
        diags_.error(pos, error.what());
        return {};
      }
      resolve_paths();  // a default path too (".": the suite's folder)
      expansions.push_back(std::move(expansion));
      for (std::size_t i = lists.size(); i-- > 0;) {
        if (++index[i] < lists[i].second.size()) break;
        index[i] = 0;
      }
    }
    return expansions;
  }

  // A path setting as written in the suite, made absolute against the suite file's folder when it
  // is relative (ParamType::path); a bare name (a library's, a program on PATH) stays as it is.
  std::string relative_to_suite(const std::string& value) const {
    if (!names_relative_path(value)) return value;
    std::error_code error;
    const std::filesystem::path folder = std::filesystem::absolute(suite_.file, error).parent_path();
    std::string resolved = (folder / value).lexically_normal().string();
    if (resolved.size() > 1 && resolved.back() == '/') resolved.pop_back();  // "dir/." -> "dir"
    return resolved;
  }

  // The backend's case parameters, asked once. A backend that cannot list them here (its default
  // case_params() opens an instance) is reported where it is first used; its cases go unchecked.
  const std::vector<ParamSpec>* case_specs(const Backend& backend, Pos use_pos) {
    auto it = case_specs_.find(&backend);
    if (it == case_specs_.end()) {
      std::optional<std::vector<ParamSpec>> specs;
      try {
        specs = backend.case_params();
      } catch (const std::exception& error) {
        diags_.error(use_pos,
                     "backend " + quote(std::string(backend.name())) +
                         " cannot list its case parameters on this machine: " + error.what());
      }
      it = case_specs_.emplace(&backend, std::move(specs)).first;
    }
    return it->second ? &*it->second : nullptr;
  }

  // ---- cases ------------------------------------------------------------------------------------

  void parse_cases(const Field& field) {
    if (!check_list(field, "case entries", "case entry")) return;
    // Counted before anything is read or expanded: aliases of a large entry, or a large entry on
    // many instances, are refused here in one error instead of expanding into millions of cases.
    const std::uint64_t cases = count_cases(field.value);
    if (cases > kMaxSuiteCases) {
      diags_.error(field.key_pos,
                   "the case entries expand to " + (cases >= kCountCap ? "more than " : std::string()) +
                       detail::with_thousands_separators(cases) + " cases (" +
                       counted(field.value.size(), "entry", "entries") + " on " +
                       counted(usable_instances(), "backend instance", "backend instances") +
                       "), more than the " +
                       detail::with_thousands_separators(kMaxSuiteCases) +
                       " a suite file may have; split the suite into several files or shorten "
                       "the lists");
      return;
    }
    for (const auto& item : field.value) {
      const Pos pos = pos_of(item, field.value_pos);
      if (!item.IsMap()) {
        diags_.error(pos, "a case entry must be a map of case parameters, got " + describe(item));
        continue;
      }
      parse_case_entry(item, pos);
    }
  }

  // ---- counting cases before expanding them ----------------------------------------------------

  static constexpr std::uint64_t kCountCap = std::uint64_t{1} << 62;

  static std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) {
    if (a == 0 || b == 0) return 0;
    return a > kCountCap / b ? kCountCap : a * b;
  }

  std::uint64_t usable_instances() const {
    return static_cast<std::uint64_t>(std::count_if(
        instances_.begin(), instances_.end(), [](const auto& i) { return i.backend != nullptr; }));
  }

  // How many cases the entries expand to, read from the list sizes as parse_case_entry would see
  // them (the first of repeated keys, the instances a `backends` field names once each). Entries
  // that are not maps expand to nothing.
  std::uint64_t count_cases(const YAML::Node& entries) const {
    const std::uint64_t every_instance = usable_instances();
    std::uint64_t total = 0;
    for (const auto& entry : entries) {
      if (!entry.IsMap()) continue;
      std::unordered_set<std::string> keys;
      std::uint64_t combinations = 1;
      std::uint64_t instances = every_instance;
      for (const auto& field : entry) {
        if (!field.first.IsScalar() || !keys.insert(field.first.Scalar()).second) continue;
        const std::string& key = field.first.Scalar();
        if (key == "backends")
          instances = count_restriction(field.second);
        else if (key != "id" && key != "labels" && key != "call_sites" && field.second.IsSequence())
          combinations = saturating_multiply(combinations, field.second.size());
      }
      total = std::min(kCountCap, total + saturating_multiply(combinations, instances));
    }
    return total;
  }

  std::uint64_t count_restriction(const YAML::Node& names) const {
    std::unordered_set<const DeclaredInstance*> found;
    const auto add = [&](const YAML::Node& name) {
      if (!name.IsScalar()) return;
      const auto named = instances_by_name_.find(name.Scalar());
      if (named == instances_by_name_.end()) return;
      for (const std::size_t index : named->second)  // a declared name stands for its expansions
        if (instances_[index].backend != nullptr) found.insert(&instances_[index]);
    };
    if (names.IsSequence())
      for (const auto& name : names) add(name);
    else
      add(names);
    return found.size();
  }

  // ---- reading and expanding entries ------------------------------------------------------------

  void parse_case_entry(const YAML::Node& node, Pos pos) {
    const std::size_t errors_before = diags_.count();
    const auto fields = read_fields(node, pos, diags_);
    std::vector<ParamField> params;
    std::optional<std::string> id_template;
    Pos id_pos;
    bool restricted = false;
    std::vector<const DeclaredInstance*> targets;
    CaseSettings settings;
    for (const auto& field : fields) {
      if (field.key == "id") {
        id_template = scalar_field(field, diags_);
        id_pos = field.value_pos;
      } else if (field.key == "max_seconds") {
        settings.max_seconds = parse_max_seconds(field);
      } else if (field.key == "labels") {
        settings.labels = parse_labels(field);
      } else if (field.key == "call_sites") {
        settings.call_sites = parse_call_sites(field);
      } else if (field.key == "invariant") {
        settings.invariant = parse_invariant(field);
      } else if (field.key == "backends") {
        restricted = true;
        targets = parse_restriction(field);
      } else if (auto values = read_param_values(field)) {
        params.push_back({field.key, field.key_pos, std::move(*values)});
      }
    }
    if (!restricted)
      for (const auto& instance : instances_) targets.push_back(&instance);
    const bool entry_ok = diags_.count() == errors_before;

    // The case parameters belong to the backend: check once per backend, not per instance.
    std::vector<std::pair<const Backend*, std::vector<const DeclaredInstance*>>> groups;
    for (const auto* instance : targets) {
      if (instance->backend == nullptr) continue;  // its unknown backend is reported already
      auto group = std::find_if(groups.begin(), groups.end(),
                                [&](const auto& g) { return g.first == instance->backend; });
      if (group != groups.end())
        group->second.push_back(instance);
      else
        groups.push_back({instance->backend, {instance}});
    }
    for (const auto& [backend, instances] : groups) {
      const EntryShape entry{params, id_template, id_pos, pos, settings};
      expand_for_backend(*backend, instances, entry, entry_ok);
    }
  }

  // The instances a `backends:` field of a case names.
  std::vector<const DeclaredInstance*> parse_restriction(const Field& field) {
    std::vector<Value> names;
    if (field.value.IsScalar()) {
      names.push_back({field.value.Scalar(), field.value_pos});
    } else if (field.value.IsSequence() && field.value.size() > 0) {
      for (const auto& item : field.value) {
        const Pos item_pos = pos_of(item, field.value_pos);
        if (item.IsScalar())
          names.push_back({item.Scalar(), item_pos});
        else
          diags_.error(item_pos, "'backends' lists instance names, got " + describe(item));
      }
    } else if (field.value.IsSequence()) {
      diags_.error(field.value_pos,
                   "'backends' is an empty list; leave it out to use every backend instance");
    } else {
      diags_.error(field.value_pos, "'backends' must be an instance name or a list of them, got " +
                                        describe(field.value));
    }
    // A name as declared stands for every instance a list-valued setting expanded it into.
    std::vector<const DeclaredInstance*> found;
    std::unordered_set<const DeclaredInstance*> seen;
    for (const auto& name : names) {
      const auto named = instances_by_name_.find(name.text);
      if (named == instances_by_name_.end()) {
        diags_.error(name.pos, "unknown backend instance " + quote(name.text) +
                                   "; allowed values: " + instance_names());
        continue;
      }
      for (const std::size_t index : named->second)
        if (seen.insert(&instances_[index]).second) found.push_back(&instances_[index]);
    }
    return found;
  }

  // The declared instance names for "allowed values", at most kMaxNamesListed of them.
  std::string instance_names() const {
    if (instances_.empty()) return "(no backend instance is declared)";
    std::vector<std::string> names;
    std::unordered_set<std::string> listed_names;
    for (const auto& instance : instances_) {
      for (const std::string* name : {&instance.declared_name, &instance.name}) {
        if (names.size() < kMaxNamesListed && listed_names.insert(*name).second)
          names.push_back(*name);
      }
    }
    std::string listed = join_values(names);
    if (instances_by_name_.size() > names.size())
      listed += " and " + std::to_string(instances_by_name_.size() - names.size()) + " more";
    return listed;
  }

  // The values of a case parameter or setting: a single value or a non-empty list of single values.
  std::optional<std::vector<Value>> read_param_values(
      const Field& field, const char* if_empty = "the entry would expand to no cases") {
    if (field.value.IsScalar()) return std::vector<Value>{{field.value.Scalar(), field.value_pos}};
    if (!field.value.IsSequence()) {
      diags_.error(
          field.value_pos,
          quote(field.key) + " must be a value or a list of values, got " + describe(field.value));
      return std::nullopt;
    }
    if (field.value.size() == 0) {
      diags_.error(field.value_pos,
                   quote(field.key) + " is an empty list; " + if_empty);
      return std::nullopt;
    }
    std::vector<Value> values;
    bool ok = true;
    for (const auto& item : field.value) {
      const Pos item_pos = pos_of(item, field.value_pos);
      if (item.IsScalar()) {
        values.push_back({item.Scalar(), item_pos});
      } else {
        diags_.error(item_pos, "the list of " + quote(field.key) +
                                   " must hold single values, got " + describe(item));
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return values;
  }

  // What an entry says about its cases besides the backend's parameters.
  struct CaseSettings {
    std::optional<double> max_seconds;
    std::vector<std::string> labels;
    std::vector<std::string> call_sites;
    std::vector<ParamField> invariant;  // checked per backend (expand_for_backend)
  };

  // invariant: a map of parameter -> a list of values (or runs -> a count); the names and values
  // are checked against each backend the entry applies to.
  std::vector<ParamField> parse_invariant(const Field& field) {
    std::vector<ParamField> out;
    if (!field.value.IsMap()) {
      diags_.error(field.value_pos, "'invariant' must be a map of parameters to their values, e.g. "
                                    "'invariant: {m: [1, 8, 64], threads: [1, 2], runs: 3}', got " + describe(field.value));
      return out;
    }
    for (const Field& item : read_fields(field.value, field.value_pos, diags_)) {
      if (item.key == kRunsParameter) {
        if (!item.value.IsScalar()) {
          diags_.error(item.value_pos, "'runs' takes one count of fresh runs (2 to 1000), got " + describe(item.value));
          continue;
        }
        out.push_back({item.key, item.key_pos, {{item.value.Scalar(), item.value_pos}}});
        continue;
      }
      if (!item.value.IsSequence()) {
        diags_.error(item.value_pos, "the invariance over " + quote(item.key) +
                                         " needs a list of two or more values, e.g. [1, 8, 64], got " + describe(item.value));
        continue;
      }
      if (auto values = read_param_values(item, "list two or more values")) out.push_back({item.key, item.key_pos, std::move(*values)});
    }
    std::sort(out.begin(), out.end(), [](const ParamField& a, const ParamField& b) { return a.key < b.key; });
    return out;
  }

  // The entry's invariance contracts for `backend`: every parameter one it takes (a case
  // parameter, a setting) or runs, every value one it accepts. Errors at the place.
  std::vector<InvarianceRequest> check_invariant(const Backend& backend, const std::vector<ParamSpec>& specs,
                                                 const std::vector<ParamField>& fields, const std::string& context) {
    std::vector<InvarianceRequest> out;
    const std::vector<ParamSpec> settings = backend.instance_params();
    for (const ParamField& field : fields) {
      InvarianceRequest request{field.key, {}, field.key_pos.line, field.key_pos.column};
      for (const Value& value : field.values) request.values.push_back(value.text);
      if (field.key == kRunsParameter) {
        if (const std::string problem = invariance_values_problem(field.key, request.values); !problem.empty()) {
          diags_.error(field.values.front().pos, problem + ", got " + quote(field.values.front().text));
          continue;
        }
        request.values = run_values(std::stoul(request.values.front()));
        out.push_back(std::move(request));
        continue;
      }
      const ParamSpec* spec = find_spec(specs, field.key);
      if (spec == nullptr) spec = find_spec(settings, field.key);
      if (spec == nullptr) {
        std::vector<std::string> allowed{std::string(kRunsParameter)};
        for (const std::string& name : spec_names(specs)) allowed.push_back(name);
        for (const std::string& name : spec_names(settings)) allowed.push_back(name);
        diags_.error(field.key_pos, "invariance over " + quote(field.key) + ": " + context +
                                        " has no such case parameter or setting; allowed values: " + join_values(allowed));
        continue;
      }
      bool ok = true;
      for (std::size_t k = 0; k < field.values.size(); ++k) {
        try {
          resolve_params({*spec}, {{field.key, field.values[k].text}}, context);
        } catch (const ConfigError& error) {
          diags_.error(field.values[k].pos, error.what());
          ok = false;
          continue;
        }
        if (spec->type == ParamType::integer)
          request.values[k] = std::to_string(param_int({{field.key, field.values[k].text}}, field.key));
      }
      if (!ok) continue;
      if (const std::string problem = invariance_values_problem(field.key, request.values); !problem.empty()) {
        diags_.error(field.key_pos, problem);
        continue;
      }
      out.push_back(std::move(request));
    }
    return out;
  }

  // max_seconds: a time budget in seconds, a number above 0 and at most a day.
  std::optional<double> parse_max_seconds(const Field& field) {
    const auto text = scalar_field(field, diags_);
    if (!text) return std::nullopt;
    double value = 0.0;
    std::size_t used = 0;
    try {
      value = std::stod(*text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text->size() || !(value > 0.0) || value > kMaxCaseSeconds) {
      diags_.error(field.value_pos, "'max_seconds' must be a number of seconds above 0 and at most " +
                                        std::to_string(static_cast<long>(kMaxCaseSeconds)) + ", got " +
                                        quote(*text));
      return std::nullopt;
    }
    return value;
  }

  // labels: extra CTest labels of the entry's tests (e.g. long), names like case ids.
  std::vector<std::string> parse_labels(const Field& field) {
    std::vector<std::string> labels;
    const auto values = read_param_values(field, "leave 'labels' out instead");
    if (!values) return labels;
    for (const Value& value : *values) {
      if (!is_file_name_safe(value.text)) {
        diags_.error(value.pos, "the label " + quote(value.text) + " is not a plain name; " + kSafeNameRule);
        continue;
      }
      labels.push_back(value.text);
    }
    return labels;
  }

  // call_sites: where an application makes the entry's call (fprev-golden trace writes them);
  // free text, printed when a case of the entry fails.
  std::vector<std::string> parse_call_sites(const Field& field) {
    std::vector<std::string> sites;
    const auto values = read_param_values(field, "leave 'call_sites' out instead");
    if (!values) return sites;
    if (values->size() > kMaxCallSites)
      diags_.error(field.value_pos, "'call_sites' lists " + std::to_string(values->size()) +
                                        " call sites, more than the " + std::to_string(kMaxCallSites) +
                                        " a case entry may have");
    for (const Value& value : *values) {
      if (value.text.empty() || value.text.size() > kMaxCallSiteBytes) {
        diags_.error(value.pos, "a call site must be text of 1 to " + std::to_string(kMaxCallSiteBytes) +
                                    " bytes, got " + std::to_string(value.text.size()));
        continue;
      }
      if (sites.size() < kMaxCallSites) sites.push_back(value.text);
    }
    return sites;
  }

  struct EntryShape {
    std::vector<ParamField> params;  // copied: values are canonicalised per backend
    std::optional<std::string> id_template;
    Pos id_pos;
    Pos pos;
    CaseSettings settings;
  };

  void expand_for_backend(const Backend& backend, const std::vector<const DeclaredInstance*>& group,
                          EntryShape entry, bool entry_ok) {
    const std::size_t errors_before = diags_.count();
    const std::vector<ParamSpec>* listed = case_specs(backend, entry.pos);
    if (listed == nullptr) return;  // reported where the backend is used
    const std::vector<ParamSpec>& specs = *listed;
    const std::string context = "backend " + quote(std::string(backend.name()));
    for (auto& param : entry.params) {
      const ParamSpec* spec = find_spec(specs, param.key);
      if (spec == nullptr) {
        auto allowed = spec_names(specs);
        allowed.insert(allowed.end(), {"backends", "call_sites", "id", "invariant", "labels", "max_seconds"});
        diags_.error(param.key_pos, "unknown case parameter " + quote(param.key) + " for " +
                                        context + "; allowed values: " + join_values(allowed));
        continue;
      }
      for (auto& value : param.values) {
        try {
          resolve_params({*spec}, {{param.key, value.text}}, context);
        } catch (const ConfigError& error) {
          diags_.error(value.pos, error.what());
          continue;
        }
        // One spelling per number, so that n: 8 and n: 008 are the same case with the same id.
        if (spec->type == ParamType::integer)
          value.text = std::to_string(param_int({{param.key, value.text}}, param.key));
      }
    }
    const std::vector<InvarianceRequest> invariant = check_invariant(backend, specs, entry.settings.invariant, context);
    if (!entry_ok || diags_.count() != errors_before) return;

    std::uint64_t total = 1;
    for (const auto& param : entry.params) total = saturating_multiply(total, param.values.size());
    // count_cases() has bounded the file; this keeps the bound should the two ever disagree.
    expanded_ = std::min(kCountCap, expanded_ + saturating_multiply(total, group.size()));
    if (expanded_ > kMaxSuiteCases) {
      diags_.error(entry.pos, "the entries up to here expand to more than " +
                                  detail::with_thousands_separators(kMaxSuiteCases) +
                                  " cases, the most a suite file may have");
      return;
    }
    // Cross product in key order, the first key varying slowest.
    std::vector<std::size_t> index(entry.params.size(), 0);
    for (std::size_t combination = 0; combination < total; ++combination) {
      Params given;
      std::map<std::string, Pos> where;
      for (std::size_t i = 0; i < entry.params.size(); ++i) {
        const Value& value = entry.params[i].values[index[i]];
        given[entry.params[i].key] = value.text;
        where[entry.params[i].key] = value.pos;
      }
      add_expanded_case(backend, specs, context, given, where, entry, group, invariant);
      for (std::size_t i = entry.params.size(); i-- > 0;) {
        if (++index[i] < entry.params[i].values.size()) break;
        index[i] = 0;
      }
    }
  }

  void add_expanded_case(const Backend& backend, const std::vector<ParamSpec>& specs,
                         const std::string& context, const Params& given,
                         const std::map<std::string, Pos>& where, const EntryShape& entry,
                         const std::vector<const DeclaredInstance*>& group,
                         const std::vector<InvarianceRequest>& invariant) {
    Params resolved;
    try {
      resolved = resolve_params(specs, given, context);
      backend.validate_case(resolved);
    } catch (const ConfigError& error) {
      const auto at = where.find(error.parameter());
      std::string message = error.what();
      if (message.rfind(context, 0) != 0) message = context + ": " + message;
      diags_.error(at != where.end() ? at->second : entry.pos, message);
      return;
    } catch (const std::exception& error) {
      diags_.error(entry.pos, context + ": " + error.what());
      return;
    }

    std::string id;
    if (entry.id_template) {
      const auto expanded = suite_detail::expand_id_template(*entry.id_template, specs, resolved);
      if (!expanded.error.empty()) {
        diags_.error(entry.id_pos, expanded.error);
        return;
      }
      id = expanded.id;
    } else {
      id = default_case_id(specs, given, resolved);
      if (!is_file_name_safe(id)) {
        diags_.error(entry.pos, id.empty() ? "cannot build a case id: the case sets no parameter "
                                             "the id rule uses; add an 'id'"
                                           : "the case id " + quote(id) +
                                                 " is not file-name safe (at most 128 lower-case letters, digits, '.', '_' and '-'); add an 'id'");
        return;
      }
    }
    for (const auto* instance : group)
      add_case(*instance, {id, instance->name, resolved, diags_.file(), entry.pos.line, entry.pos.column,
                           entry.settings.max_seconds, entry.settings.labels, entry.settings.call_sites, invariant});
  }

  void add_case(const DeclaredInstance& instance, SuiteCase expanded) {
    const Pos pos{expanded.line, expanded.column};
    auto& seen = case_ids_[instance.name];
    const auto [first, inserted] = seen.emplace(expanded.id, pos);
    if (!inserted) {
      const bool same_entry = first->second.line == pos.line && first->second.column == pos.column;
      diags_.error(pos, "duplicate case id " + quote(expanded.id) + " for backend instance " +
                            quote(instance.name) + "; first defined at " +
                            diags_.location(first->second) +
                            (same_entry ? " (this entry expands to it more than once)" : "") +
                            "; make the cases differ or give them an 'id' with {param} "
                            "placeholders");
      return;
    }
    if (instance.spec_index != SIZE_MAX)
      cases_by_instance_[instance.name].push_back(std::move(expanded));
  }

  // Suite::cases: by instance in declaration order, then in the order the entries expand.
  void collect_cases() {
    for (const auto& spec : suite_.backends) {
      auto& cases = cases_by_instance_[spec.name];
      suite_.cases.insert(suite_.cases.end(), std::make_move_iterator(cases.begin()),
                          std::make_move_iterator(cases.end()));
    }
  }

  Suite suite_;
  Diagnostics diags_;
  const BackendRegistry& registry_;
  std::vector<DeclaredInstance> instances_;
  // Name (as declared or expanded) -> indices into instances_.
  std::unordered_map<std::string, std::vector<std::size_t>> instances_by_name_;
  std::uint64_t expanded_ = 0;  // cases expanded so far, over all entries and instances
  std::map<std::string, std::map<std::string, Pos>> case_ids_;  // instance -> id -> first entry
  std::map<std::string, std::vector<SuiteCase>> cases_by_instance_;
  std::map<const Backend*, std::optional<std::vector<ParamSpec>>> case_specs_;
  static constexpr const char* kSafeNameRule =
      "use 1 to 128 lower-case letters, digits, '.', '_' and '-', starting with a letter or digit";
};

}  // namespace

Suite parse_suite(std::string_view yaml_text, const std::string& file_name,
                  const BackendRegistry& registry) {
  return SuiteParser(file_name, registry).parse(yaml_text);
}

}  // namespace fprev
