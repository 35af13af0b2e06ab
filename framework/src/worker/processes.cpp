// fprev/processes.hpp: the process list from /proc.
#include "fprev/processes.hpp"

#include <dirent.h>
#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace fprev {

// /proc/<pid>/stat: "pid (comm) state ppid ... starttime(22nd field) ..."; comm may hold spaces
// and parentheses, so the fields are counted from the last ')'.
std::optional<ProcessStat> read_process_stat(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!in || !std::getline(in, text)) return std::nullopt;
  const auto close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  ProcessStat stat;
  stat.pid = pid;
  std::string field;
  for (int index = 3; fields >> field; ++index) {
    if (index == 3) stat.state = field.empty() ? '?' : field[0];
    if (index == 4) stat.parent = static_cast<pid_t>(std::strtol(field.c_str(), nullptr, 10));
    if (index == 22) {
      stat.start_time = std::strtoull(field.c_str(), nullptr, 10);
      return stat;
    }
  }
  return std::nullopt;
}

std::vector<ProcessStat> list_processes() {
  std::vector<ProcessStat> out;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return out;
  while (const dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0) continue;
    if (auto stat = read_process_stat(static_cast<pid_t>(pid))) out.push_back(*stat);
  }
  ::closedir(dir);
  return out;
}

std::vector<ProcessStat> live_descendants(pid_t root) {
  const std::vector<ProcessStat> processes = list_processes();
  std::multimap<pid_t, const ProcessStat*> children;
  for (const ProcessStat& p : processes) children.emplace(p.parent, &p);
  std::vector<ProcessStat> found;
  std::vector<pid_t> work{root};
  while (!work.empty()) {
    const pid_t parent = work.back();
    work.pop_back();
    const auto [begin, end] = children.equal_range(parent);
    for (auto it = begin; it != end; ++it) {
      if (it->second->gone()) continue;
      found.push_back(*it->second);
      work.push_back(it->second->pid);
    }
  }
  return found;
}

std::size_t kill_descendants(pid_t root) {
  std::set<std::pair<pid_t, std::uint64_t>> killed;  // a process killed twice (not a zombie yet) counts once
  for (int round = 0; round < 20; ++round) {
    const std::vector<ProcessStat> found = live_descendants(root);
    if (found.empty()) break;
    for (const ProcessStat& p : found)
      if (::kill(p.pid, SIGKILL) == 0) killed.emplace(p.pid, p.start_time);
  }
  return killed.size();
}

}  // namespace fprev
