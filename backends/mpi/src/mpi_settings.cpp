#include "mpi_settings.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "mpi_case.hpp"

namespace fprev::mpi {
namespace {

constexpr const char* kOpenMpiPrefix = "OMPI_MCA_";
constexpr const char* kMpichPrefix = "MPIR_CVAR_";
constexpr const char* kDynamicRules = "OMPI_MCA_coll_tuned_use_dynamic_rules";
constexpr std::size_t kMaxTuningVariables = 32;


std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// A node as both launchers take it on their command line (Open MPI refuses other characters).
bool valid_host(const std::string& host) {
  return !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '_';
  });
}

std::vector<std::string> parse_hosts(const std::string& text) {
  std::vector<std::string> hosts;
  std::string host;
  std::istringstream in(text);
  while (std::getline(in, host, ',')) {
    host.erase(0, host.find_first_not_of(" \t"));
    host.erase(host.find_last_not_of(" \t") + 1);
    if (!valid_host(host))
      throw ConfigError("hosts", "mpi: 'hosts' takes node names separated by commas (letters, "
                                 "digits, '.', '-', '_'; the ranks per node go in "
                                 "'ranks_per_node'), got '" + host + "' in '" + text + "'");
    if (std::find(hosts.begin(), hosts.end(), host) != hosts.end())
      throw ConfigError("hosts", "mpi: 'hosts' names " + host + " twice");
    hosts.push_back(host);
  }
  if (!text.empty() && text.back() == ',')
    throw ConfigError("hosts", "mpi: 'hosts' ends with a comma: '" + text + "'");
  return hosts;
}

// Where the ranks run: the hostfile or the host list (not both), and the ranks per node. The
// launchers place ranks differently when not told how many go on a node (Open MPI fills each
// node's slots, MPICH deals them out round-robin), and the layout is part of the platform key: so
// naming nodes requires ranks_per_node.
void parse_placement(const Params& resolved, Settings& s) {
  if (auto it = resolved.find("hostfile"); it != resolved.end()) s.hostfile = it->second;
  if (auto it = resolved.find("hosts"); it != resolved.end() && !it->second.empty())
    s.hosts = parse_hosts(it->second);
  if (resolved.count("ranks_per_node") != 0)
    s.ranks_per_node = static_cast<int>(param_int(resolved, "ranks_per_node"));
  if (!s.hostfile.empty() && !s.hosts.empty())
    throw ConfigError("hosts", "mpi: 'hostfile' and 'hosts' both name the nodes; set only one");
  if (s.names_nodes() && s.ranks_per_node == 0)
    throw ConfigError("ranks_per_node",
                      "mpi: '" + std::string(s.hostfile.empty() ? "hosts" : "hostfile") +
                          "' needs 'ranks_per_node' (1 to " + std::to_string(kMaxRanks) +
                          "): without it Open MPI and MPICH place the ranks differently, and "
                          "the layout (nodes x ranks per node) is part of the platform key");
}

bool valid_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

// A tuning variable in the platform key: without the prefix, "name.value", every character
// outside [A-Za-z0-9._-] replaced by '_'.
std::string key_component(const TuningVariable& v) {
  std::string name = v.name;
  for (const char* prefix : {kOpenMpiPrefix, kMpichPrefix})
    if (name.starts_with(prefix)) name = name.substr(std::string(prefix).size());
  std::string out;
  for (char c : name) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  out += "." + v.value;
  for (char& c : out)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '.' && c != '_' && c != '-') c = '_';
  return out;
}

// Open MPI ignores a forced coll/tuned algorithm (or its segment size, fanout) unless
// coll_tuned_use_dynamic_rules is set.
bool forces_tuned_algorithm(const std::vector<TuningVariable>& tuning) {
  return std::any_of(tuning.begin(), tuning.end(), [](const TuningVariable& v) {
    return v.name.starts_with("OMPI_MCA_coll_tuned_") &&
           v.name.find("_algorithm") != std::string::npos;
  });
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

std::string family_key(Family family) { return family == Family::openmpi ? "openmpi" : "mpich"; }
std::string family_name(Family family) { return family == Family::openmpi ? "Open MPI" : "MPICH"; }

std::vector<ParamSpec> instance_param_specs() {
  return {
      string_param("library",
                   "openmpi, mpich, or the path of an MPI launcher (mpirun, mpiexec) whose "
                   "--version names Open MPI or MPICH")
          .defaults_to("openmpi"),
      string_param("tuning",
                   "the library's algorithm variables, space separated NAME=VALUE: OMPI_MCA_* "
                   "for Open MPI (e.g. OMPI_MCA_coll_tuned_allreduce_algorithm=4), MPIR_CVAR_* "
                   "for MPICH (e.g. MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=smp); part of the "
                   "platform key"),
      boolean_param("oversubscribe", "allow more ranks than cores (Open MPI's --oversubscribe)")
          .defaults_to("true"),
      boolean_param("allow_run_as_root",
                    "pass Open MPI's --allow-run-as-root when running as root")
          .defaults_to("true"),
      string_param("launcher_args", "further arguments for the launcher, space separated"),
      integer_param("timeout", 1, 3600,
                    "seconds the job may take to start, and each call, before it is killed")
          .defaults_to("60"),
      boolean_param("reuse_jobs",
                    "keep a job running between the cases of one launch (rank count), each case "
                    "configuring its collective on it; false: a job of its own for every case "
                    "(slower; to rule the sharing out)")
          .defaults_to("true"),
      choice_param("idle_yield", {"auto", "true", "false"},
                   "MPICH: ranks waiting in a collective give their core up instead of spinning "
                   "(the order of additions is the same; with more ranks than cores a call is "
                   "hundreds of times faster); auto: when a job has more ranks than this machine "
                   "has cores and names no nodes. Open MPI yields by itself when oversubscribed")
          .defaults_to("auto"),
      string_param("hostfile",
                   "a hostfile naming the nodes to run the ranks on (Open MPI: lines 'host "
                   "slots=N'; MPICH: 'host:N'), passed to the launcher (Open MPI --hostfile, "
                   "MPICH -f); relative to the current directory; needs ranks_per_node; the "
                   "layout becomes part of the platform key"),
      string_param("hosts",
                   "the nodes to run the ranks on, separated by commas (a,b,c), instead of a "
                   "hostfile (Open MPI --host, MPICH -hosts); needs ranks_per_node"),
      integer_param("ranks_per_node", 1, kMaxRanks,
                    "ranks on each node, consecutive ranks on one node (Open MPI --map-by "
                    "ppr:K:node, MPICH -ppn K); a case then has nodes x ranks_per_node ranks"),
      string_param("probe",
                   "the probe program to run (default: the one built with this MPI's compiler "
                   "wrapper); needed for an MPI installation other than the ones found at build "
                   "time"),
  };
}

Settings parse_settings(const Params& resolved) {
  Settings s;
  s.library = param_str(resolved, "library");
  if (s.library.empty()) throw ConfigError("library", "mpi: 'library' must not be empty");
  if (auto it = resolved.find("tuning"); it != resolved.end()) {
    for (const std::string& word : split_words(it->second)) {
      const auto equals = word.find('=');
      if (equals == std::string::npos || equals == 0 || equals + 1 == word.size())
        throw ConfigError("tuning", "mpi: 'tuning' takes NAME=VALUE pairs separated by spaces, "
                                    "got '" + word + "'");
      TuningVariable v{word.substr(0, equals), word.substr(equals + 1)};
      if (!valid_name(v.name))
        throw ConfigError("tuning", "mpi: 'tuning' variable name '" + v.name +
                                        "' may hold only letters, digits and '_'");
      for (const TuningVariable& other : s.tuning)
        if (other.name == v.name)
          throw ConfigError("tuning", "mpi: 'tuning' sets " + v.name + " twice");
      s.tuning.push_back(v);
    }
    if (s.tuning.size() > kMaxTuningVariables)
      throw ConfigError("tuning", "mpi: 'tuning' sets more than " +
                                      std::to_string(kMaxTuningVariables) + " variables");
  }
  std::sort(s.tuning.begin(), s.tuning.end(),
            [](const TuningVariable& a, const TuningVariable& b) { return a.name < b.name; });
  s.oversubscribe = param_str(resolved, "oversubscribe") == "true";
  s.allow_run_as_root = param_str(resolved, "allow_run_as_root") == "true";
  if (auto it = resolved.find("launcher_args"); it != resolved.end())
    s.launcher_args = split_words(it->second);
  s.timeout = std::chrono::seconds(param_int(resolved, "timeout"));
  s.reuse_jobs = param_str(resolved, "reuse_jobs") == "true";
  s.idle_yield = param_str(resolved, "idle_yield");
  if (auto it = resolved.find("probe"); it != resolved.end()) s.probe = it->second;
  parse_placement(resolved, s);
  return s;
}

bool idle_yield_wanted(Family family, const Settings& settings, int ranks, std::size_t cores) {
  if (family != Family::mpich || settings.idle_yield == "false") return false;
  if (settings.idle_yield == "true") return true;
  return !settings.names_nodes() && static_cast<std::size_t>(ranks) > cores;
}

std::vector<TuningVariable> normalize_tuning(Family family, std::vector<TuningVariable> tuning) {
  const std::string prefix = family == Family::openmpi ? kOpenMpiPrefix : kMpichPrefix;
  for (const TuningVariable& v : tuning)
    if (!v.name.starts_with(prefix) || v.name.size() == prefix.size())
      throw ConfigError("tuning", "mpi: " + family_name(family) + " is tuned with " + prefix +
                                      "* variables; '" + v.name + "' is not one");
  if (family == Family::openmpi) {
    const bool forces_algorithm = forces_tuned_algorithm(tuning);
    const bool has_rules = std::any_of(tuning.begin(), tuning.end(),
                                       [](const auto& v) { return v.name == kDynamicRules; });
    if (forces_algorithm && !has_rules) tuning.push_back({kDynamicRules, "1", true});
  }
  std::sort(tuning.begin(), tuning.end(),
            [](const TuningVariable& a, const TuningVariable& b) { return a.name < b.name; });
  return tuning;
}

std::string cvar_name(Family family, const std::string& variable) {
  if (family == Family::openmpi && variable.starts_with(kOpenMpiPrefix))
    return variable.substr(std::string(kOpenMpiPrefix).size());
  return variable;
}

std::vector<std::string> order_cvars(Family family) {
  std::vector<std::string> out;
  if (family == Family::openmpi) {
    out = {"coll", "coll_tuned_use_dynamic_rules", "coll_tuned_dynamic_rules_filename"};
    for (const char* op : {"allreduce", "reduce", "reduce_scatter_block"})
      for (const char* suffix : {"", "_segmentsize", "_tree_fanout", "_chain_fanout"})
        out.push_back(std::string("coll_tuned_") + op + "_algorithm" + suffix);
    out.push_back("coll_tuned_reduce_algorithm_max_requests");
  } else {
    for (const char* op : {"ALLREDUCE", "REDUCE", "REDUCE_SCATTER_BLOCK"})
      out.push_back(std::string("MPIR_CVAR_") + op + "_INTRA_ALGORITHM");
    for (const char* name :
         {"MPIR_CVAR_ALLREDUCE_POSIX_INTRA_ALGORITHM", "MPIR_CVAR_REDUCE_POSIX_INTRA_ALGORITHM",
          "MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE", "MPIR_CVAR_REDUCE_SHORT_MSG_SIZE",
          "MPIR_CVAR_MAX_SMP_ALLREDUCE_MSG_SIZE", "MPIR_CVAR_MAX_SMP_REDUCE_MSG_SIZE",
          "MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE", "MPIR_CVAR_DEVICE_COLLECTIVES",
          "MPIR_CVAR_POSIX_NUM_COLLS_THRESHOLD", "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE",
          "MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE",
          "MPIR_CVAR_CH4_POSIX_COLL_SELECTION_TUNING_JSON_FILE"})
      out.emplace_back(name);
  }
  return out;
}

std::string platform_key(Family family, const std::vector<TuningVariable>& tuning,
                         const std::string& layout) {
  const bool forces_algorithm = forces_tuned_algorithm(tuning);
  std::string key = family_key(family);
  // Before the tuning, so that shortening a long key below never cuts it off.
  if (!layout.empty()) key += "+" + layout;
  for (const TuningVariable& v : tuning) {
    // Implied by a forced algorithm: the same configuration whether written out or not.
    if (v.name == kDynamicRules && v.value == "1" && forces_algorithm) continue;
    key += "+" + key_component(v);
  }
  if (key.size() > 128) {
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx",
                  static_cast<unsigned long long>(fnv1a(tuning_text(tuning))));
    key = key.substr(0, 128 - 17) + "-" + hash;
  }
  return key;
}

std::string tuning_text(const std::vector<TuningVariable>& tuning) {
  std::string out;
  for (const TuningVariable& v : tuning) {
    if (!out.empty()) out += " ";
    out += v.name + "=" + v.value;
  }
  return out;
}

}  // namespace fprev::mpi
