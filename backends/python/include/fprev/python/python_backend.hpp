// The `python` backend (backends/python/README.md), for tests that drive it directly.
#pragma once

#include <memory>

#include "fprev/backend.hpp"

namespace fprev::python {

std::unique_ptr<Backend> make_backend();

}  // namespace fprev::python
