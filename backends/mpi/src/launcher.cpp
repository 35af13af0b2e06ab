#include "launcher.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "process_tree.hpp"
#include "wire.hpp"

extern char** environ;

namespace fprev::mpi {
namespace {

namespace fs = std::filesystem;


bool executable_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

std::optional<fs::path> find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const fs::path candidate = fs::path(dir) / name;
    if (executable_file(candidate)) return fs::absolute(candidate);
  }
  return std::nullopt;
}

std::string first_line(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) return line;
  return "";
}

// Open MPI: "mpirun (Open MPI) 4.1.4"; hydra prints a table whose "Version:" row says more than
// its first line ("HYDRA build details:").
std::string version_line(Family family, const std::string& output) {
  if (family == Family::mpich) {
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
      const auto at = line.find("Version:");
      if (at == std::string::npos) continue;
      const auto value = line.find_first_not_of(" \t", at + 8);
      if (value != std::string::npos) return "HYDRA " + line.substr(value);
    }
  }
  return first_line(output);
}

struct Probed {
  CommandResult result;
  std::optional<Family> family;
};

Probed probe_version(const std::string& launcher, std::chrono::seconds timeout) {
  Probed p;
  p.result = run_command(launcher, {"--version"}, current_environment(),
                         std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::min<std::chrono::seconds>(timeout, std::chrono::seconds(20))));
  if (!p.result.timed_out) p.family = family_from_version(p.result.output);
  return p;
}

Launcher find_named(Family family, std::chrono::seconds timeout) {
  const std::vector<std::string> own = family == Family::openmpi
                                           ? std::vector<std::string>{"mpirun.openmpi", "mpiexec.openmpi"}
                                           : std::vector<std::string>{"mpiexec.mpich", "mpirun.mpich", "mpiexec.hydra"};
  const std::vector<std::string> generic = {"mpirun", "mpiexec"};
  std::vector<std::string> tried;
  for (const auto* names : {&own, &generic}) {
    for (const std::string& name : *names) {
      tried.push_back(name);
      const auto path = find_in_path(name);
      if (!path) continue;
      const Probed probed = probe_version(path->string(), timeout);
      if (probed.family == family)
        return {family, path->string(), version_line(family, probed.result.output)};
    }
  }
  std::string list;
  for (const auto& name : tried) list += (list.empty() ? "" : ", ") + name;
  throw BackendUnavailable(family_name(family) + " is not installed: no launcher of it in PATH "
                           "(tried " + list + "); on Debian install " +
                           (family == Family::openmpi ? "openmpi-bin" : "mpich"));
}

}  // namespace

std::optional<Family> family_from_version(const std::string& output) {
  if (output.find("Open MPI") != std::string::npos || output.find("OpenRTE") != std::string::npos)
    return Family::openmpi;
  if (output.find("HYDRA") != std::string::npos || output.find("MPICH") != std::string::npos)
    return Family::mpich;
  return std::nullopt;
}

Launcher find_launcher(const std::string& library, std::chrono::seconds timeout) {
  if (library == "openmpi") return find_named(Family::openmpi, timeout);
  if (library == "mpich") return find_named(Family::mpich, timeout);
  if (library.find('/') == std::string::npos)
    throw ConfigError("library", "mpi: unknown library '" + library +
                                     "'; allowed values: openmpi, mpich, or the path of an MPI "
                                     "launcher (mpirun, mpiexec)");
  const fs::path path = fs::absolute(library);
  if (!executable_file(path))
    throw ConfigError("library", "mpi: library '" + library + "' is not an executable file");
  const Probed probed = probe_version(path.string(), timeout);
  if (!probed.family) {
    const std::string output = probed.result.output.empty() ? "nothing" : "'" + first_line(probed.result.output) + "'";
    throw ConfigError("library", "mpi: cannot tell which MPI the launcher " + path.string() +
                                     " belongs to: '" + path.filename().string() + " --version' " +
                                     probed.result.status + " and printed " + output +
                                     " (neither Open MPI nor MPICH)");
  }
  return {*probed.family, path.string(), version_line(*probed.family, probed.result.output)};
}

std::string default_probe(Family family) {
  const std::string name = "fprev-mpi-probe-" + family_key(family);
  std::vector<fs::path> candidates;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(self.parent_path() / ".." / "libexec" / "fprev-golden" / name);
#ifdef FPREV_MPI_PROBE_BUILD_DIR
  candidates.push_back(fs::path(FPREV_MPI_PROBE_BUILD_DIR) / name);
#endif
  for (const fs::path& candidate : candidates)
    if (executable_file(candidate)) return fs::weakly_canonical(candidate).string();
  throw BackendUnavailable(
      "this build of fprev-golden has no probe program for " + family_name(family) + " (" + name +
      "): CMake found no " + (family == Family::openmpi ? "mpicxx.openmpi" : "mpicxx.mpich") +
      " when it configured; install " +
      (family == Family::openmpi ? "libopenmpi-dev" : "libmpich-dev") +
      " and re-run CMake, or give a probe built against this MPI with the 'probe' setting");
}

std::vector<std::string> current_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

LaunchEnvironment launch_environment(const std::vector<std::string>& inherited,
                                     const std::vector<TuningVariable>& tuning) {
  LaunchEnvironment env;
  for (const std::string& entry : inherited) {
    const std::string name = entry.substr(0, entry.find('='));
    if (name.starts_with("OMPI_MCA_coll") || name.starts_with("MPIR_CVAR_")) {
      env.ignored.push_back(name);
      continue;
    }
    env.variables.push_back(entry);
  }
  for (const TuningVariable& v : tuning) env.variables.push_back(v.name + "=" + v.value);
  return env;
}

namespace {

// The nodes and ranks per node: both launchers are told exactly where each rank goes, so that
// they place consecutive ranks together alike (node_layout.hpp).
void add_placement(Family family, const Settings& settings, std::vector<std::string>& args) {
  const std::string per_node = std::to_string(settings.ranks_per_node);
  std::string hosts;
  for (const std::string& host : settings.hosts) {
    if (!hosts.empty()) hosts += ",";
    // Open MPI gives a --host node one slot unless told more: ppr would need --oversubscribe.
    hosts += family == Family::openmpi ? host + ":" + per_node : host;
  }
  // The launcher may run elsewhere than the current directory's relative paths assume.
  const std::string hostfile =
      settings.hostfile.empty() ? "" : fs::absolute(settings.hostfile).string();
  if (family == Family::openmpi) {
    if (!hostfile.empty()) args.insert(args.end(), {"--hostfile", hostfile});
    if (!hosts.empty()) args.insert(args.end(), {"--host", hosts});
    if (settings.ranks_per_node > 0) args.insert(args.end(), {"--map-by", "ppr:" + per_node + ":node"});
    // Open MPI passes only the variables named with -x on to ranks on other nodes (MPICH's
    // hydra passes the whole environment).
    if (settings.names_nodes()) args.insert(args.end(), {"-x", wire::kTokenVariable});
  } else {
    if (!hostfile.empty()) args.insert(args.end(), {"-f", hostfile});
    if (!hosts.empty()) args.insert(args.end(), {"-hosts", hosts});
    if (settings.ranks_per_node > 0) args.insert(args.end(), {"-ppn", per_node});
  }
}

}  // namespace

std::vector<std::string> launcher_arguments(Family family, const Settings& settings, int ranks,
                                            bool running_as_root) {
  std::vector<std::string> args;
  if (family == Family::openmpi) {
    args = {"-np", std::to_string(ranks)};
    if (settings.oversubscribe) args.emplace_back("--oversubscribe");
    if (settings.allow_run_as_root && running_as_root) args.emplace_back("--allow-run-as-root");
    // Binding decides no order; unbound ranks share the cores when oversubscribed.
    args.insert(args.end(), {"--bind-to", "none"});
  } else {
    args = {"-n", std::to_string(ranks)};
  }
  add_placement(family, settings, args);
  args.insert(args.end(), settings.launcher_args.begin(), settings.launcher_args.end());
  return args;
}

}  // namespace fprev::mpi
