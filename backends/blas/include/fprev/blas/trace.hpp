// `fprev-golden trace`'s BLAS side (docs/trace.md): where the interposer is, how to read what it
// wrote, and the suite made of it.
//
// The interposer (backends/blas/trace/, libfprev-blas-trace.so, preloaded into the traced program)
// forwards every CBLAS and Fortran BLAS call to the real library and writes, when each process of
// the program exits, a trace file $FPREV_BLAS_TRACE_DIR/trace.<pid>: the distinct dot, gemv and
// gemm calls with their counts, data alignment, thread count, the library that served them and the
// first call sites, and the counts of other BLAS routines. Here those files become a suite of the
// `blas` backend with one case per distinct call, pinned the way the program ran.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/suite.hpp"

namespace fprev::blas {

// The interposer: $FPREV_BLAS_TRACE_INTERPOSER, else libfprev-blas-trace.so beside the worker
// (lib/fprev-golden/, fprev/worker.hpp).
std::string trace_interposer_path();

// A library that served traced calls.
struct TracedLibrary {
  std::string file;      // as the dynamic linker loaded it
  std::string kind;      // openblas, blis, other
  std::string config;    // openblas_get_config() or BLIS's version
  std::string core;      // openblas_get_corename(): the kernel family that ran
  std::string coretype;  // OPENBLAS_CORETYPE as the program had it ("" when not set)
};

// One distinct call as the program made it.
struct TracedCall {
  std::string op;           // dot, gemv, gemm
  std::string dtype;        // float32, float64
  bool cblas = false;       // cblas_* (else the Fortran symbol)
  bool row_major = false;   // CBLAS layout
  char trans_a = 'N', trans_b = 'N';
  bool alpha_one = true;
  int beta = 0;             // 0: beta == 0, 1: beta == 1, 2: another value
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t inc_x = 0, inc_y = 0, ld_a = 0, ld_b = 0, ld_c = 0;
  int threads = 0;          // 0: the library has no thread API
  int library = -1;         // index into Trace::libraries
  std::uint64_t count = 0;
  std::uint64_t alignment[3] = {};  // bit b: an operand seen at byte offset b mod 64 (A or x, B or y, C or y)
  std::vector<std::string> sites;   // innermost frame first

  std::string routine() const;      // "cblas_dgemm", "sgemv_"
};

// What the processes of one traced run wrote, merged.
struct Trace {
  std::vector<TracedLibrary> libraries;
  std::vector<TracedCall> calls;
  std::map<std::string, std::uint64_t> other_calls;  // routine -> calls (saxpy, zgemm, ...)
  std::vector<std::string> loaded;  // BLAS libraries loaded (by file name), called or not
  std::uint64_t unrecorded = 0;     // calls beyond the interposer's table of distinct calls
  std::size_t processes = 0;        // trace files read
};

// Reads every trace.<pid> file in `directory`. Throws ConfigError naming the file and line of a
// malformed one.
Trace read_trace_directory(const std::filesystem::path& directory);

struct TracedSuiteOptions {
  std::string suite_name;           // file-name safe
  std::string command;              // the traced command line, for the header comment
  std::string exit_status;          // "exit status 0", "killed by SIGSEGV"
  std::size_t top = 0;              // the most frequent N cases (0: all)
  std::uint64_t min_count = 1;      // cases with fewer calls are left out
};

// A suite's entries of a trace, before they are written.
struct TracedCase {
  std::string instance;   // backend instance name
  Params settings;        // its settings: library, threads, kernel
  Params params;          // op, dtype, trans, beta, m, n, k (as the blas backend takes them)
  std::uint64_t count = 0;
  std::size_t distinct_calls = 0;     // the program's distinct calls this case stands for
  std::vector<std::string> comments;  // how the program called it (one line each)
  std::vector<std::string> sites;
};

struct TracedCases {
  std::vector<TracedCase> cases;      // most calls first
  std::vector<std::string> not_gated; // one line per kind of call left out, with the reason and count
  std::vector<std::string> header;    // the libraries and how they ran
};

TracedCases traced_cases(const Trace& trace, const TracedSuiteOptions& options);

// The suite's YAML text.
std::string traced_suite_text(const TracedCases& traced, const TracedSuiteOptions& options);

// `existing` (its text and the suite loaded from it) with the traced cases it does not have yet:
// new instances after its last backend, new case entries after its last case, the rest of its
// text unchanged. Entries without `backends:` apply to the new instances too, so a case they
// already give there is not added again. `added` says how many cases were new. Throws ConfigError
// where the file's layout leaves no place to add them (flow-style lists).
std::string merge_traced_cases(const std::string& existing_text, const Suite& existing, const TracedCases& traced,
                               const BackendRegistry& registry, std::size_t& added);

}  // namespace fprev::blas
