// The impact evaluation's parts shared by its files (impact_model.cpp, impact_inputs.cpp,
// impact.cpp) and its tests.
#pragma once

#include <string>
#include <vector>

#include "fingerprint_lab.hpp"
#include "fprev/impact.hpp"

namespace fprev::detail {

// The fingerprint's simulation model for `tree` from the facts as text; `notes` says where the
// facts had to be approximated.
FactModel impact_model(const Tree& tree, const ImpactArithmetic& arithmetic, std::vector<std::string>& notes);

}  // namespace fprev::detail
