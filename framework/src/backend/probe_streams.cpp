#include "fprev/probe_streams.hpp"

#include <algorithm>
#include <thread>

namespace fprev {

std::size_t choose_streams(std::size_t requested, const BackendInstance& instance, const Params& case_params) {
  const std::size_t cores = std::max<std::size_t>(1, std::thread::hardware_concurrency());
  const std::size_t wanted = requested == 0 ? cores : requested;
  return std::max<std::size_t>(1, std::min(wanted, instance.concurrent_targets(case_params)));
}

void use_probe_streams(RevealOptions& options, std::size_t requested, const BackendInstance& instance,
                       const Params& case_params) {
  options.streams = choose_streams(requested, instance, case_params);
  if (options.streams > 1)
    options.make_worker = [&instance, &case_params] { return instance.make_target(case_params); };
  else
    options.make_worker = nullptr;
}

}  // namespace fprev
