// A BLAS that misbehaves on purpose, for the supervised-worker tests (tests/e2e/worker_faults_e2e.sh).
// It exports sdot_ and ddot_ (sequential, plain float/double adds) and, for n >= FAULT_BLAS_FROM
// (default 100), does what FAULT_BLAS_MODE says inside the call:
//   segv     dereferences a null pointer            abort    calls abort()
//   hang     blocks forever                          exit0    calls exit(0)
//   exit3    calls exit(3)                           stdout   prints a line to stdout, then computes
//   stderr   prints a line to stderr, then computes  oom      allocates and touches memory without bound
//   fpe      raises SIGFPE                            (unset or "none": always healthy)
//   hold     allocates and touches FAULT_BLAS_HOLD_MB MiB (default 150) once per process, keeps it,
//            (and sleeps 0.3 s, so the supervisor measures it), then computes: a healthy library that
//            needs memory (the limit is a total of all workers)
// FAULT_BLAS_BANNER=1 prints a banner to stdout when the library is loaded. Nothing here is
// optimised away: the faults go through volatile objects.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace {

void misbehave(int n) {
  const char* mode = std::getenv("FAULT_BLAS_MODE");
  const char* from = std::getenv("FAULT_BLAS_FROM");
  if (mode == nullptr || n < (from != nullptr ? std::atoi(from) : 100)) return;
  if (std::strcmp(mode, "segv") == 0) {
    std::fprintf(stderr, "fault_blas: about to dereference null for n=%d\n", n);
    volatile int* volatile p = nullptr;
    *p = 1;
  } else if (std::strcmp(mode, "abort") == 0) {
    std::fprintf(stderr, "fault_blas: aborting for n=%d\n", n);
    std::abort();
  } else if (std::strcmp(mode, "fpe") == 0) {
    std::raise(SIGFPE);
  } else if (std::strcmp(mode, "hang") == 0) {
    for (;;) pause();
  } else if (std::strcmp(mode, "exit0") == 0) {
    std::printf("fault_blas: exit(0) for n=%d\n", n);
    std::exit(0);
  } else if (std::strcmp(mode, "exit3") == 0) {
    std::exit(3);
  } else if (std::strcmp(mode, "stdout") == 0) {
    std::printf("fault_blas says hello on stdout, n=%d {\"not\": \"json\"}\n", n);
    std::fflush(stdout);
  } else if (std::strcmp(mode, "stderr") == 0) {
    std::fprintf(stderr, "fault_blas says hello on stderr, n=%d\n", n);
  } else if (std::strcmp(mode, "hold") == 0) {
    static volatile char* held = nullptr;
    if (held == nullptr) {
      const char* mb = std::getenv("FAULT_BLAS_HOLD_MB");
      const std::size_t size = static_cast<std::size_t>(mb != nullptr ? std::atoi(mb) : 150) << 20;
      held = static_cast<volatile char*>(std::malloc(size));
      for (std::size_t k = 0; held != nullptr && k < size; k += 4096) held[k] = 1;
      usleep(300000);  // long enough for the supervisor's memory poll to see it
    }
  } else if (std::strcmp(mode, "oom") == 0) {
    for (;;) {
      const std::size_t size = 64u << 20;
      volatile char* block = static_cast<volatile char*>(std::malloc(size));
      if (block == nullptr) continue;
      for (std::size_t k = 0; k < size; k += 4096) block[k] = 1;
    }
  }
}

__attribute__((constructor)) void banner() {
  if (const char* b = std::getenv("FAULT_BLAS_BANNER"); b != nullptr && *b == '1') {
    std::printf("*** fault_blas 1.0 loaded: welcome! ***\n");
    std::fflush(stdout);
  }
}

template <typename T>
T dot(const int* n, const T* x, const int* incx, const T* y, const int* incy) {
  misbehave(*n);
  T acc = 0;
  for (int k = 0; k < *n; ++k) acc = acc + x[k * *incx] * y[k * *incy];
  return acc;
}

}  // namespace

extern "C" {
float sdot_(const int* n, const float* x, const int* incx, const float* y, const int* incy) {
  return dot(n, x, incx, y, incy);
}
double ddot_(const int* n, const double* x, const int* incx, const double* y, const int* incy) {
  return dot(n, x, incx, y, incy);
}
}
