#include "hostfile.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fprev::mpi {
namespace {

[[noreturn]] void refuse(const std::string& path, int line, const std::string& why) {
  throw ConfigError("hostfile", "mpi: hostfile " + path + ", line " + std::to_string(line) + ": " +
                                    why);
}

}  // namespace

std::vector<std::string> hostfile_nodes(Family family, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw ConfigError("hostfile", "mpi: hostfile '" + path + "' does not exist (looked for " +
                                      fs::absolute(path, ec).string() +
                                      "; a relative path is taken from the current directory)");
  if (fs::is_directory(path, ec))
    throw ConfigError("hostfile", "mpi: hostfile '" + path + "' is a directory");
  std::ifstream in(path);
  if (!in)
    throw ConfigError("hostfile", "mpi: cannot read the hostfile '" + path + "': " +
                                      std::strerror(errno));
  std::vector<std::string> nodes;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string host;
    if (!(words >> host)) continue;
    if (family == Family::openmpi && host.find(':') != std::string::npos)
      refuse(path, number, "Open MPI's hostfile gives a node's slots as 'host slots=N', not '" +
                               host + "' (MPICH's form)");
    if (family == Family::mpich) {
      for (std::string option; words >> option;)
        if (option.rfind("slots=", 0) == 0)
          refuse(path, number, "MPICH's hostfile gives a node's slots as 'host:N', not '" + host +
                                   " " + option + "' (Open MPI's form)");
      host = host.substr(0, host.find(':'));
    }
    if (host.empty()) refuse(path, number, "no node name");
    if (std::find(nodes.begin(), nodes.end(), host) == nodes.end()) nodes.push_back(host);
  }
  if (nodes.empty())
    throw ConfigError("hostfile", "mpi: hostfile '" + path + "' names no node (only comments "
                                      "and blank lines)");
  return nodes;
}

}  // namespace fprev::mpi
