#include "fprev/blas/platform.hpp"

#include <sys/utsname.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fprev/backend.hpp"

namespace fprev::blas {
namespace {

std::string trim(std::string_view text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

// The "key : value" fields of the first processor block (up to the first empty line): every
// processor of a machine reports the same features, and big machines list hundreds of them.
std::string cpuinfo_field(std::string_view cpuinfo, std::string_view key) {
  std::size_t pos = 0;
  while (pos < cpuinfo.size()) {
    std::size_t eol = cpuinfo.find('\n', pos);
    if (eol == std::string_view::npos) eol = cpuinfo.size();
    const std::string_view line = cpuinfo.substr(pos, eol - pos);
    if (trim(line).empty() && pos > 0) break;
    const std::size_t colon = line.find(':');
    if (colon != std::string_view::npos && trim(line.substr(0, colon)) == key)
      return trim(line.substr(colon + 1));
    pos = eol + 1;
  }
  return {};
}

std::string read_file(const char* path, bool* ok) {
  std::ifstream in(path);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  *ok = static_cast<bool>(in);
  return text.str();
}

std::string machine_name() {
  struct utsname names {};
  return uname(&names) == 0 ? names.machine : "";
}

}  // namespace

std::string CpuDescription::widest_vector_isa() const {
  if (!has("sse2")) return machine.empty() ? "unknown" : machine;
  if (has("avx512f")) return "avx512";
  if (has("avx2") && has("fma")) return "avx2";
  if (has("avx")) return "avx";
  return "sse";
}

CpuDescription describe_cpu_from(std::string_view cpuinfo, std::string_view machine) {
  CpuDescription cpu;
  cpu.machine = std::string(machine);
  cpu.vendor = cpuinfo_field(cpuinfo, "vendor_id");
  if (cpu.vendor.empty()) cpu.vendor = cpuinfo_field(cpuinfo, "CPU implementer");
  for (const char* key : {"model name", "cpu model", "Processor", "uarch", "CPU part"}) {
    cpu.model = cpuinfo_field(cpuinfo, key);
    if (!cpu.model.empty()) break;
  }
  if (cpu.model.empty()) cpu.model = cpu.machine;
  std::string flags = cpuinfo_field(cpuinfo, "flags");
  if (flags.empty()) flags = cpuinfo_field(cpuinfo, "Features");
  std::istringstream words(flags);
  for (std::string word; words >> word;) cpu.features.insert(word);
  return cpu;
}

CpuDescription limit_features(CpuDescription simulated, const CpuDescription& real) {
  for (auto it = simulated.features.begin(); it != simulated.features.end();)
    it = real.has(*it) ? std::next(it) : simulated.features.erase(it);
  return simulated;
}

CpuDescription describe_cpu() {
  bool ok = false;
  const CpuDescription real = describe_cpu_from(read_file("/proc/cpuinfo", &ok), machine_name());
  const char* simulated_file = std::getenv(kCpuinfoEnvironmentVariable);
  if (simulated_file == nullptr || *simulated_file == '\0') return real;
  const std::string text = read_file(simulated_file, &ok);
  if (!ok)
    throw BackendUnavailable(std::string(kCpuinfoEnvironmentVariable) + "=" + simulated_file +
                                 ": cannot read that file (it should hold a /proc/cpuinfo of the "
                                 "host to simulate)",
                             Unavailability::unusable);
  return limit_features(describe_cpu_from(text, real.machine), real);
}

std::string platform_key(std::string_view family_key, int threads) {
  return std::string(family_key) + "-t" + std::to_string(threads);
}

}  // namespace fprev::blas
