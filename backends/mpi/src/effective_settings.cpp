#include "effective_settings.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

#include "fprev/backend.hpp"

namespace fprev::mpi {
namespace {

bool is_number(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '-';
  });
}

// Does `read` ("4=ring", "4", "1", "ring.json") show the requested `value`?
bool reads_as(const std::string& read, const std::string& value) {
  if (read == value) return true;
  const auto equals = read.find('=');
  const std::string number = read.substr(0, equals);
  const std::string name = equals == std::string::npos ? "" : read.substr(equals + 1);
  if (value == number || (!name.empty() && value == name)) return true;
  if ((value == "true" || value == "yes") && number == "1") return true;
  if ((value == "false" || value == "no") && number == "0") return true;
  return false;
}

const TuningVariable* find_tuning(const std::vector<TuningVariable>& tuning,
                                  Family family, const std::string& cvar) {
  for (const TuningVariable& v : tuning)
    if (cvar_name(family, v.name) == cvar) return &v;
  return nullptr;
}

}  // namespace

std::string library_version_number(Family family, const std::string& text) {
  static const std::regex openmpi(R"(Open MPI v([0-9][^,\s]*))");
  static const std::regex mpich(R"(MPICH Version:\s*([^\s]+))");
  std::smatch m;
  if (std::regex_search(text, m, family == Family::openmpi ? openmpi : mpich)) return m[1];
  return "unknown";
}

std::string library_configuration(Family family, const std::string& text,
                                  const std::map<std::string, std::string>& cvars) {
  if (family == Family::openmpi) {
    std::string out = text.substr(0, text.find('\n'));
    if (const auto coll = cvars.find("coll"); coll != cvars.end() && !coll->second.empty())
      out += "; coll components " + coll->second;
    return out;
  }
  static const std::regex device(R"(MPICH Device:\s*([^\s]+))");
  std::smatch m;
  std::string out = "MPICH " + library_version_number(family, text);
  if (std::regex_search(text, m, device)) out += ", device " + std::string(m[1]);
  return out;
}

void check_effective_settings(Family family, const std::vector<TuningVariable>& tuning,
                              const std::map<std::string, std::string>& cvars,
                              const std::string& library_version) {
  const bool is_openmpi = library_version.find("Open MPI") != std::string::npos;
  const bool is_mpich = library_version.find("MPICH") != std::string::npos;
  if ((family == Family::openmpi && !is_openmpi) || (family == Family::mpich && !is_mpich))
    throw ConfigError("probe", "mpi: the " + family_name(family) + " launcher ran a probe program "
                               "built against another MPI, which reports '" +
                               library_version.substr(0, library_version.find('\n')) + "'");
  const std::string name = family_name(family);
  for (const TuningVariable& v : tuning) {
    const std::string cvar = cvar_name(family, v.name);
    const auto it = cvars.find(cvar);
    if (it == cvars.end())
      throw ConfigError("tuning", "mpi: " + name + " has no control variable " + cvar + ", so " +
                                      v.name + " would be ignored; check the name (" +
                                      (family == Family::openmpi ? "ompi_info --all" : "mpivars") +
                                      " lists them)");
    const std::string& read = it->second;
    // MPICH reads enums back as bare numbers without their names: only numeric values compare.
    const bool comparable = family == Family::openmpi || is_number(v.value);
    if (comparable && !reads_as(read, v.value))
      throw ConfigError("tuning", "mpi: " + name + " reads " + v.name + "=" + v.value + " as '" +
                                      read + "': the value is not valid, and " + name +
                                      " would run its default instead");
  }
  // Algorithms forced although the tuning does not ask for it (a configuration file, a system
  // default): the key would claim the library's own choice.
  const auto forced = [&](const std::string& cvar, const std::string& neutral) {
    const auto it = cvars.find(cvar);
    if (it == cvars.end() || find_tuning(tuning, family, cvar) != nullptr) return;
    if (!reads_as(it->second, neutral))
      throw ConfigError("tuning", "mpi: " + name + " runs with " + cvar + "=" + it->second +
                                      " although 'tuning' does not set it (from a configuration "
                                      "file?); the platform key would not describe this order: "
                                      "put it into 'tuning' or remove it");
  };
  if (family == Family::openmpi) {
    // Open MPI reads its forced algorithms and rule files only with dynamic rules on.
    const auto rules = cvars.find("coll_tuned_use_dynamic_rules");
    if (rules == cvars.end() || reads_as(rules->second, "0")) return;
    for (const char* op : {"allreduce", "reduce", "reduce_scatter_block"})
      forced(std::string("coll_tuned_") + op + "_algorithm", "0");
    forced("coll_tuned_dynamic_rules_filename", "");
  } else {
    for (const char* op : {"ALLREDUCE", "REDUCE", "REDUCE_SCATTER_BLOCK"})
      forced(std::string("MPIR_CVAR_") + op + "_INTRA_ALGORITHM", "0");
  }
}

}  // namespace fprev::mpi
