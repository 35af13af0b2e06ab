#include "args.hpp"

namespace fprev::cli {

Args::Args(int argc, char** argv, int first, const std::set<std::string>& flags) {
  for (int a = first; a < argc; ++a) {
    std::string arg = argv[a];
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (flags.count(name) != 0) {
      if (value) throw UsageError("option --" + name + " takes no value");
      flags_.insert(name);
      continue;
    }
    if (!value) {
      if (a + 1 >= argc) throw UsageError("option --" + name + " needs a value");
      value = argv[++a];
    }
    options_.emplace(name, *value);
  }
}

std::optional<std::string> Args::get(const std::string& name) const {
  const auto range = options_.equal_range(name);
  if (range.first == range.second) return std::nullopt;
  if (std::next(range.first) != range.second)
    throw UsageError("option --" + name + " given more than once");
  return range.first->second;
}

std::string Args::get_or(const std::string& name, const std::string& fallback) const {
  return get(name).value_or(fallback);
}

std::vector<std::string> Args::get_all(const std::string& name) const {
  std::vector<std::string> values;
  const auto range = options_.equal_range(name);
  for (auto it = range.first; it != range.second; ++it) values.push_back(it->second);
  return values;
}

std::optional<std::string> Args::take(const std::string& name) {
  auto value = get(name);
  options_.erase(name);
  return value;
}

std::map<std::string, std::string> Args::take_rest() {
  std::map<std::string, std::string> rest;
  for (const auto& [name, value] : options_) {
    if (rest.count(name) != 0) throw UsageError("option --" + name + " given more than once");
    rest[name] = value;
  }
  options_.clear();
  return rest;
}

void Args::reject_unknown(const std::set<std::string>& known) const {
  for (const auto& [name, value] : options_)
    if (known.count(name) == 0) throw UsageError("unknown option --" + name);
  for (const auto& name : flags_)
    if (known.count(name) == 0) throw UsageError("unknown option --" + name);
}

}  // namespace fprev::cli
