#include "fprev/backend.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <mutex>
#include <set>
#include <sstream>

#include "fprev/backend_module.hpp"
#include "fprev/worker.hpp"
#include "module_backends.hpp"

namespace fprev {
namespace {

std::string allowed_names(const std::vector<ParamSpec>& specs) {
  std::vector<std::string> names;
  for (const auto& spec : specs) names.push_back(spec.name);
  return join_values(names);
}

std::optional<std::int64_t> parse_int(const std::string& text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

void check_value(const ParamSpec& spec, const std::string& value, std::string_view context) {
  const std::string where = std::string(context) + ": '" + spec.name + "'";
  switch (spec.type) {
    case ParamType::integer: {
      const auto parsed = parse_int(value);
      if (!parsed) throw ConfigError(spec.name, where + " must be an integer, got '" + value + "'");
      if (*parsed < spec.min_value || *parsed > spec.max_value) {
        std::ostringstream os;
        os << where << " must be between " << spec.min_value << " and " << spec.max_value
           << ", got " << *parsed;
        throw ConfigError(spec.name, os.str());
      }
      break;
    }
    case ParamType::choice: {
      for (const auto& choice : spec.choices)
        if (choice == value) return;
      throw ConfigError(spec.name, where + " has unknown value '" + value +
                                       "'; allowed values: " + join_values(spec.choices));
    }
    case ParamType::boolean:
      if (value != "true" && value != "false")
        throw ConfigError(spec.name, where + " must be true or false, got '" + value + "'");
      break;
    case ParamType::string:
      break;
    case ParamType::path:
      if (names_relative_path(value) && value != spec.default_value)
        throw ConfigError(spec.name, where + " is the relative path '" + value +
                                         "': a path in a suite is relative to the suite file, one on the command line "
                                         "to the working directory; here give an absolute path");
      break;
  }
}

}  // namespace

bool names_relative_path(std::string_view value) {
  if (value.empty() || value.front() == '/') return false;
  return value == "." || value == ".." || value.find('/') != std::string_view::npos;
}

std::string_view to_string(Unavailability reason) {
  switch (reason) {
    case Unavailability::not_installed: return "not_installed";
    case Unavailability::host_cannot_run: return "host_cannot_run";
    case Unavailability::unsupported_setting: return "unsupported_setting";
    case Unavailability::unusable: return "unusable";
  }
  return "?";
}

Params resolve_params(const std::vector<ParamSpec>& specs, const Params& params,
                      std::string_view context) {
  for (const auto& [name, value] : params) {
    bool known = false;
    for (const auto& spec : specs) known = known || spec.name == name;
    if (!known)
      throw ConfigError(name, std::string(context) + ": unknown parameter '" + name +
                                  "'; allowed parameters: " + allowed_names(specs));
  }
  Params resolved;
  for (const auto& spec : specs) {
    auto it = params.find(spec.name);
    if (it == params.end()) {
      if (spec.required)
        throw ConfigError(spec.name, std::string(context) + ": missing required parameter '" +
                                         spec.name + "'" +
                                         (spec.type == ParamType::choice
                                              ? "; allowed values: " + join_values(spec.choices)
                                              : std::string()));
      if (!spec.default_value.empty()) resolved[spec.name] = spec.default_value;
      continue;
    }
    check_value(spec, it->second, context);
    resolved[spec.name] = it->second;
  }
  return resolved;
}

std::string join_values(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& value : values) {
    if (!out.empty()) out += ", ";
    out += value;
  }
  return out;
}

std::int64_t param_int(const Params& params, const std::string& name) {
  auto it = params.find(name);
  if (it == params.end()) throw ConfigError(name, "parameter '" + name + "' is not set");
  const auto parsed = parse_int(it->second);
  if (!parsed) throw ConfigError(name, "parameter '" + name + "' is not an integer");
  return *parsed;
}

const std::string& param_str(const Params& params, const std::string& name) {
  auto it = params.find(name);
  if (it == params.end()) throw ConfigError(name, "parameter '" + name + "' is not set");
  return it->second;
}

Params apply_environment_overrides(const Backend& backend, Params instance_params) {
  for (const ParamSpec& spec : backend.instance_params()) {
    std::string variable = "FPREV_" + std::string(backend.name()) + "_" + spec.name;
    for (char& c : variable) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* value = std::getenv(variable.c_str()); value != nullptr && *value != '\0')
      instance_params[spec.name] = value;
  }
  return instance_params;
}

void BackendRegistry::add(std::unique_ptr<Backend> backend) {
  std::string name(backend->name());
  backends_[name] = std::move(backend);
}

struct BackendRegistry::Proxies {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<Backend>, std::less<>> by_name;
};

void BackendRegistry::run_foreign_code_in_workers() {
  if (const char* workers = std::getenv("FPREV_WORKERS"); workers != nullptr && std::string_view(workers) == "off")
    return;
  proxies_ = std::make_shared<Proxies>();
}

// `backend` (registered here, or nullptr for a module) as the program's registry gives it.
const Backend* BackendRegistry::proxy(std::string_view name, const Backend* backend) const {
  if (!proxies_) return backend != nullptr ? backend : (offer_modules_ ? detail::module_backend(name) : nullptr);
  if (backend != nullptr && !backend->runs_foreign_code()) return backend;
  const std::lock_guard lock(proxies_->mutex);
  if (auto it = proxies_->by_name.find(name); it != proxies_->by_name.end()) return it->second.get();
  std::unique_ptr<Backend> made;
  if (backend != nullptr) {
    made = supervised_backend(*backend, native_worker_command(name));
  } else {
    const auto modules = available_backend_modules();
    if (!offer_modules_ || std::find(modules.begin(), modules.end(), name) == modules.end()) return nullptr;
    made = module_backend_in_worker(std::string(name), native_worker_command(name));
  }
  return proxies_->by_name.emplace(std::string(name), std::move(made)).first->second.get();
}

const Backend* BackendRegistry::find(std::string_view name) const {
  auto it = backends_.find(name);
  return proxy(name, it != backends_.end() ? it->second.get() : nullptr);
}

std::vector<const Backend*> BackendRegistry::all() const {
  std::map<std::string, const Backend*, std::less<>> by_name;
  for (const auto& [name, backend] : backends_) by_name.emplace(name, proxy(name, backend.get()));
  if (offer_modules_) {
    for (const std::string& name : available_backend_modules())
      if (!by_name.contains(name))
        if (const Backend* backend = proxy(name, nullptr)) by_name.emplace(name, backend);
  }
  std::vector<const Backend*> out;
  for (const auto& [name, backend] : by_name) out.push_back(backend);
  return out;
}

std::string BackendRegistry::names() const {
  std::set<std::string> names;
  for (const auto& [name, backend] : backends_) names.insert(name);
  if (offer_modules_)
    for (const std::string& name : available_backend_modules()) names.insert(name);
  return join_values({names.begin(), names.end()});
}

namespace {

// Set while Backend::case_params() asks an instance, so that an instance asking its backend back
// (neither declares them) stops with a message instead of recursing.
thread_local int asking_an_instance = 0;

}  // namespace

std::vector<ParamSpec> Backend::case_params() const {
  if (asking_an_instance != 0)
    throw std::logic_error("backend '" + std::string(name()) +
                           "' declares no case parameters: override Backend::case_params() (its instances "
                           "constructed with BackendInstance(backend) take them) or BackendInstance::case_params()");
  ++asking_an_instance;
  struct Done {
    ~Done() { --asking_an_instance; }
  } done;
  return open(resolve_params(instance_params(), {}, name()))->case_params();
}

std::vector<ParamSpec> BackendInstance::case_params() const {
  if (backend_ == nullptr)
    throw std::logic_error("a backend instance declares no case parameters: construct it with its backend, "
                           "BackendInstance(backend), to take Backend::case_params(), or override "
                           "BackendInstance::case_params()");
  return backend_->case_params();
}

std::string BackendRegistry::unknown_backend_message(std::string_view name) const {
  std::string message = "unknown backend '" + std::string(name) + "'; allowed values: " + names();
  if (!offer_modules_) return message;
  const char* variable = std::getenv("FPREV_BACKEND_PATH");
  std::vector<std::string> directories;
  for (const auto& directory : backend_module_search_path()) directories.push_back(directory.string());
  message += ". A backend of your own is a module file " + backend_module_file_name(name) +
             " (fprev_add_backend_module) in one of: " + join_values(directories) + "; FPREV_BACKEND_PATH (" +
             (variable != nullptr && *variable != '\0' ? "now " + std::string(variable) : std::string("not set")) +
             ") adds directories, and fprev_add_reproducibility_suites(... BACKEND_MODULES <target>) sets it "
             "for the tests and the fprev-update target";
  return message;
}

}  // namespace fprev
