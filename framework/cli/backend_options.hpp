// reveal's backend settings and case parameters: options whose names come from the backend
// (Backend::instance_params and Backend::case_params), parsed after reveal's own options once
// --backend is known, with help generated from the parameters' declarations.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fprev/backend.hpp"

namespace fprev::cli {

struct BackendArguments {
  Params settings;     // instance parameters given
  Params case_params;  // case parameters given
  // --seed for a backend without a `seed` parameter: the same as --reveal-seed (the engine's seed)
  std::optional<std::uint64_t> engine_seed;
};

// Parses `arguments` (the words reveal's own options left) for `backend`. Throws UsageError for an
// option the backend does not take, naming it and the options it does take.
BackendArguments parse_backend_arguments(const Backend& backend,
                                         const std::vector<std::string>& arguments);

// The help of `backend`'s options: each setting and case parameter with its allowed values.
std::string backend_options_help(const Backend& backend);

struct OpenedTarget {
  std::unique_ptr<BackendInstance> instance;
  Params settings;     // resolved, FPREV_<BACKEND>_<SETTING> overrides applied
  Params case_params;  // resolved
};

// Opens an instance of `backend` and resolves the case. Throws ConfigError for bad values and
// BackendUnavailable when it cannot run here.
OpenedTarget open_target(const Backend& backend, const BackendArguments& arguments);

}  // namespace fprev::cli
