// A CPU BLAS loaded at run time with dlopen, reached through its Fortran symbols (sdot_, sgemv_,
// sgemm_, ...) so that any BLAS works: OpenBLAS, BLIS, the netlib reference BLAS, ATLAS or a
// library given by absolute path.
//
// Libraries are opened with RTLD_NOW | RTLD_LOCAL, so two BLAS libraries live side by side in one
// process without their symbols clashing (no RTLD_DEEPBIND: it is refused by the sanitizer
// runtimes, and RTLD_LOCAL suffices because nothing of ours exports BLAS symbols). A library stays
// loaded until the process ends (BLAS thread pools and OpenMP runtimes do not survive dlclose
// well); loading the same file again returns the same Library.
//
// A forced kernel family (load_forced) gets its own copy of the library in a fresh link-map
// namespace (dlmopen), with its own C library whose environment carries OPENBLAS_CORETYPE or
// BLIS_ARCH_TYPE: both libraries read their kernel choice once, so several families in one process
// need several copies. Calls into a copy cost what calls into the plain library cost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fprev::blas {

// Fortran BLAS entry points (LP64: 32-bit INTEGER). Character arguments are followed by their
// hidden lengths, as gfortran passes them; C implementations ignore the extra arguments.
using FortranInt = int;
template <class T>
using DotFn = T (*)(const FortranInt* n, const T* x, const FortranInt* incx, const T* y,
                    const FortranInt* incy);
template <class T>
using GemvFn = void (*)(const char* trans, const FortranInt* m, const FortranInt* n,
                        const T* alpha, const T* a, const FortranInt* lda, const T* x,
                        const FortranInt* incx, const T* beta, T* y, const FortranInt* incy,
                        std::size_t trans_length);
template <class T>
using GemmFn = void (*)(const char* transa, const char* transb, const FortranInt* m,
                        const FortranInt* n, const FortranInt* k, const T* alpha, const T* a,
                        const FortranInt* lda, const T* b, const FortranInt* ldb, const T* beta,
                        T* c, const FortranInt* ldc, std::size_t transa_length,
                        std::size_t transb_length);

template <class T>
struct Kernels {
  DotFn<T> dot = nullptr;
  GemvFn<T> gemv = nullptr;
  GemmFn<T> gemm = nullptr;
};

// Which implementation the loaded file is, recognised by the symbols it exports.
enum class Vendor : std::uint8_t { openblas, blis, atlas, other };

struct KernelFamily;

class Library {
 public:
  // Loads `spec`: "openblas", "blis", "netlib", "atlas" or an absolute path to a shared library.
  // Throws fprev::ConfigError for a malformed spec and fprev::BackendUnavailable (naming what was
  // tried and what to install) when the library cannot be loaded or is not usable: not_installed
  // for a name whose library is not here, unusable for a path that does not work or a library that
  // cannot be used (not a BLAS, a 64-bit-integer build).
  static std::shared_ptr<Library> load(const std::string& spec);

  // A copy of `base` (OpenBLAS or BLIS) running `family`, in its own link-map namespace, confirmed
  // after loading (openblas_get_corename, bli_arch_query_id). The caller checks first that this
  // CPU can execute the family. Throws BackendUnavailable: unsupported_setting when the library
  // has no such family, unusable when the copy runs another family than asked or cannot be loaded
  // (glibc has room for about ten namespaces per process).
  static std::shared_ptr<Library> load_forced(const Library& base, const KernelFamily& family);

  // Whether the library has kernel families to choose from (OpenBLAS, BLIS), and the one this copy
  // runs as the library names it ("Haswell", "skx"; "" when it does not say).
  bool has_kernel_families() const {
    return vendor_ == Vendor::openblas || vendor_ == Vendor::blis;
  }
  const std::string& running_family() const { return running_family_; }

  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  const std::string& spec() const { return spec_; }       // as requested
  const std::string& path() const { return path_; }       // the loaded file, symlinks resolved
  Vendor vendor() const { return vendor_; }
  const std::string& name() const { return name_; }       // "OpenBLAS", "BLIS", ...
  const std::string& version() const { return version_; }  // "0.3.21"; "unknown" if not told
  const std::string& configuration() const { return configuration_; }
  // Further identity facts: core (OpenBLAS), arch (BLIS), file_size and fnv1a64 (libraries that do
  // not report a version), version_source, missing_symbols, ...
  const std::map<std::string, std::string>& details() const { return details_; }

  const Kernels<float>& single() const { return single_; }
  const Kernels<double>& dbl() const { return double_; }
  // Fortran symbols of the six kernels this library lacks ("sgemv_", ...), in a fixed order.
  const std::vector<std::string>& missing_symbols() const { return missing_; }

  // Threads, through the library's own API (openblas_set_num_threads, bli_thread_set_num_threads).
  bool can_set_threads() const;
  // Sets the thread count when it differs from the current one; returns the effective count
  // afterwards, or nullopt when the library cannot tell.
  std::optional<int> use_threads(int threads) const;
  std::optional<int> threads() const;

 private:
  Library() = default;
  static std::shared_ptr<Library> open_file(const std::string& dlopen_name,
                                            const std::string& spec, std::string* error);
  // load_forced without the caches: loads, forces and confirms. Throws BackendUnavailable.
  static std::shared_ptr<Library> open_forced(const Library& base, const KernelFamily& family,
                                              std::string_view wanted);
  // Binds the kernels and identifies the library behind `handle_` (path_, spec_, vendor_ set).
  // Returns why it is unusable, or "".
  std::string adopt();
  void identify();
  void bind_kernels();
  std::string query_running_family() const;

  void* handle_ = nullptr;
  std::string spec_, path_, name_, version_ = "unknown", configuration_, running_family_;
  Vendor vendor_ = Vendor::other;
  std::map<std::string, std::string> details_;
  Kernels<float> single_;
  Kernels<double> double_;
  std::vector<std::string> missing_;
  void (*set_threads_)(int) = nullptr;
  int (*get_threads_)() = nullptr;
  void (*blis_set_threads_)(std::int64_t) = nullptr;
  std::int64_t (*blis_get_threads_)() = nullptr;
};

// The directories the dynamic linker searches (LD_LIBRARY_PATH, then the system directories such
// as /usr/lib/x86_64-linux-gnu), as it reports them (dlinfo RTLD_DI_SERINFO).
std::vector<std::string> linker_search_directories();

// The file names tried for a library name, in order: "openblas" -> libopenblas.so.0, ...;
// "netlib" -> <dir>/blas/libblas.so.3 for every linker directory (Debian's reference BLAS; the
// plain libblas.so.3 is an alternatives link that usually points to an optimised BLAS), then
// libblas.so.3 if it turns out not to be OpenBLAS, BLIS or ATLAS. Empty for an unknown name.
std::vector<std::string> library_candidates(const std::string& name);

}  // namespace fprev::blas
