// Backend modules: backends in shared libraries that a program loads when a case of theirs runs.
//
// Why: a backend with a heavy runtime (cuBLAS and cuBLASLt map hundreds of MiB, MPI starts its
// own machinery) must not be mapped by `fprev-golden --help` or by a CPU reveal; and a downstream
// project adds its own backend to the installed fprev-golden without rebuilding it. One mechanism
// serves both:
//
//   * A module is a shared library named fprev_backend_<name>.so that registers its backends with
//     FPREV_BACKEND_MODULE. Build it with fprev_add_backend_module(<target> NAME <name> SOURCES ...)
//     from the CMake package (find_package(fprev_golden)). examples/module-template is one to copy:
//     a Backend (name, case parameters), an instance (identity, make_target) and a target made from
//     the kernel with fprev/sum_target.hpp.
//   * The program's registry (builtin_backends()) asks for a module when a suite or the command
//     line names a backend it does not hold: `use: kahan` loads fprev_backend_kahan.so from the
//     search path below, once per process.
//   * A backend that is always registered but keeps its heavy part in a module (cuBLAS: settings
//     and suite validation linked in, everything that links the CUDA libraries in the module)
//     calls load_backend_module() from its open().
//
// Modules link the shared framework library (libfprev_framework.so), as the executable does, so
// there is one copy of the framework per process: exceptions thrown by a module are caught by type
// in the program, and static state (Background ids, the loaded-module table) is shared.
//
// A module stays loaded until the process exits (never dlclose'd): its backends, instances and
// targets, and whatever its runtime registered with atexit, live in its code.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/version.hpp"

// What a module and the program loading it must agree on: the framework version (the framework's
// C++ types have no stable ABI across versions), the public headers it was compiled against (their
// digest: two checkouts of one version whose headers differ lay out their types differently) and
// the C++ standard library.
#if defined(_LIBCPP_VERSION)
#define FPREV_BACKEND_MODULE_STDLIB "libc++"
#else
#define FPREV_BACKEND_MODULE_STDLIB "libstdc++"
#endif
#define FPREV_BACKEND_MODULE_ABI \
  "fprev-golden " FPREV_VERSION_STRING " headers " FPREV_HEADERS_DIGEST " " FPREV_BACKEND_MODULE_STDLIB

// Defines the entry points of a backend module; the body registers its backends:
//
//   FPREV_BACKEND_MODULE(registry) {
//     registry.add(std::make_unique<KahanBackend>());
//   }
//
// The loader checks fprev_backend_module_abi_v1() against its own FPREV_BACKEND_MODULE_ABI before
// it calls fprev_backend_module_register_v1(). Both are exported even from a module compiled with
// -fvisibility=hidden (as fprev_add_backend_module does).
#define FPREV_BACKEND_MODULE(registry)                                                        \
  extern "C" __attribute__((visibility("default"))) const char* fprev_backend_module_abi_v1() { \
    return FPREV_BACKEND_MODULE_ABI;                                                          \
  }                                                                                           \
  extern "C" __attribute__((visibility("default"))) void fprev_backend_module_register_v1(    \
      ::fprev::BackendRegistry& registry)

namespace fprev {

// A module that cannot be found or loaded. The message names the file (or the directories
// searched) and what went wrong, with dlerror()'s text when dlopen failed.
class BackendModuleError : public std::runtime_error {
 public:
  BackendModuleError(std::filesystem::path file, const std::string& problem);
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
};

// A loaded module and the backends it registered.
struct BackendModule {
  std::string name;            // "kahan" for fprev_backend_kahan.so
  std::filesystem::path file;  // absolute
  BackendRegistry backends;
};

// "fprev_backend_<name>.so". Module names are what backend names may be: letters, digits, '_'
// and '-' (never a path).
std::string backend_module_file_name(std::string_view name);

// Where modules are looked for, first match wins:
//   1. the directories in FPREV_BACKEND_PATH (separated by ':'), in order;
//   2. <directory of libfprev_framework.so>/fprev-golden: the installed <prefix>/lib/fprev-golden
//      (the build tree has the same layout under <build>/lib);
//   3. the directory of the running executable.
std::vector<std::filesystem::path> backend_module_search_path();

// The names of the modules on the search path (from their file names, nothing is loaded), sorted.
std::vector<std::string> available_backend_modules();

// Loads module `name` from the search path, once per process. Throws BackendModuleError when no
// directory holds it (listing the directories searched) or when it cannot be loaded: dlopen fails
// (a missing dependency such as libcudart), it is not a module, it was built against another
// framework version, or its registration throws or registers nothing.
const BackendModule& load_backend_module(std::string_view name);

// Loads the module in `file` (any file name), once per process. Throws BackendModuleError.
const BackendModule& load_backend_module_file(const std::filesystem::path& file);

}  // namespace fprev
