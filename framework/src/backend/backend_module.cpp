// Loading backend modules (fprev/backend_module.hpp): the search path, dlopen with clear errors, the
// ABI check, and the per-process table of loaded modules.
#include "fprev/backend_module.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <system_error>

#include "module_backends.hpp"

namespace fprev {
namespace {

constexpr std::string_view kFilePrefix = "fprev_backend_";
constexpr std::string_view kFileSuffix = ".so";
constexpr const char* kAbiSymbol = "fprev_backend_module_abi_v1";
constexpr const char* kRegisterSymbol = "fprev_backend_module_register_v1";

bool valid_module_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
  });
}

std::string last_dl_error() {
  const char* error = dlerror();
  return error != nullptr ? error : "unknown dlopen error";
}

// "kahan" for .../fprev_backend_kahan.so; the file's stem for a module loaded under another name.
std::string module_name_of(const std::filesystem::path& file) {
  const std::string base = file.filename().string();
  if (base.size() > kFilePrefix.size() + kFileSuffix.size() && base.starts_with(kFilePrefix) &&
      base.ends_with(kFileSuffix))
    return base.substr(kFilePrefix.size(), base.size() - kFilePrefix.size() - kFileSuffix.size());
  return file.stem().string();
}

std::string join_paths(const std::vector<std::filesystem::path>& paths) {
  std::vector<std::string> texts;
  for (const auto& path : paths) texts.push_back(path.string());
  return join_values(texts);
}

// A module that was found but cannot be loaded: it stays visible under its name so that `env`
// lists it with the reason and a suite naming it fails validation with the loader's message.
class UnloadableModule final : public Backend {
 public:
  UnloadableModule(std::string name, std::string error)
      : name_(std::move(name)), error_(std::move(error)) {}
  std::string_view name() const override { return name_; }
  std::string_view summary() const override { return "backend module that cannot be loaded"; }
  std::vector<ParamSpec> instance_params() const override { return {}; }
  std::vector<ParamSpec> case_params() const override { throw BackendModuleError({}, error_); }
  std::unique_ptr<BackendInstance> open(const Params& /*instance_params*/) const override {
    throw BackendUnavailable(error_);
  }

 private:
  std::string name_;
  std::string error_;
};

// Every module loaded in this process. Never destroyed: the modules are never unloaded, and their
// backends must outlive every static destructor that might still use them.
struct ModuleTable {
  std::recursive_mutex mutex;  // a module's registration may itself load a module
  std::map<std::filesystem::path, std::unique_ptr<BackendModule>> by_file;
  std::map<std::string, const BackendModule*, std::less<>> by_name;
  std::map<std::string, std::unique_ptr<UnloadableModule>, std::less<>> unloadable;
};

ModuleTable& module_table() {
  static ModuleTable* table = new ModuleTable;
  return *table;
}

// Opens `file`, checks that it is a module of this framework version and lets it register its
// backends. The handle is closed again only when the module never ran any code of ours.
std::unique_ptr<BackendModule> open_module(const std::filesystem::path& file) {
  (void)dlerror();  // clear a stale error
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::string error = last_dl_error();  // "<file>: <what>" when the module itself is at fault
    if (const std::string prefix = file.string() + ": "; error.starts_with(prefix))
      error.erase(0, prefix.size());
    throw BackendModuleError(file, "cannot be loaded: " + error);
  }
  using AbiFn = const char* (*)();
  using RegisterFn = void (*)(BackendRegistry&);
  // POSIX requires dlsym's object pointer to convert to a function pointer.
  const auto abi = reinterpret_cast<AbiFn>(dlsym(handle, kAbiSymbol));
  const auto register_backends = reinterpret_cast<RegisterFn>(dlsym(handle, kRegisterSymbol));
  if (abi == nullptr || register_backends == nullptr) {
    dlclose(handle);
    throw BackendModuleError(file, std::string("is not an fprev-golden backend module: it does not "
                                               "export ") +
                                       (abi == nullptr ? kAbiSymbol : kRegisterSymbol) +
                                       " (define its entry point with FPREV_BACKEND_MODULE)");
  }
  const std::string module_abi = abi();
  if (module_abi != FPREV_BACKEND_MODULE_ABI) {
    dlclose(handle);
    // Same version, other headers: a module built from another checkout (or before a local edit).
    const std::string same_version = "fprev-golden " FPREV_VERSION_STRING " headers ";
    const bool other_headers = module_abi.starts_with(same_version);
    throw BackendModuleError(file, "was built for " + module_abi + ", this program is " +
                                       FPREV_BACKEND_MODULE_ABI +
                                       (other_headers ? " (the same version, other framework headers)" : "") +
                                       "; rebuild the module against this fprev-golden");
  }
  auto module = std::make_unique<BackendModule>();
  module->name = module_name_of(file);
  module->file = file;
  try {
    register_backends(module->backends);
  } catch (const std::exception& error) {
    throw BackendModuleError(file, std::string("failed to register its backends: ") + error.what());
  }
  if (module->backends.all().empty())
    throw BackendModuleError(file, "registered no backend");
  return module;
}

const BackendModule& load_file_locked(ModuleTable& table, const std::filesystem::path& file) {
  std::error_code error;
  std::filesystem::path key = std::filesystem::canonical(file, error);
  if (error) throw BackendModuleError(file, "cannot be read: " + error.message());
  auto it = table.by_file.find(key);
  if (it == table.by_file.end()) it = table.by_file.emplace(key, open_module(key)).first;
  return *it->second;
}

}  // namespace

BackendModuleError::BackendModuleError(std::filesystem::path file, const std::string& problem)
    : std::runtime_error(file.empty() ? problem : "backend module " + file.string() + " " + problem),
      file_(std::move(file)) {}

std::string backend_module_file_name(std::string_view name) {
  return std::string(kFilePrefix) + std::string(name) + std::string(kFileSuffix);
}

std::vector<std::filesystem::path> backend_module_search_path() {
  std::vector<std::filesystem::path> directories;
  const auto add = [&](std::filesystem::path directory) {
    if (directory.empty()) return;
    if (std::find(directories.begin(), directories.end(), directory) == directories.end())
      directories.push_back(std::move(directory));
  };
  if (const char* variable = std::getenv("FPREV_BACKEND_PATH"); variable != nullptr) {
    std::string_view rest(variable);
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      const std::string_view entry = rest.substr(0, colon);
      if (!entry.empty()) add(std::filesystem::absolute(std::filesystem::path(entry)));
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  // dladdr on an object of this library names the file it was loaded from.
  static const char anchor = 0;
  Dl_info info{};
  if (dladdr(&anchor, &info) != 0 && info.dli_fname != nullptr && *info.dli_fname != '\0') {
    std::error_code error;
    const auto library = std::filesystem::canonical(info.dli_fname, error);
    if (!error) add(library.parent_path() / "fprev-golden");
  }
  std::error_code error;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) add(executable.parent_path());
  return directories;
}

std::vector<std::string> available_backend_modules() {
  std::set<std::string> names;
  for (const auto& directory : backend_module_search_path()) {
    std::error_code error;
    for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end;
         it.increment(error)) {
      const std::string file = it->path().filename().string();
      if (file != backend_module_file_name(module_name_of(it->path()))) continue;
      if (const std::string name = module_name_of(it->path()); valid_module_name(name))
        names.insert(name);
    }
  }
  return {names.begin(), names.end()};
}

const BackendModule& load_backend_module_file(const std::filesystem::path& file) {
  ModuleTable& table = module_table();
  const std::lock_guard lock(table.mutex);
  return load_file_locked(table, std::filesystem::absolute(file));
}

const BackendModule& load_backend_module(std::string_view name) {
  ModuleTable& table = module_table();
  const std::lock_guard lock(table.mutex);
  if (auto it = table.by_name.find(name); it != table.by_name.end()) return *it->second;
  if (!valid_module_name(name))
    throw BackendModuleError({}, "'" + std::string(name) +
                                     "' cannot name a backend module (letters, digits, '_' and "
                                     "'-' only)");
  const std::string file_name = backend_module_file_name(name);
  const auto directories = backend_module_search_path();
  for (const auto& directory : directories) {
    const std::filesystem::path candidate = directory / file_name;
    std::error_code error;
    if (!std::filesystem::is_regular_file(candidate, error)) continue;
    const BackendModule& module = load_file_locked(table, candidate);
    if (module.backends.find(name) == nullptr)
      throw BackendModuleError(module.file, "registers " + module.backends.names() +
                                                " but no backend named '" + std::string(name) +
                                                "' (the file name promises one)");
    table.by_name.emplace(std::string(name), &module);
    return module;
  }
  throw BackendModuleError({}, "no backend module " + file_name + " in " + join_paths(directories) +
                                   " (FPREV_BACKEND_PATH adds directories)");
}

namespace detail {

const Backend* module_backend(std::string_view name) {
  if (!valid_module_name(name)) return nullptr;
  ModuleTable& table = module_table();
  const std::lock_guard lock(table.mutex);
  if (auto it = table.unloadable.find(name); it != table.unloadable.end()) return it->second.get();
  const auto available = available_backend_modules();
  if (std::find(available.begin(), available.end(), name) == available.end()) return nullptr;
  try {
    return load_backend_module(name).backends.find(name);
  } catch (const BackendModuleError& error) {
    auto stand_in = std::make_unique<UnloadableModule>(std::string(name), error.what());
    return table.unloadable.emplace(std::string(name), std::move(stand_in)).first->second.get();
  }
}

}  // namespace detail
}  // namespace fprev
