// fprev-golden env: the platform fingerprint and which backends are built and usable here.
#include <sys/utsname.h>

#include <fstream>
#include <iostream>

#include "../commands.hpp"
#include "../report/case_text.hpp"
#include "../report/json.hpp"
#include "../version.hpp"

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
    } catch (const TargetFault& e) {  // the library crashed, exited or hung while it was loaded
      status.state = "unavailable";
      status.reason = e.what();
    }
    statuses.push_back(std::move(status));
  }
  return statuses;
}

Json env_to_json(const std::string& os, const std::vector<BackendStatus>& statuses) {
  Json backends = Json::array();
  for (const auto& s : statuses) {
    Json entry = Json::object();
    entry["name"] = std::string(s.backend->name());
    entry["summary"] = std::string(s.backend->summary());
    entry["state"] = s.state == "needs settings" ? "needs_settings" : s.state;
    entry["reason"] = s.state == "usable" ? Json(nullptr) : Json(s.reason);
    entry["identity"] = s.state == "usable" ? identity_to_json(s.identity) : Json(nullptr);
    // What this machine can run whatever the state, e.g. the blas kernel families its CPU executes.
    Json host = Json::object();
    for (const auto& [key, value] : s.backend->host_facts()) host[key] = value;
    entry["host"] = std::move(host);
    backends.push_back(std::move(entry));
  }
  Json document = json_document("env");
  document["os"] = os;
  document["cpu"] = cpu_model();
  document["compiler"] = __VERSION__;
  document["backends"] = std::move(backends);
  return document;
}

void print_text(const std::string& os, const std::vector<BackendStatus>& statuses) {
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
}

}  // namespace

int run_env(const EnvOptions& options) {
  utsname uts{};
  uname(&uts);
  const std::string os = std::string(uts.sysname) + " " + uts.release + " " + uts.machine;
  const auto statuses = probe_backends();
  if (options.json) write_json(std::cout, env_to_json(os, statuses));
  else print_text(os, statuses);
  return kExitOk;
}

}  // namespace fprev::cli
