// fprev-golden env: the platform fingerprint and which backends are built and usable here.
#include <sys/utsname.h>

#include <fstream>
#include <iostream>

#include "case_report.hpp"
#include "commands.hpp"
#include "fprev/json.hpp"
#include "version.hpp"

namespace fprev::cli {
namespace {

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

struct BackendStatus {
  const Backend* backend;
  std::string state;  // "usable", "unavailable", "needs settings"
  std::string reason;
  Identity identity;
};

// Opens each backend with its default settings (and FPREV_<BACKEND>_<PARAM> overrides).
std::vector<BackendStatus> probe_backends() {
  std::vector<BackendStatus> statuses;
  for (const Backend* backend : builtin_backends().all()) {
    BackendStatus status{backend, "usable", "", {}};
    try {
      const Params settings = resolve_params(backend->instance_params(),
                                             apply_environment_overrides(*backend, {}),
                                             "backend " + std::string(backend->name()));
      status.identity = backend->open(settings)->identity();
    } catch (const BackendUnavailable& e) {
      status.state = "unavailable";
      status.reason = e.what();
    } catch (const ConfigError& e) {
      status.state = "needs settings";
      status.reason = e.what();
    }
    statuses.push_back(std::move(status));
  }
  return statuses;
}

}  // namespace

int run_env(int argc, char** argv) {
  Args args(argc, argv, 2, {"json"});
  args.reject_unknown({"json"});
  utsname uts{};
  uname(&uts);
  const std::string os = std::string(uts.sysname) + " " + uts.release + " " + uts.machine;
  const auto statuses = probe_backends();
  if (args.flag("json")) {
    Json backends = Json::array();
    for (const auto& s : statuses) {
      Json entry = Json::object()
                       .set("name", std::string(s.backend->name()))
                       .set("summary", std::string(s.backend->summary()))
                       .set("state", s.state);
      Json host = Json::object();  // what this machine can run, e.g. blas kernel families
      for (const auto& [key, value] : s.backend->host_facts()) host.set(key, value);
      entry.set("host", std::move(host));
      if (s.state == "usable") {
        Json details = Json::object();
        for (const auto& [key, value] : s.identity.details) details.set(key, value);
        entry.set("library", identity_text(s.identity))
            .set("platform_key", s.identity.platform_key)
            .set("details", std::move(details));
      } else {
        entry.set("reason", s.reason);
      }
      backends.push_back(std::move(entry));
    }
    std::cout << Json::object()
                     .set("tool_version", kToolVersion)
                     .set("os", os)
                     .set("cpu", cpu_model())
                     .set("compiler", __VERSION__)
                     .set("backends", std::move(backends))
                     .dump(2)
              << "\n";
    return kExitOk;
  }
  std::cout << "fprev-golden " << kToolVersion << "\n"
            << "os:        " << os << "\n"
            << "cpu:       " << cpu_model() << "\n"
            << "compiler:  " << __VERSION__ << "\n\nbackends:\n";
  for (const auto& s : statuses) {
    std::cout << "  " << s.backend->name() << ": " << s.backend->summary() << "\n";
    for (const auto& [key, value] : s.backend->host_facts())
      std::cout << "    " << key << ": " << value << "\n";
    if (s.state == "usable") {
      std::cout << "    usable: " << identity_text(s.identity) << ", platform key "
                << s.identity.platform_key << "\n";
      for (const auto& [key, value] : s.identity.details)
        std::cout << "      " << key << ": " << value << "\n";
    } else {
      std::cout << "    " << s.state << ": " << s.reason << "\n";
    }
  }
  return kExitOk;
}

}  // namespace fprev::cli
