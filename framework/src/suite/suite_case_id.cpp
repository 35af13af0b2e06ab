// Case ids: the default rule (documented in fprev/suite.hpp and docs/suite-format.md) and explicit
// `id:` templates. Ids name golden files, so they must be stable: they depend only on the values
// of the case, never on the order of keys in the YAML file or of the backend's parameter list.
#include <string>
#include <vector>

#include "fprev/suite.hpp"
#include "suite_detail.hpp"

namespace fprev {
namespace {

bool is_shape_param(const std::string& name) { return name == "m" || name == "n" || name == "k"; }

std::string join_spec_names(const std::vector<ParamSpec>& specs) {
  std::string out;
  for (const std::string& name : suite_detail::spec_names(specs)) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// One id part for a set parameter that is neither op, dtype nor a shape parameter.
std::string setting_part(const ParamSpec* spec, const std::string& name, const std::string& value) {
  const ParamType type = spec != nullptr ? spec->type : ParamType::string;
  switch (type) {
    case ParamType::choice:
      return value;  // choices are words that read well alone: "sequential", "hopper"
    case ParamType::boolean:
      return value == "true" ? name : "no" + name;
    case ParamType::integer:
    case ParamType::string:
    case ParamType::path:
      break;
  }
  return name + value;
}

}  // namespace

namespace suite_detail {

std::string sanitize_id_part(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '-') {
      out += c;
    } else {
      out += '_';
    }
  }
  return out;
}

IdTemplateResult expand_id_template(std::string_view id_template,
                                    const std::vector<ParamSpec>& specs, const Params& resolved) {
  IdTemplateResult result;
  std::size_t pos = 0;
  while (pos < id_template.size()) {
    const char c = id_template[pos];
    if (c == '}') {
      result.error = "id template '" + std::string(id_template) + "' has a '}' without '{'";
      return result;
    }
    if (c != '{') {
      result.id += sanitize_id_part(id_template.substr(pos, 1));
      ++pos;
      continue;
    }
    const std::size_t close = id_template.find('}', pos);
    if (close == std::string_view::npos) {
      result.error = "id template '" + std::string(id_template) + "' has a '{' without '}'";
      return result;
    }
    const std::string name(id_template.substr(pos + 1, close - pos - 1));
    if (find_spec(specs, name) == nullptr) {
      result.error = "id template '" + std::string(id_template) + "' uses unknown parameter {" +
                     name + "}; allowed values: " + join_spec_names(specs);
      return result;
    }
    const auto value = resolved.find(name);
    if (value == resolved.end()) {
      result.error = "id template '" + std::string(id_template) + "' uses {" + name +
                     "}, which this case does not set and which has no default";
      return result;
    }
    result.id += sanitize_id_part(value->second);
    pos = close + 1;
  }
  if (!is_file_name_safe(result.id))
    result.error = "id template '" + std::string(id_template) + "' gives the id '" + result.id +
                   "', which is not file-name safe (it must start with a letter or digit and have at most " +
                   std::to_string(kMaxNameLength) + " characters)";
  return result;
}

}  // namespace suite_detail

std::string default_case_id(const std::vector<ParamSpec>& specs, const Params& set_params,
                            const Params& resolved_params) {
  std::vector<std::string> parts;
  for (const char* leading : {"op", "dtype"}) {
    const auto it = resolved_params.find(leading);
    if (it != resolved_params.end() && !it->second.empty()) parts.push_back(it->second);
  }
  // Params is an ordered map: this loop visits the names in alphabetical order.
  for (const auto& [name, value] : set_params) {
    if (name == "op" || name == "dtype" || is_shape_param(name)) continue;
    parts.push_back(setting_part(suite_detail::find_spec(specs, name), name, value));
  }
  std::string shape;
  for (const char* dim : {"m", "n", "k"}) {
    const auto it = set_params.find(dim);
    if (it != set_params.end()) shape += dim + it->second;
  }
  if (!shape.empty()) parts.push_back(shape);

  std::string id;
  for (const auto& part : parts) {
    if (!id.empty()) id += '-';
    id += suite_detail::sanitize_id_part(part);
  }
  return id;
}

bool is_file_name_safe(std::string_view name) {
  // At most what a golden path component may have (is_safe_component): a longer name would pass
  // here and then fail when update or check names its golden file.
  if (name.empty() || name.size() > kMaxNameLength) return false;
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(name.front())) return false;
  for (const char c : name)
    if (!alnum(c) && c != '.' && c != '_' && c != '-') return false;
  return true;
}

}  // namespace fprev
