#include "backend_options.hpp"

#include <cctype>
#include <cstdlib>

namespace fprev::cli {

Params apply_environment_overrides(const Backend& backend, Params params) {
  for (const ParamSpec& spec : backend.instance_params()) {
    std::string variable = "FPREV_" + std::string(backend.name()) + "_" + spec.name;
    for (char& c : variable) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* value = std::getenv(variable.c_str()); value != nullptr && *value != '\0')
      params[spec.name] = value;
  }
  return params;
}

OpenedTarget open_from_options(const std::string& backend_name,
                               std::map<std::string, std::string> options) {
  OpenedTarget opened;
  opened.backend = builtin_backends().find(backend_name);
  if (opened.backend == nullptr)
    throw UsageError("unknown backend '" + backend_name +
                     "'; allowed values: " + builtin_backends().names());
  Params instance;
  for (const ParamSpec& spec : opened.backend->instance_params()) {
    if (auto it = options.find(spec.name); it != options.end()) {
      instance[spec.name] = it->second;
      options.erase(it);
    }
  }
  opened.instance_params = resolve_params(opened.backend->instance_params(),
                                          apply_environment_overrides(*opened.backend, instance),
                                          "backend " + backend_name);
  opened.instance = opened.backend->open(opened.instance_params);
  opened.case_params =
      resolve_params(opened.instance->case_params(), options, "backend " + backend_name);
  opened.instance->validate_case(opened.case_params);
  return opened;
}

}  // namespace fprev::cli
