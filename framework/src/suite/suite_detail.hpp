// Private to the suite loader (suite*.cpp): shared helpers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/source_position.hpp"

namespace fprev::suite_detail {

// The position of a line and column (1-based) of a file; the whole file when line is 0.
SourcePosition position(const std::string& file, int line, int column);

// format_position of that: "<file>:<line>:<col>", or "<file>" when line is 0.
std::string location(const std::string& file, int line, int column);

// The spec of parameter `name` among `specs`; nullptr when there is none.
const ParamSpec* find_spec(const std::vector<ParamSpec>& specs, const std::string& name);

// The names of `specs`, in their order: the allowed values of an error message.
std::vector<std::string> spec_names(const std::vector<ParamSpec>& specs);

// Lower-cases and replaces characters outside [a-z0-9._-] with '_'.
std::string sanitize_id_part(std::string_view text);

struct IdTemplateResult {
  std::string id;     // valid when error is empty
  std::string error;  // a complete message, without position
};

// Replaces each {param} of `id_template` with the (sanitised) resolved value of that parameter.
IdTemplateResult expand_id_template(std::string_view id_template,
                                    const std::vector<ParamSpec>& specs, const Params& resolved);

}  // namespace fprev::suite_detail
