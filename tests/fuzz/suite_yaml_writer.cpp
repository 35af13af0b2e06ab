// Suites written back as YAML (suite_yaml_writer.hpp).
#include "suite_yaml_writer.hpp"

#include <yaml-cpp/yaml.h>

namespace fprev::fuzz {
namespace {

void write_params(YAML::Emitter& out, const Params& params) {
  for (const auto& [name, value] : params)
    out << YAML::Key << YAML::DoubleQuoted << name << YAML::Value << YAML::DoubleQuoted << value;
}

std::string describe_params(const Params& params) {
  std::string out;
  for (const auto& [name, value] : params) out += name + "=" + value + " ";
  return out;
}

}  // namespace

std::string write_suite_yaml(const Suite& suite) {
  YAML::Emitter out;
  out.SetOutputCharset(YAML::EscapeNonAscii);
  out << YAML::BeginMap;
  out << YAML::Key << "suite" << YAML::Value << YAML::DoubleQuoted << suite.name;
  if (!suite.description.empty())
    out << YAML::Key << "description" << YAML::Value << YAML::DoubleQuoted << suite.description;
  if (!suite.environment_overrides.empty()) {
    out << YAML::Key << "environment_overrides" << YAML::Value << YAML::BeginSeq;
    for (const std::string& name : suite.environment_overrides) out << YAML::DoubleQuoted << name;
    out << YAML::EndSeq;
  }
  out << YAML::Key << "backends" << YAML::Value << YAML::BeginSeq;
  for (const auto& instance : suite.backends) {
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << instance.name;
    out << YAML::Key << "use" << YAML::Value << YAML::DoubleQuoted << instance.use;
    write_params(out, instance.settings);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "cases" << YAML::Value << YAML::BeginSeq;
  for (const auto& c : suite.cases) {
    out << YAML::BeginMap;
    out << YAML::Key << "backends" << YAML::Value << YAML::DoubleQuoted << c.backend_instance;
    out << YAML::Key << "id" << YAML::Value << YAML::DoubleQuoted << c.id;
    write_params(out, c.params);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::EndMap;
  return std::string(out.c_str(), out.size()) + "\n";
}

std::string suite_difference(const Suite& a, const Suite& b) {
  if (a.name != b.name) return "name: " + a.name + " / " + b.name;
  if (a.description != b.description) return "description: " + a.description + " / " + b.description;
  if (a.environment_overrides != b.environment_overrides) return "environment_overrides differ";
  if (a.backends.size() != b.backends.size()) return "a different number of backend instances";
  for (std::size_t i = 0; i < a.backends.size(); ++i) {
    const auto& x = a.backends[i];
    const auto& y = b.backends[i];
    if (x.name != y.name || x.use != y.use || x.settings != y.settings)
      return "instance " + std::to_string(i) + ": " + x.name + " " + x.use + " " +
             describe_params(x.settings) + "/ " + y.name + " " + y.use + " " +
             describe_params(y.settings);
  }
  if (a.cases.size() != b.cases.size())
    return std::to_string(a.cases.size()) + " cases / " + std::to_string(b.cases.size());
  for (std::size_t i = 0; i < a.cases.size(); ++i) {
    const auto& x = a.cases[i];
    const auto& y = b.cases[i];
    if (x.id != y.id || x.backend_instance != y.backend_instance || x.params != y.params)
      return "case " + std::to_string(i) + ": " + x.backend_instance + "/" + x.id + " " +
             describe_params(x.params) + "/ " + y.backend_instance + "/" + y.id + " " +
             describe_params(y.params);
  }
  return {};
}

}  // namespace fprev::fuzz
