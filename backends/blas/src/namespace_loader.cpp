#include "namespace_loader.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string_view>

namespace fprev::blas::detail {

PrivateEnvironment& PrivateEnvironment::create(
    const std::vector<std::pair<std::string, std::string>>& overrides,
    const std::vector<std::string>& removed) {
  auto* environment = new PrivateEnvironment();  // never deleted: a library copy reads it for ever
  const auto dropped = [&](std::string_view name) {
    if (std::find(removed.begin(), removed.end(), name) != removed.end()) return true;
    return std::any_of(overrides.begin(), overrides.end(),
                       [&](const auto& o) { return o.first == name; });
  };
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (!dropped(text.substr(0, text.find('=')))) environment->entries_.emplace_back(text);
  }
  for (const auto& [name, value] : overrides) environment->entries_.push_back(name + "=" + value);
  environment->block_.reserve(environment->entries_.size() + 2);
  for (auto& entry : environment->entries_) environment->block_.push_back(entry.data());
  environment->spare_ = environment->block_.size();
  environment->block_.push_back(nullptr);  // the spare slot: the terminator until add_late
  environment->block_.push_back(nullptr);
  return *environment;
}

void PrivateEnvironment::add_late(const std::string& name, const std::string& value) {
  if (block_[spare_] != nullptr)
    throw std::logic_error("PrivateEnvironment::add_late called twice");
  entries_.push_back(name + "=" + value);
  block_[spare_] = entries_.back().data();
}

void* open_in_new_namespace(const std::string& path, PrivateEnvironment& environment,
                            std::string* error) {
  // dlmopen hands the caller's `environ` to the new namespace's C library, which keeps it as its
  // own: point `environ` at the private block for the duration of the call only.
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  char** const saved = environ;
  environ = environment.block();
  dlerror();
  void* handle = dlmopen(LM_ID_NEWLM, path.c_str(), RTLD_NOW | RTLD_LOCAL);
  const char* message = handle == nullptr ? dlerror() : nullptr;
  environ = saved;
  if (handle == nullptr) *error = message != nullptr ? message : "unknown dlmopen error";
  return handle;
}

}  // namespace fprev::blas::detail
