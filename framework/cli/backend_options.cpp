#include "backend_options.hpp"


namespace fprev::cli {

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
