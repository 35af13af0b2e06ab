// How the program's registry reaches the backends of modules (backend_module.cpp): used by
// BackendRegistry when offer_backend_modules() is set.
#pragma once

#include <string_view>

#include "fprev/backend.hpp"

namespace fprev::detail {

// The backend `name` of module fprev_backend_<name>.so, loading it on first use; nullptr when no
// such module is on the search path (or `name` cannot be a module name). A module that is found but
// fails to load gives a stand-in backend that reports the failure (see offer_backend_modules()).
const Backend* module_backend(std::string_view name);

}  // namespace fprev::detail
