#include "fprev/blas/library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "fprev/backend.hpp"
#include "fprev/blas/kernel_family.hpp"
#include "namespace_loader.hpp"

namespace fprev::blas {
namespace {

constexpr const char* kAllowedLibraries =
    "openblas, blis, netlib, atlas or an absolute path to a shared library";

// dlsym returns an object pointer; copying the bits is the portable way to a function pointer.
template <class Fn>
Fn find_symbol(void* handle, const char* name) {
  static_assert(sizeof(Fn) == sizeof(void*));
  void* address = dlsym(handle, name);
  Fn fn = nullptr;
  std::memcpy(&fn, &address, sizeof fn);
  return fn;
}

std::string last_dl_error() {
  const char* error = dlerror();
  return error != nullptr ? error : "unknown dlopen error";
}

bool is_known_name(const std::string& spec) {
  return spec == "openblas" || spec == "blis" || spec == "netlib" || spec == "atlas";
}

std::string install_hint(const std::string& spec) {
  if (spec == "openblas") return "Debian/Ubuntu: apt-get install libopenblas0";
  if (spec == "blis") return "Debian/Ubuntu: apt-get install libblis4";
  if (spec == "netlib") return "Debian/Ubuntu: apt-get install libblas3";
  if (spec == "atlas") return "Debian/Ubuntu: apt-get install libatlas3-base";
  return "check the path";
}

Vendor detect_vendor(void* handle) {
  if (dlsym(handle, "openblas_get_config") != nullptr) return Vendor::openblas;
  if (dlsym(handle, "bli_info_get_version_str") != nullptr) return Vendor::blis;
  if (dlsym(handle, "ATL_buildinfo") != nullptr || dlsym(handle, "ATL_xerbla") != nullptr)
    return Vendor::atlas;
  return Vendor::other;
}

const char* vendor_label(Vendor vendor) {
  switch (vendor) {
    case Vendor::openblas: return "OpenBLAS";
    case Vendor::blis: return "BLIS";
    case Vendor::atlas: return "ATLAS";
    case Vendor::other: break;
  }
  return "a BLAS of unknown origin";
}

// Whether the file behind `handle` is what the name `spec` promises. "" when it is, else why not.
std::string check_vendor(const std::string& spec, Vendor vendor) {
  if (spec == "openblas" && vendor != Vendor::openblas)
    return std::string("it is ") + vendor_label(vendor) + ", not OpenBLAS";
  if (spec == "blis" && vendor != Vendor::blis)
    return std::string("it is ") + vendor_label(vendor) + ", not BLIS";
  if ((spec == "netlib" || spec == "atlas") &&
      (vendor == Vendor::openblas || vendor == Vendor::blis))
    return std::string("it is ") + vendor_label(vendor) + " (an alternatives link), not " +
           (spec == "netlib" ? "the netlib reference BLAS" : "ATLAS");
  return {};
}

std::string loaded_file(void* handle) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr)
    return {};
  std::error_code error;
  const auto real = std::filesystem::canonical(map->l_name, error);
  return error ? std::string(map->l_name) : real.string();
}

// FNV-1a over the file's bytes: identifies a library that does not report its version.
std::string file_fnv1a64(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "unreadable";
  std::uint64_t hash = 0xcbf29ce484222325ull;
  std::vector<char> chunk(1 << 16);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    for (std::size_t i = 0; i < got; ++i) {
      hash ^= static_cast<unsigned char>(chunk[i]);
      hash *= 0x100000001b3ull;
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

// "libblas.so.3.11.0" -> "3.11.0"; "" when the file name carries no version.
std::string version_from_file_name(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  const std::size_t so = name.find(".so.");
  if (so == std::string::npos) return {};
  const std::string suffix = name.substr(so + 4);
  if (suffix.empty() || suffix.find_first_not_of("0123456789.") != std::string::npos) return {};
  return suffix;
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::mutex& cache_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::map<std::string, std::shared_ptr<Library>>& cache() {
  static std::map<std::string, std::shared_ptr<Library>> libraries;
  return libraries;
}
// Forced copies that could not be used, by cache key: asked again, the same answer, without
// spending another link-map namespace (a copy that was loaded is never unloaded).
std::map<std::string, BackendUnavailable>& forced_failures() {
  static std::map<std::string, BackendUnavailable> failures;
  return failures;
}

}  // namespace

std::vector<std::string> linker_search_directories() {
  std::vector<std::string> directories;
  void* self = dlopen(nullptr, RTLD_LAZY);
  if (self == nullptr) return directories;
  Dl_serinfo size{};
  if (dlinfo(self, RTLD_DI_SERINFOSIZE, &size) == 0 && size.dls_size >= sizeof(Dl_serinfo)) {
    // Dl_serinfo ends in a flexible array: allocate the size the linker asks for.
    std::vector<std::max_align_t> storage(size.dls_size / sizeof(std::max_align_t) + 1);
    auto* info = reinterpret_cast<Dl_serinfo*>(storage.data());
    info->dls_size = size.dls_size;
    info->dls_cnt = size.dls_cnt;
    if (dlinfo(self, RTLD_DI_SERINFO, info) == 0) {
      for (unsigned i = 0; i < info->dls_cnt; ++i) {
        std::string directory = info->dls_serpath[i].dls_name;
        while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
        // Only absolute directories: an empty or relative entry (an empty RUNPATH element means
        // ".") would load whatever the current directory holds under that name.
        bool seen = false;
        for (const auto& d : directories) seen = seen || d == directory;
        if (!seen && directory.starts_with('/')) directories.push_back(directory);
      }
    }
  }
  dlclose(self);
  return directories;
}

std::vector<std::string> library_candidates(const std::string& name) {
  std::vector<std::string> candidates;
  if (name == "openblas") {
    candidates = {"libopenblas.so.0", "libopenblas.so"};
  } else if (name == "blis") {
    candidates = {"libblis.so.4", "libblis.so.3", "libblis.so"};
  } else if (name == "netlib") {
    for (const auto& dir : linker_search_directories()) candidates.push_back(dir + "/blas/libblas.so.3");
    candidates.push_back("libblas.so.3");
  } else if (name == "atlas") {
    for (const auto& dir : linker_search_directories()) candidates.push_back(dir + "/atlas/libblas.so.3");
    candidates.push_back("libsatlas.so.3");
    candidates.push_back("libtatlas.so.3");
  }
  return candidates;
}

std::shared_ptr<Library> Library::load(const std::string& spec) {
  if (spec.empty() || (!is_known_name(spec) && spec.front() != '/'))
    throw ConfigError("library", "'library' must be " + std::string(kAllowedLibraries) +
                                     ", got '" + spec + "'");
  std::lock_guard lock(cache_mutex());
  if (auto it = cache().find(spec); it != cache().end()) return it->second;

  std::vector<std::string> tried;
  if (spec.front() == '/') {
    std::error_code error;
    // A path is named on purpose: one that does not work is an error, never a skip.
    if (!std::filesystem::exists(spec, error))
      throw BackendUnavailable("BLAS library '" + spec + "' not found: no such file",
                               Unavailability::unusable);
    std::string why;
    auto library = open_file(spec, spec, &why);
    if (!library)
      throw BackendUnavailable("cannot use BLAS library '" + spec + "': " + why,
                               Unavailability::unusable);
    cache()[spec] = library;
    return library;
  }
  for (const auto& candidate : library_candidates(spec)) {
    // Skip absolute candidates that do not exist quietly: most linker directories lack them.
    std::error_code error;
    if (candidate.front() == '/' && !std::filesystem::exists(candidate, error)) continue;
    std::string why;
    if (auto library = open_file(candidate, spec, &why)) {
      cache()[spec] = library;
      return library;
    }
    tried.push_back(candidate + " (" + why + ")");
  }
  std::string message = "BLAS library '" + spec + "' not found";
  if (spec == "netlib" || spec == "atlas")
    message += " (looked for " + std::string(spec == "netlib" ? "blas/libblas.so.3" : "atlas/libblas.so.3") +
               " under " + join(linker_search_directories(), ", ") + ")";
  if (!tried.empty()) message += "; tried " + join(tried, "; ");
  message += ". Install it (" + install_hint(spec) +
             ") or set 'library' to an absolute path (or FPREV_BLAS_LIBRARY)";
  throw BackendUnavailable(message);
}

namespace {

// BLIS 0.9 takes BLIS_ARCH_TYPE as an index into its configuration table, whose order changes
// between versions: find the index in the loaded copy itself. The table ends with "generic".
std::optional<int> blis_arch_index(void* handle, std::string_view config) {
  const auto arch_name = find_symbol<const char* (*)(int)>(handle, "bli_arch_string");
  if (arch_name == nullptr) return std::nullopt;
  for (int id = 0; id < 64; ++id) {
    const char* name = arch_name(id);
    if (name == nullptr) break;
    if (config == name) return id;
    if (std::string_view(name) == "generic") break;
  }
  return std::nullopt;
}

}  // namespace

std::shared_ptr<Library> Library::load_forced(const Library& base, const KernelFamily& family) {
  const bool openblas = base.vendor_ == Vendor::openblas;
  if (!base.has_kernel_families())
    throw std::logic_error("load_forced: " + base.name_ + " has no kernel families");
  const std::string_view wanted = openblas ? family.openblas : family.blis;
  if (wanted.empty()) {
    std::vector<std::string> known;
    for (const auto& other : kernel_families())
      if (!(openblas ? other.openblas : other.blis).empty()) known.emplace_back(other.name);
    throw BackendUnavailable(base.name_ + " has no kernel family " + std::string(family.name) +
                                 "; the families it can be asked for: " + join(known, ", "),
                             Unavailability::unsupported_setting);
  }

  std::lock_guard lock(cache_mutex());
  const std::string cache_key = base.path_ + "\n" + std::string(family.name);
  if (auto it = cache().find(cache_key); it != cache().end()) return it->second;
  if (auto it = forced_failures().find(cache_key); it != forced_failures().end()) throw it->second;
  try {
    auto library = open_forced(base, family, wanted);
    cache()[cache_key] = library;
    return library;
  } catch (const BackendUnavailable& unusable) {
    forced_failures().emplace(cache_key, unusable);
    throw;
  }
}

std::shared_ptr<Library> Library::open_forced(const Library& base, const KernelFamily& family,
                                              std::string_view wanted) {
  const bool openblas = base.vendor_ == Vendor::openblas;

  const std::string variable = openblas ? "OPENBLAS_CORETYPE" : "BLIS_ARCH_TYPE";
  auto& environment = detail::PrivateEnvironment::create(
      openblas ? std::vector<std::pair<std::string, std::string>>{{variable, std::string(wanted)}}
               : std::vector<std::pair<std::string, std::string>>{},
      {"OPENBLAS_CORETYPE", "BLIS_ARCH_TYPE"});
  std::string error;
  void* handle = detail::open_in_new_namespace(base.path_, environment, &error);
  if (handle == nullptr)
    throw BackendUnavailable(
        "cannot load another copy of " + base.path_ + " for kernel family " +
            std::string(family.name) + ": " + error +
            " (each forced kernel family loads its own copy of the library into a new link-map "
            "namespace, and glibc has room for about ten per process: check fewer families in one "
            "run, e.g. select instances with --backend)",
        Unavailability::unusable);
  std::string value(wanted);
  if (!openblas) {
    const auto index = blis_arch_index(handle, wanted);
    if (!index)
      throw BackendUnavailable(base.name_ + " " + base.version_ + " at " + base.path_ +
                                   " has no configuration '" + value + "' (kernel family " +
                                   std::string(family.name) + ")",
                               Unavailability::unsupported_setting);
    value = std::to_string(*index);
    environment.add_late(variable, value);  // BLIS reads it at bli_init, in adopt() below
  }

  std::shared_ptr<Library> library(new Library());
  library->handle_ = handle;
  library->spec_ = base.spec_;
  library->vendor_ = detect_vendor(handle);
  library->path_ = base.path_;
  if (library->vendor_ != base.vendor_)
    throw BackendUnavailable(base.path_ + " loaded into a new namespace is no longer " + base.name_,
                             Unavailability::unusable);
  if (std::string why = library->adopt(); !why.empty())
    throw BackendUnavailable(why, Unavailability::unusable);
  const auto same = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) ==
                    std::tolower(static_cast<unsigned char>(y));
           });
  };
  if (!same(library->running_family_, wanted))
    throw BackendUnavailable(
        library->name_ + " " + library->version_ + " at " + library->path_ + " was asked for the " +
            std::string(family.name) + " kernels (" + variable + "=" + value + ") but runs " +
            (library->running_family_.empty() ? std::string("an unnamed family")
                                              : "'" + library->running_family_ + "'") +
            ": this build cannot force that family (OpenBLAS answers a name it cannot force "
            "with \"Core not found\" and picks a family from the CPU's features instead; a "
            "build without DYNAMIC_ARCH runs its one family). Its trees can be recorded and "
            "checked only where this library runs " +
            std::string(family.name) + " by itself",
        Unavailability::unusable);
  library->details_["kernel_forced_with"] = variable + "=" + value;
  return library;
}

std::shared_ptr<Library> Library::open_file(const std::string& dlopen_name,
                                            const std::string& spec, std::string* error) {
  dlerror();  // clear a stale error
  void* handle = dlopen(dlopen_name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    *error = last_dl_error();
    return nullptr;
  }
  const Vendor vendor = detect_vendor(handle);
  if (std::string why = check_vendor(spec, vendor); !why.empty()) {
    *error = loaded_file(handle) + ": " + why;
    dlclose(handle);
    return nullptr;
  }
  std::shared_ptr<Library> library(new Library());
  library->handle_ = handle;
  library->spec_ = spec;
  library->vendor_ = vendor;
  library->path_ = loaded_file(handle);
  if (library->path_.empty()) library->path_ = dlopen_name;
  *error = library->adopt();
  if (!error->empty()) return nullptr;  // stays loaded: unloading a foreign library is riskier
  return library;
}

std::string Library::adopt() {
  bind_kernels();
  if (missing_.size() == 6)
    return path_ + " exports none of sdot_, ddot_, sgemv_, dgemv_, sgemm_, dgemm_: not a BLAS "
                   "with the Fortran interface";
  try {
    identify();
  } catch (const BackendUnavailable& unusable) {
    return unusable.what();
  }
  running_family_ = query_running_family();
  return {};
}

std::string Library::query_running_family() const {
  if (vendor_ == Vendor::openblas) {
    const auto core = find_symbol<const char* (*)()>(handle_, "openblas_get_corename");
    return core != nullptr && core() != nullptr ? core() : "";
  }
  if (vendor_ == Vendor::blis) {
    // bli_init first: BLIS 0.9 checks a BLIS_ARCH_TYPE from the environment against its context
    // registry, which only bli_init fills (querying before it aborts the process).
    const auto init = find_symbol<void (*)()>(handle_, "bli_init");
    const auto arch_id = find_symbol<int (*)()>(handle_, "bli_arch_query_id");
    const auto arch_name = find_symbol<const char* (*)(int)>(handle_, "bli_arch_string");
    if (arch_id == nullptr || arch_name == nullptr) return "";
    if (init != nullptr) init();
    const char* name = arch_name(arch_id());
    return name != nullptr ? name : "";
  }
  return "";
}

void Library::bind_kernels() {
  // Bound one by one so a library missing some kernels still serves the others.
  single_.dot = find_symbol<DotFn<float>>(handle_, "sdot_");
  double_.dot = find_symbol<DotFn<double>>(handle_, "ddot_");
  single_.gemv = find_symbol<GemvFn<float>>(handle_, "sgemv_");
  double_.gemv = find_symbol<GemvFn<double>>(handle_, "dgemv_");
  single_.gemm = find_symbol<GemmFn<float>>(handle_, "sgemm_");
  double_.gemm = find_symbol<GemmFn<double>>(handle_, "dgemm_");
  const std::pair<const char*, bool> present[] = {
      {"sdot_", single_.dot != nullptr},   {"ddot_", double_.dot != nullptr},
      {"sgemv_", single_.gemv != nullptr}, {"dgemv_", double_.gemv != nullptr},
      {"sgemm_", single_.gemm != nullptr}, {"dgemm_", double_.gemm != nullptr}};
  for (const auto& [symbol, found] : present)
    if (!found) missing_.push_back(symbol);
  if (!missing_.empty()) details_["missing_symbols"] = join(missing_, ", ");
}

void Library::identify() {
  details_["file"] = path_;
  switch (vendor_) {
    case Vendor::openblas: {
      name_ = "OpenBLAS";
      const auto config = find_symbol<const char* (*)()>(handle_, "openblas_get_config");
      const auto core = find_symbol<const char* (*)()>(handle_, "openblas_get_corename");
      const auto parallel = find_symbol<int (*)()>(handle_, "openblas_get_parallel");
      const std::string text = config != nullptr && config() != nullptr ? config() : "";
      // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Cooperlake MAX_THREADS=64"
      if (text.rfind("OpenBLAS ", 0) == 0) version_ = text.substr(9, text.find(' ', 9) - 9);
      if (text.find("USE64BITINT") != std::string::npos)
        throw BackendUnavailable(path_ + " is a 64-bit-integer (ILP64) OpenBLAS; the blas backend "
                                         "calls the LP64 interface: use the LP64 build",
                                 Unavailability::unusable);
      configuration_ = text;
      if (core != nullptr && core() != nullptr) details_["core"] = core();
      if (parallel != nullptr) {
        const int mode = parallel();
        details_["threading"] = mode == 0 ? "sequential" : mode == 1 ? "pthreads" : "openmp";
      }
      set_threads_ = find_symbol<void (*)(int)>(handle_, "openblas_set_num_threads");
      get_threads_ = find_symbol<int (*)()>(handle_, "openblas_get_num_threads");
      details_["version_source"] = "openblas_get_config";
      break;
    }
    case Vendor::blis: {
      name_ = "BLIS";
      const auto version = find_symbol<const char* (*)()>(handle_, "bli_info_get_version_str");
      const auto int_size = find_symbol<std::int64_t (*)()>(handle_, "bli_info_get_blas_int_type_size");
      const auto openmp = find_symbol<std::int64_t (*)()>(handle_, "bli_info_get_enable_openmp");
      const auto pthreads = find_symbol<std::int64_t (*)()>(handle_, "bli_info_get_enable_pthreads");
      if (version != nullptr && version() != nullptr) version_ = version();
      if (int_size != nullptr && int_size() == 64)
        throw BackendUnavailable(path_ + " is a BLIS with 64-bit BLAS integers; the blas backend "
                                         "calls the LP64 interface: use a 32-bit-integer build",
                                 Unavailability::unusable);
      std::string arch = query_running_family();
      if (arch.empty()) arch = "unknown";
      // Only the low byte: newer BLIS returns bool from these queries.
      const bool uses_openmp = openmp != nullptr && (openmp() & 0xff) != 0;
      const bool uses_pthreads = pthreads != nullptr && (pthreads() & 0xff) != 0;
      const std::string threading = uses_openmp ? "openmp" : uses_pthreads ? "pthreads" : "none";
      details_["arch"] = arch;
      details_["threading"] = threading;
      configuration_ = "arch " + arch + ", threading " + threading + ", BLAS integer " +
                       (int_size != nullptr ? std::to_string(int_size()) : std::string("32")) +
                       " bit";
      blis_set_threads_ = find_symbol<void (*)(std::int64_t)>(handle_, "bli_thread_set_num_threads");
      blis_get_threads_ = find_symbol<std::int64_t (*)()>(handle_, "bli_thread_get_num_threads");
      details_["version_source"] = "bli_info_get_version_str";
      break;
    }
    case Vendor::atlas:
    case Vendor::other: {
      // The reference BLAS and ATLAS do not say what they are: identify the file itself.
      name_ = vendor_ == Vendor::atlas ? "ATLAS"
              : spec_ == "netlib"      ? "netlib reference BLAS"
                                       : "BLAS " + std::filesystem::path(path_).filename().string();
      std::error_code error;
      const auto size = std::filesystem::file_size(path_, error);
      const std::string hash = file_fnv1a64(path_);
      details_["file_size"] = error ? "unknown" : std::to_string(size);
      details_["fnv1a64"] = hash;
      const std::string from_name = version_from_file_name(path_);
      if (!from_name.empty()) version_ = from_name;
      details_["version_source"] = from_name.empty() ? "none" : "file name";
      configuration_ = "file " + path_ + ", " + details_["file_size"] + " bytes, fnv1a64 " + hash;
      break;
    }
  }
  if (blis_set_threads_ == nullptr) blis_get_threads_ = nullptr;
}

bool Library::can_set_threads() const {
  return set_threads_ != nullptr || blis_set_threads_ != nullptr;
}

std::optional<int> Library::threads() const {
  if (get_threads_ != nullptr) return get_threads_();
  if (blis_get_threads_ != nullptr) {
    const std::int64_t n = blis_get_threads_();
    if (n >= 1) return static_cast<int>(n);
  }
  return std::nullopt;
}

std::optional<int> Library::use_threads(int threads) const {
  if (set_threads_ != nullptr) {
    if (get_threads_ == nullptr || get_threads_() != threads) set_threads_(threads);
  } else if (blis_set_threads_ != nullptr) {
    if (blis_get_threads_ == nullptr || blis_get_threads_() != threads) blis_set_threads_(threads);
  }
  return this->threads();
}

}  // namespace fprev::blas
