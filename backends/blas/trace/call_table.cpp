// The interposer's memory: distinct calls in a fixed table (kMaxDistinct entries, kMaxSites call
// sites each), the libraries that served them, the counts of other routines; written to
// $FPREV_BLAS_TRACE_DIR/trace.<pid> when the process exits (docs/trace.md, "The trace file").
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "call_sites.hpp"
#include "other_symbols.hpp"
#include "trace_record.hpp"

namespace fprev_trace {
namespace {

constexpr int kMaxDistinct = 1024;   // distinct calls kept; later new ones are only counted
constexpr int kSlots = 2048;         // open addressing, at most half full
constexpr int kMaxSites = 4;         // call sites kept per distinct call
constexpr std::uint64_t kSampledCalls = 16;  // the first calls of each distinct call give sites
constexpr int kMaxLibraries = 8;
constexpr int kMaxOthers = 64;
constexpr int kMaxRoutines = 256;    // real routines whose library is remembered

struct Entry {
  CallKey key;
  std::uint64_t count = 0;
  std::uint64_t alignment[3] = {};  // bit b: an operand seen at byte offset b from a 64-byte boundary
  CallSite sites[kMaxSites];
  int site_count = 0;
};

struct Library {
  char file[512] = {};
  char kind[16] = {};  // openblas, blis, other
  char config[256] = {};
  char core[64] = {};
  char coretype[64] = {};  // OPENBLAS_CORETYPE as the process saw it
  const void* base = nullptr;
  int (*openblas_threads)() = nullptr;
  long (*blis_threads)() = nullptr;
};

struct Table {
  std::mutex mutex;
  Entry entries[kMaxDistinct];
  int entry_count = 0;
  short slots[kSlots] = {};  // index + 1 into entries, 0: empty
  std::uint64_t unrecorded = 0;  // calls of distinct kinds beyond kMaxDistinct
  Library libraries[kMaxLibraries];
  int library_count = 0;
  // The library of each real routine seen: dladdr searches the library's whole symbol table
  // (about 0.1 ms in OpenBLAS), too slow for every call.
  struct KnownRoutine {
    void* real = nullptr;
    int library = -1;
  };
  KnownRoutine routines[kMaxRoutines];
  int routine_count = 0;
  std::atomic<std::uint64_t> others[kMaxOthers] = {};
  char directory[1024] = {};
};

// Zero-initialised storage, constructed in place at load and again in a forked child.
alignas(Table) unsigned char g_storage[sizeof(Table)];
Table* g_table = nullptr;

Table& table() { return *g_table; }

bool CallKeyEquals(const CallKey& a, const CallKey& b) {
  return a.op == b.op && a.float64 == b.float64 && a.cblas == b.cblas && a.row_major == b.row_major &&
         a.trans_a == b.trans_a && a.trans_b == b.trans_b && a.alpha_one == b.alpha_one && a.beta == b.beta &&
         a.m == b.m && a.n == b.n && a.k == b.k && a.inc_x == b.inc_x && a.inc_y == b.inc_y && a.ld_a == b.ld_a &&
         a.ld_b == b.ld_b && a.ld_c == b.ld_c && a.threads == b.threads && a.library == b.library;
}

std::uint64_t hash_of(const CallKey& key) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](std::uint64_t value) { h = (h ^ value) * 1099511628211ull; };
  mix(static_cast<std::uint64_t>(key.op));
  mix(key.float64 | key.cblas << 1 | key.row_major << 2 | key.alpha_one << 3 | std::uint64_t{key.beta} << 4);
  mix(static_cast<unsigned char>(key.trans_a) | static_cast<unsigned char>(key.trans_b) << 8);
  for (std::int64_t v : {key.m, key.n, key.k, key.inc_x, key.inc_y, key.ld_a, key.ld_b, key.ld_c})
    mix(static_cast<std::uint64_t>(v));
  mix(static_cast<std::uint64_t>(key.threads) << 8 | static_cast<std::uint64_t>(key.library + 1));
  return h;
}

// The entry of `key`, created when there is room; nullptr when the table is full. Under the lock.
Entry* find_or_add(const CallKey& key) {
  Table& t = table();
  for (std::uint64_t slot = hash_of(key) % kSlots;; slot = (slot + 1) % kSlots) {
    const int index = t.slots[slot] - 1;
    if (index < 0) {
      if (t.entry_count == kMaxDistinct) return nullptr;
      Entry& entry = t.entries[t.entry_count];
      entry.key = key;
      t.slots[slot] = static_cast<short>(++t.entry_count);
      return &entry;
    }
    if (CallKeyEquals(t.entries[index].key, key)) return &t.entries[index];
  }
}

void copy(char* to, std::size_t size, const char* from) {
  if (from == nullptr) return;
  std::snprintf(to, size, "%s", from);
}

// Fills in what the library that holds `base` says about itself. Under the lock.
void describe(Library& library, const Dl_info& info) {
  copy(library.file, sizeof library.file, info.dli_fname);
  library.base = info.dli_fbase;
  copy(library.kind, sizeof library.kind, "other");
  copy(library.coretype, sizeof library.coretype, std::getenv("OPENBLAS_CORETYPE"));
  // The library's own scope: Debian's libblas.so.3 of OpenBLAS is a front whose dependency
  // libopenblas.so.0 holds openblas_get_config.
  void* handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return;
  if (auto config = reinterpret_cast<const char* (*)()>(dlsym(handle, "openblas_get_config"))) {
    copy(library.kind, sizeof library.kind, "openblas");
    copy(library.config, sizeof library.config, config());
    if (auto core = reinterpret_cast<const char* (*)()>(dlsym(handle, "openblas_get_corename")))
      copy(library.core, sizeof library.core, core());
    library.openblas_threads = reinterpret_cast<int (*)()>(dlsym(handle, "openblas_get_num_threads"));
  } else if (auto version = reinterpret_cast<const char* (*)()>(dlsym(handle, "bli_info_get_version_str"))) {
    copy(library.kind, sizeof library.kind, "blis");
    copy(library.config, sizeof library.config, version());
    library.blis_threads = reinterpret_cast<long (*)()>(dlsym(handle, "bli_thread_get_num_threads"));
  }
  dlclose(handle);
}

// The index of the library that defines `real`, added to the table when new. Under the lock.
int describe_library(void* real) {
  Table& t = table();
  Dl_info info{};
  if (dladdr(real, &info) == 0 || info.dli_fname == nullptr) return -1;
  for (int i = 0; i < t.library_count; ++i)
    if (t.libraries[i].base == info.dli_fbase) return i;
  if (t.library_count == kMaxLibraries) return -1;
  describe(t.libraries[t.library_count], info);
  return t.library_count++;
}

int library_index(void* real) {
  Table& t = table();
  for (int i = 0; i < t.routine_count; ++i)
    if (t.routines[i].real == real) return t.routines[i].library;
  const int library = describe_library(real);
  if (t.routine_count < kMaxRoutines) t.routines[t.routine_count++] = {real, library};
  return library;
}

// The libraries loaded in the process whose file names are those of BLAS libraries (whether or
// not they were called), for the message about a program that made no BLAS call. By name only:
// opening an object again while the process exits would run its initialisers a second time.
int note_loaded(struct dl_phdr_info* info, std::size_t, void* data) {
  auto* out = static_cast<std::FILE*>(data);
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
  const char* slash = std::strrchr(info->dlpi_name, '/');
  const char* name = slash != nullptr ? slash + 1 : info->dlpi_name;
  for (const char* blas : {"libblas.", "libcblas.", "libopenblas", "libblis.", "libmkl_rt.", "libsatlas.",
                           "libtatlas.", "libflexiblas.", "libarmpl"})
    if (std::strncmp(name, blas, std::strlen(blas)) == 0) {
      std::fprintf(out, "loaded\t%s\n", info->dlpi_name);
      break;
    }
  return 0;
}

void write_field(std::FILE* out, const char* text) {
  for (const char* c = text; *c != '\0'; ++c) std::fputc(*c == '\t' || *c == '\n' || *c == '\r' ? ' ' : *c, out);
}

const char* op_name(Op op) {
  switch (op) {
    case Op::dot: return "dot";
    case Op::gemv: return "gemv";
    case Op::gemm: return "gemm";
  }
  return "?";
}

void write_trace(Table& t, std::FILE* out) {
  std::fprintf(out, "fprev-blas-trace\t1\n");
  char exe[1024] = {};
  const ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::fprintf(out, "process\t%ld\t", static_cast<long>(getpid()));
  write_field(out, length > 0 ? exe : "?");
  std::fputc('\n', out);
  for (int i = 0; i < t.library_count; ++i) {
    const Library& l = t.libraries[i];
    std::fprintf(out, "library\t%d\t", i);
    for (const char* field : {l.file, l.kind, l.config, l.core}) {
      write_field(out, field);
      std::fputc('\t', out);
    }
    write_field(out, l.coretype);
    std::fputc('\n', out);
  }
  dl_iterate_phdr(note_loaded, out);
  for (int i = 0; i < t.entry_count; ++i) {
    const Entry& e = t.entries[i];
    const CallKey& k = e.key;
    std::fprintf(out,
                 "call\t%s\t%s\t%s\t%s\t%c\t%c\t%d\t%d\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64
                 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%d\t%d\t%" PRIu64 "\t%" PRIx64 "\t%" PRIx64 "\t%" PRIx64 "\n",
                 op_name(k.op), k.float64 ? "float64" : "float32", k.cblas ? "cblas" : "fortran",
                 k.row_major ? "row" : "col", k.trans_a, k.trans_b, k.alpha_one ? 1 : 0, k.beta, k.m, k.n, k.k,
                 k.inc_x, k.inc_y, k.ld_a, k.ld_b, k.ld_c, k.threads, k.library, e.count, e.alignment[0],
                 e.alignment[1], e.alignment[2]);
    for (int s = 0; s < e.site_count; ++s) {
      std::fputs("site\t", out);
      write_call_site(out, e.sites[s]);
      std::fputc('\n', out);
    }
  }
  for (int i = 0; i < other_symbol_count() && i < kMaxOthers; ++i)
    if (const std::uint64_t count = t.others[i].load(std::memory_order_relaxed))
      std::fprintf(out, "other\t%s\t%" PRIu64 "\n", other_symbol_name(i), count);
  if (t.unrecorded != 0) std::fprintf(out, "unrecorded\t%" PRIu64 "\n", t.unrecorded);
}

void reset_in_child() {
  // The child starts with the parent's counts; its own calls are its own trace.
  char directory[sizeof(Table::directory)];
  std::memcpy(directory, g_table->directory, sizeof directory);
  std::memset(g_storage, 0, sizeof g_storage);
  g_table = new (g_storage) Table();
  std::memcpy(g_table->directory, directory, sizeof directory);
}

__attribute__((constructor)) void start_tracing() {
  g_table = new (g_storage) Table();
  copy(g_table->directory, sizeof g_table->directory, std::getenv("FPREV_BLAS_TRACE_DIR"));
  prepare_call_sites();
  pthread_atfork(nullptr, nullptr, reset_in_child);
}

// Runs after the program's own exit handlers (the interposer was loaded first, so it is finalised
// last). A process that ends on a signal or with _exit() writes nothing.
__attribute__((destructor)) void finish_tracing() {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (t.directory[0] == '\0') return;
  char path[1200], temporary[1300];
  std::snprintf(path, sizeof path, "%s/trace.%ld", t.directory, static_cast<long>(getpid()));
  std::snprintf(temporary, sizeof temporary, "%s.partial", path);
  std::FILE* out = std::fopen(temporary, "w");
  if (out == nullptr) {
    std::fprintf(stderr, "fprev-golden trace: cannot write %s: %s\n", temporary, std::strerror(errno));
    return;
  }
  write_trace(t, out);
  const bool written = std::fflush(out) == 0 && fsync(fileno(out)) == 0;
  if (std::fclose(out) != 0 || !written || std::rename(temporary, path) != 0) {
    std::fprintf(stderr, "fprev-golden trace: cannot write %s: %s\n", path, std::strerror(errno));
    std::remove(temporary);
  }
}

}  // namespace

bool tracing() { return g_table != nullptr; }

bool CallKey::operator==(const CallKey& other) const { return CallKeyEquals(*this, other); }

int library_of(void* real) {
  std::lock_guard<std::mutex> lock(table().mutex);
  return library_index(real);
}

int threads_of(int library) {
  if (library < 0) return 0;
  const Library& l = table().libraries[library];  // written once, before its index is handed out
  if (l.openblas_threads != nullptr) return l.openblas_threads();
  if (l.blis_threads != nullptr) return static_cast<int>(l.blis_threads());
  return 0;
}

void record_call(const CallKey& key, const CallAddresses& addresses, void* caller) {
  Table& t = table();
  bool want_site = false;
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    Entry* entry = find_or_add(key);
    if (entry == nullptr) {
      ++t.unrecorded;
      return;
    }
    ++entry->count;
    const void* operands[3] = {addresses.first, addresses.second, addresses.third};
    for (int i = 0; i < 3; ++i)
      if (operands[i] != nullptr) entry->alignment[i] |= std::uint64_t{1} << (reinterpret_cast<std::uintptr_t>(operands[i]) % 64);
    if (entry->site_count < kMaxSites) {
      want_site = entry->count <= kSampledCalls;
      // A caller not seen yet is a new site whenever it comes (a native program's call sites).
      bool known = false;
      for (int s = 0; s < entry->site_count && !known; ++s)
        for (int f = 0; f < entry->sites[s].frame_count && !known; ++f) known = entry->sites[s].frames[f] == caller;
      want_site = want_site || !known;
    }
  }
  if (!want_site) return;
  CallSite site;
  capture_call_site(site);
  std::lock_guard<std::mutex> lock(t.mutex);
  Entry* entry = find_or_add(key);
  if (entry == nullptr || entry->site_count == kMaxSites) return;
  for (int s = 0; s < entry->site_count; ++s)
    if (entry->sites[s].same_as(site)) return;
  entry->sites[entry->site_count++] = site;
}

void record_other(int symbol_index) {
  if (symbol_index >= 0 && symbol_index < kMaxOthers)
    table().others[symbol_index].fetch_add(1, std::memory_order_relaxed);
}

}  // namespace fprev_trace
