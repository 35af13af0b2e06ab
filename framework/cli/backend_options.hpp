// Opening a backend instance from command-line options: options a backend declares as instance
// parameters configure the instance, the others describe the case.
#pragma once

#include <memory>
#include <string>

#include "args.hpp"
#include "fprev/backend.hpp"

namespace fprev::cli {

struct OpenedTarget {
  const Backend* backend = nullptr;
  std::unique_ptr<BackendInstance> instance;
  Params instance_params;
  Params case_params;
};

// Throws UsageError / ConfigError for bad options and BackendUnavailable when it cannot run here.
OpenedTarget open_from_options(const std::string& backend_name, std::map<std::string, std::string> options);

}  // namespace fprev::cli
