// A loaded suite written back as YAML, for the round-trip check of the suite harness: every
// backend instance with its resolved settings, and every expanded case as its own entry
// restricted to its instance, with its id and resolved parameters. Loading that text must give the
// same suite. All scalars are double-quoted with non-ASCII escaped, so no value changes type or
// spelling on the way.
#pragma once

#include <string>

#include "fprev/suite.hpp"

namespace fprev::fuzz {

std::string write_suite_yaml(const Suite& suite);

// Whether two suites hold the same name, description, instances (name, backend, settings) and
// cases (id, instance, parameters) in the same order; where they differ, as text.
std::string suite_difference(const Suite& a, const Suite& b);

}  // namespace fprev::fuzz
