#include "backend_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <set>

#include "exit_status.hpp"
#include "suggest.hpp"
#include "validators.hpp"

namespace fprev::cli {
namespace {

std::string type_name(const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::integer: return "INT";
    case ParamType::choice: return "CHOICE";
    case ParamType::boolean: return "BOOL";
    case ParamType::string: return "TEXT";
    case ParamType::path: return "PATH";
  }
  return "TEXT";
}

// The declaration of a parameter, for people: its help, allowed values and default.
std::string describe(const ParamSpec& spec) {
  std::string text = spec.help;
  const auto add = [&](const std::string& part) { text += (text.empty() ? "" : "; ") + part; };
  if (spec.type == ParamType::choice) add("one of: " + join_values(spec.choices));
  if (spec.type == ParamType::boolean) add("true or false");
  if (spec.type == ParamType::integer) {
    std::string range = std::to_string(spec.min_value) + "..";
    if (spec.max_value != INT64_MAX) range += std::to_string(spec.max_value);
    add("integer " + range);
  }
  if (spec.required) add("required");
  else if (!spec.default_value.empty()) add("default " + spec.default_value);
  return text;
}

// One CLI11 option per parameter; settings first, so a name declared as both is a setting (as in
// suites, where settings belong to the instance).
class BackendOptionParser {
 public:
  explicit BackendOptionParser(const Backend& backend)
      : backend_(backend.name()),
        app_("settings and case parameters of backend '" + backend_ + "'",
             "fprev-golden reveal --backend " + backend_) {
    app_.set_help_flag();
    for (const ParamSpec& spec : backend.instance_params()) add(spec, "Backend settings", result_.settings);
    for (const ParamSpec& spec : backend.case_params())
      if (!names_.count(spec.name)) add(spec, "Case parameters", result_.case_params);
    if (!names_.count("seed"))
      app_.add_option("--seed", result_.engine_seed, "the same as --reveal-seed")
          ->check(unsigned_integer())
          ->type_name("UINT")
          ->group("Engine");
  }

  BackendArguments parse(std::vector<std::string> arguments) {
    std::reverse(arguments.begin(), arguments.end());  // CLI11 consumes the vector from its end
    try {
      app_.parse(arguments);
    } catch (const CLI::ExtrasError&) {
      throw UsageError(unknown_options_message());
    } catch (const CLI::ParseError& e) {
      throw UsageError(e.what());
    }
    return result_;
  }

  std::string help() { return app_.help(); }

 private:
  void add(const ParamSpec& spec, const char* group, Params& into) {
    names_.insert(spec.name);
    app_.add_option_function<std::string>(
           "--" + spec.name, [&into, name = spec.name](const std::string& value) { into[name] = value; },
           describe(spec))
        ->type_name(type_name(spec))
        ->group(group);
  }

  std::string unknown_options_message() const {
    std::string unknown, allowed;
    std::vector<std::string> options;
    for (const std::string& name : names_) options.push_back("--" + name);
    for (const std::string& word : app_.remaining())
      if (word.rfind("-", 0) == 0) {
        const std::string option = word.substr(0, word.find('='));
        unknown += (unknown.empty() ? "" : ", ") + option + did_you_mean(option, options);
      }
    for (const std::string& name : names_) allowed += (allowed.empty() ? "--" : ", --") + name;
    if (unknown.empty())
      return "unexpected argument '" + app_.remaining().front() + "' (reveal takes no positional "
             "arguments)";
    return "unknown option " + unknown + " for backend " + backend_ + "; allowed: " + allowed +
           " (and reveal's own options; see fprev-golden reveal --backend " + backend_ + " --help)";
  }

  std::string backend_;
  CLI::App app_;
  std::set<std::string> names_;
  BackendArguments result_;
};

}  // namespace

BackendArguments parse_backend_arguments(const Backend& backend,
                                         const std::vector<std::string>& arguments) {
  return BackendOptionParser(backend).parse(arguments);
}

std::string backend_options_help(const Backend& backend) { return BackendOptionParser(backend).help(); }

OpenedTarget open_target(const Backend& backend, const BackendArguments& arguments) {
  const std::string context = "backend " + std::string(backend.name());
  OpenedTarget opened;
  // A relative path typed on the command line is relative to the working directory, as for any
  // command (ParamType::path); made absolute here, so the backend never sees a relative one.
  Params settings = arguments.settings;
  for (const ParamSpec& spec : backend.instance_params())
    if (auto it = settings.find(spec.name); spec.type == ParamType::path && it != settings.end() &&
                                             names_relative_path(it->second))
      it->second = std::filesystem::absolute(it->second).lexically_normal().string();
  opened.settings = resolve_params(backend.instance_params(), apply_environment_overrides(backend, settings), context);
  opened.instance = backend.open(opened.settings);
  opened.case_params = resolve_params(opened.instance->case_params(), arguments.case_params, context);
  opened.instance->validate_case(opened.case_params);
  return opened;
}

}  // namespace fprev::cli
