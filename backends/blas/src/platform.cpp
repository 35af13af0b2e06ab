#include "fprev/blas/platform.hpp"

#include <sys/utsname.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

namespace fprev::blas {
namespace {

std::string trim(std::string_view text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

// The value of the first "key : value" line whose key is `key` (case-sensitive, as the kernel
// writes them), or "".
std::string cpuinfo_field(std::string_view cpuinfo, std::string_view key) {
  std::size_t pos = 0;
  while (pos < cpuinfo.size()) {
    std::size_t eol = cpuinfo.find('\n', pos);
    if (eol == std::string_view::npos) eol = cpuinfo.size();
    const std::string_view line = cpuinfo.substr(pos, eol - pos);
    const std::size_t colon = line.find(':');
    if (colon != std::string_view::npos && trim(line.substr(0, colon)) == key)
      return trim(line.substr(colon + 1));
    pos = eol + 1;
  }
  return {};
}

bool has_word(std::string_view words, std::string_view word) {
  std::istringstream in{std::string(words)};
  std::string token;
  while (in >> token)
    if (token == word) return true;
  return false;
}

// The maximal runs of letters and digits of `text`, lower-cased.
std::vector<std::string> alnum_words(std::string_view text) {
  std::vector<std::string> words;
  std::string current;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      current += static_cast<char>(std::tolower(u));
    } else if (!current.empty()) {
      words.push_back(current);
      current.clear();
    }
  }
  if (!current.empty()) words.push_back(current);
  return words;
}

bool is_noise(const std::string& word) {
  return word == "r" || word == "tm" || word == "cpu" || word == "processor";
}

}  // namespace

std::string sanitize_cpu_model(std::string_view model) {
  // Cut the nominal clock ("@ 2.90GHz"): it does not change which kernels run.
  const std::size_t at = model.find('@');
  if (at != std::string_view::npos) model = model.substr(0, at);
  const std::vector<std::string> words = alnum_words(model);
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (is_noise(words[i])) continue;
    // "64-Core": a count followed by "core" (the same die sold with other core counts).
    if (i + 1 < words.size() && words[i + 1] == "core" &&
        words[i].find_first_not_of("0123456789") == std::string::npos) {
      ++i;
      continue;
    }
    if (out.size() + words[i].size() + 1 > 48) break;
    if (!out.empty()) out += '-';
    out += words[i];
  }
  return out.empty() ? "unknown-cpu" : out;
}

CpuDescription describe_cpu_from(std::string_view cpuinfo, std::string_view machine) {
  CpuDescription cpu;
  for (const char* key : {"model name", "cpu model", "Processor", "uarch", "CPU part"}) {
    cpu.model = cpuinfo_field(cpuinfo, key);
    if (!cpu.model.empty()) {
      if (std::string_view(key) == "CPU part")  // ARM: only a part number; say whose
        cpu.model = "arm-" + cpuinfo_field(cpuinfo, "CPU implementer") + "-" + cpu.model;
      break;
    }
  }
  if (cpu.model.empty()) cpu.model = std::string(machine);
  const std::string flags = cpuinfo_field(cpuinfo, "flags");
  if (!flags.empty() && has_word(flags, "sse2")) {
    // OpenBLAS and BLIS pick their kernels from the CPU model and these features (a virtual
    // machine may hide AVX-512 from a CPU that has it, and then other kernels run).
    if (has_word(flags, "avx512f"))
      cpu.isa = "avx512";
    else if (has_word(flags, "avx2") && has_word(flags, "fma"))
      cpu.isa = "avx2";
    else if (has_word(flags, "avx"))
      cpu.isa = "avx";
    else
      cpu.isa = "sse";
  } else {
    cpu.isa = machine.empty() ? "unknown" : std::string(machine);
  }
  return cpu;
}

CpuDescription describe_cpu() {
  std::ifstream in("/proc/cpuinfo");
  std::ostringstream text;
  if (in) text << in.rdbuf();
  struct utsname names {};
  std::string machine = uname(&names) == 0 ? names.machine : "";
  return describe_cpu_from(text.str(), machine);
}

std::string platform_key(const CpuDescription& cpu, int threads) {
  std::string isa;
  for (const auto& word : alnum_words(cpu.isa)) isa += (isa.empty() ? "" : "_") + word;
  if (isa.empty()) isa = "unknown";
  return sanitize_cpu_model(cpu.model) + "-" + isa + "-t" + std::to_string(threads);
}

}  // namespace fprev::blas
