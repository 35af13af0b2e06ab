// The symbols the interposer defines: the CBLAS and Fortran BLAS routines the gate reveals (dot,
// gemv, gemm in float32 and float64), recorded, and a list of other routines, counted. Each
// forwards its arguments unchanged (Fortran's hidden string lengths too) to the real routine and
// returns its result unchanged. Only the outermost call of a thread is recorded: a library whose
// routines call each other through their public symbols (the netlib CBLAS calls the Fortran BLAS)
// is not counted twice.
#include <cstddef>

#include "other_symbols.hpp"
#include "real_symbol.hpp"
#include "trace_record.hpp"

namespace fprev_trace {
namespace {

// Initial-exec TLS: the interposer is preloaded, so it has static TLS, and a call costs no lookup.
__thread int t_depth __attribute__((tls_model("initial-exec"))) = 0;

struct DepthGuard {
  bool outermost;
  DepthGuard() : outermost(t_depth++ == 0) {}
  ~DepthGuard() { --t_depth; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
};

// CBLAS enums as passed (cblas.h): layout 101 row-major, 102 column-major; transpose 111 N,
// 112 T, 113 C (conjugate transpose), 114 conjugate without transpose.
char cblas_trans(int value) {
  switch (value) {
    case 111: return 'N';
    case 112: return 'T';
    case 113: return 'C';
    case 114: return 'R';
    default: return '?';
  }
}

char fortran_trans(const char* value) {
  if (value == nullptr) return '?';
  const char c = *value;
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

std::uint8_t beta_class(double beta) { return beta == 0.0 ? 0 : (beta == 1.0 ? 1 : 2); }

CallKey key_for(void* real, Op op, bool float64, bool cblas) {
  CallKey key;
  key.op = op;
  key.float64 = float64;
  key.cblas = cblas;
  key.library = library_of(real);
  key.threads = threads_of(key.library);
  return key;
}

void record_dot(void* real, bool float64, bool cblas, long n, const void* x, long inc_x, const void* y,
                long inc_y, void* caller) {
  CallKey key = key_for(real, Op::dot, float64, cblas);
  key.n = n;
  key.inc_x = inc_x;
  key.inc_y = inc_y;
  record_call(key, {x, y, nullptr}, caller);
}

void record_gemv(void* real, bool float64, bool cblas, bool row_major, char trans, long m, long n, double alpha,
                 const void* a, long lda, const void* x, long inc_x, double beta, const void* y, long inc_y,
                 void* caller) {
  CallKey key = key_for(real, Op::gemv, float64, cblas);
  key.row_major = row_major;
  key.trans_a = trans;
  key.m = m;
  key.n = n;
  key.alpha_one = alpha == 1.0;
  key.beta = beta_class(beta);
  key.ld_a = lda;
  key.inc_x = inc_x;
  key.inc_y = inc_y;
  record_call(key, {a, x, y}, caller);
}

void record_gemm(void* real, bool float64, bool cblas, bool row_major, char trans_a, char trans_b, long m, long n,
                 long k, double alpha, const void* a, long lda, const void* b, long ldb, double beta, const void* c,
                 long ldc, void* caller) {
  CallKey key = key_for(real, Op::gemm, float64, cblas);
  key.row_major = row_major;
  key.trans_a = trans_a;
  key.trans_b = trans_b;
  key.m = m;
  key.n = n;
  key.k = k;
  key.alpha_one = alpha == 1.0;
  key.beta = beta_class(beta);
  key.ld_a = lda;
  key.ld_b = ldb;
  key.ld_c = ldc;
  record_call(key, {a, b, c}, caller);
}

// The real routine of a wrapper, found from the call's return address (real_symbol.hpp).
#define FPREV_REAL(name, type)                                                                  \
  static RealSymbol real_symbol(#name);                                                         \
  void* const caller = __builtin_return_address(0);                                             \
  const auto real = reinterpret_cast<type>(real_symbol.resolve(caller, reinterpret_cast<void*>(&name)))

}  // namespace
}  // namespace fprev_trace

using fprev_trace::DepthGuard;
using fprev_trace::RealSymbol;

extern "C" {

// ---- dot ----------------------------------------------------------------------------------------

float cblas_sdot(int n, const float* x, int incx, const float* y, int incy) {
  FPREV_REAL(cblas_sdot, float (*)(int, const float*, int, const float*, int));
  DepthGuard guard;
  if (guard.outermost && fprev_trace::tracing()) fprev_trace::record_dot(reinterpret_cast<void*>(real), false, true, n, x, incx, y, incy, caller);
  return real(n, x, incx, y, incy);
}

double cblas_ddot(int n, const double* x, int incx, const double* y, int incy) {
  FPREV_REAL(cblas_ddot, double (*)(int, const double*, int, const double*, int));
  DepthGuard guard;
  if (guard.outermost && fprev_trace::tracing()) fprev_trace::record_dot(reinterpret_cast<void*>(real), true, true, n, x, incx, y, incy, caller);
  return real(n, x, incx, y, incy);
}

float sdot_(const int* n, const float* x, const int* incx, const float* y, const int* incy) {
  FPREV_REAL(sdot_, float (*)(const int*, const float*, const int*, const float*, const int*));
  DepthGuard guard;
  if (guard.outermost && fprev_trace::tracing()) fprev_trace::record_dot(reinterpret_cast<void*>(real), false, false, *n, x, *incx, y, *incy, caller);
  return real(n, x, incx, y, incy);
}

double ddot_(const int* n, const double* x, const int* incx, const double* y, const int* incy) {
  FPREV_REAL(ddot_, double (*)(const int*, const double*, const int*, const double*, const int*));
  DepthGuard guard;
  if (guard.outermost && fprev_trace::tracing()) fprev_trace::record_dot(reinterpret_cast<void*>(real), true, false, *n, x, *incx, y, *incy, caller);
  return real(n, x, incx, y, incy);
}

// ---- gemv ---------------------------------------------------------------------------------------

void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float* a, int lda, const float* x, int incx,
                 float beta, float* y, int incy) {
  FPREV_REAL(cblas_sgemv, void (*)(int, int, int, int, float, const float*, int, const float*, int, float, float*, int));
  DepthGuard guard;
  if (guard.outermost && fprev_trace::tracing())
    fprev_trace::record_gemv(reinterpret_cast<void*>(real), false, true, order == 101, fprev_trace::cblas_trans(trans),
                             m, n, alpha, a, lda, x, incx, beta, y, incy, caller);
  real(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

void cblas_dgemv(int order, int trans, int m, int n, double alpha, const double* a, int lda, const double* x,
                 int incx, double beta, double* y, int incy) {
  FPREV_REAL(cblas_dgemv,
             void (*)(int, int, int, int, double, const double*, int, const double*, int, double, double*, int));
  DepthGuard guard;
  if (guard.outermost && fprev_trace::tracing())
    fprev_trace::record_gemv(reinterpret_cast<void*>(real), true, true, order == 101, fprev_trace::cblas_trans(trans),
                             m, n, alpha, a, lda, x, incx, beta, y, incy, caller);
  real(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* a, const int* lda,
            const float* x, const int* incx, const float* beta, float* y, const int* incy, std::size_t trans_len) {
  FPREV_REAL(sgemv_, void (*)(const char*, const int*, const int*, const float*, const float*, const int*,
                              const float*, const int*, const float*, float*, const int*, std::size_t));
  DepthGuard guard;
  if (guard.outermost && fprev_trace::tracing())
    fprev_trace::record_gemv(reinterpret_cast<void*>(real), false, false, false, fprev_trace::fortran_trans(trans), *m,
                             *n, *alpha, a, *lda, x, *incx, *beta, y, *incy, caller);
  real(trans, m, n, alpha, a, lda, x, incx, beta, y, incy, trans_len);
}

void dgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a, const int* lda,
            const double* x, const int* incx, const double* beta, double* y, const int* incy, std::size_t trans_len) {
  FPREV_REAL(dgemv_, void (*)(const char*, const int*, const int*, const double*, const double*, const int*,
                              const double*, const int*, const double*, double*, const int*, std::size_t));
  DepthGuard guard;
  if (guard.outermost && fprev_trace::tracing())
    fprev_trace::record_gemv(reinterpret_cast<void*>(real), true, false, false, fprev_trace::fortran_trans(trans), *m,
                             *n, *alpha, a, *lda, x, *incx, *beta, y, *incy, caller);
  real(trans, m, n, alpha, a, lda, x, incx, beta, y, incy, trans_len);
}

// ---- gemm ---------------------------------------------------------------------------------------

void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc) {
  FPREV_REAL(cblas_sgemm, void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                                   float*, int));
  DepthGuard guard;
  if (guard.outermost && fprev_trace::tracing())
    fprev_trace::record_gemm(reinterpret_cast<void*>(real), false, true, order == 101,
                             fprev_trace::cblas_trans(trans_a), fprev_trace::cblas_trans(trans_b), m, n, k, alpha, a,
                             lda, b, ldb, beta, c, ldc, caller);
  real(order, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int trans_a, int trans_b, int m, int n, int k, double alpha, const double* a, int lda,
                 const double* b, int ldb, double beta, double* c, int ldc) {
  FPREV_REAL(cblas_dgemm, void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int,
                                   double, double*, int));
  DepthGuard guard;
  if (guard.outermost && fprev_trace::tracing())
    fprev_trace::record_gemm(reinterpret_cast<void*>(real), true, true, order == 101,
                             fprev_trace::cblas_trans(trans_a), fprev_trace::cblas_trans(trans_b), m, n, k, alpha, a,
                             lda, b, ldb, beta, c, ldc, caller);
  real(order, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void sgemm_(const char* trans_a, const char* trans_b, const int* m, const int* n, const int* k, const float* alpha,
            const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c,
            const int* ldc, std::size_t trans_a_len, std::size_t trans_b_len) {
  FPREV_REAL(sgemm_, void (*)(const char*, const char*, const int*, const int*, const int*, const float*,
                              const float*, const int*, const float*, const int*, const float*, float*, const int*,
                              std::size_t, std::size_t));
  DepthGuard guard;
  if (guard.outermost && fprev_trace::tracing())
    fprev_trace::record_gemm(reinterpret_cast<void*>(real), false, false, false, fprev_trace::fortran_trans(trans_a),
                             fprev_trace::fortran_trans(trans_b), *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c,
                             *ldc, caller);
  real(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, trans_a_len, trans_b_len);
}

void dgemm_(const char* trans_a, const char* trans_b, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc, std::size_t trans_a_len, std::size_t trans_b_len) {
  FPREV_REAL(dgemm_, void (*)(const char*, const char*, const int*, const int*, const int*, const double*,
                              const double*, const int*, const double*, const int*, const double*, double*,
                              const int*, std::size_t, std::size_t));
  DepthGuard guard;
  if (guard.outermost && fprev_trace::tracing())
    fprev_trace::record_gemm(reinterpret_cast<void*>(real), true, false, false, fprev_trace::fortran_trans(trans_a),
                             fprev_trace::fortran_trans(trans_b), *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c,
                             *ldc, caller);
  real(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, trans_a_len, trans_b_len);
}

// ---- counted, not gated ---------------------------------------------------------------------------

#define FPREV_COUNTED(index, ret, name, params, args)                          \
  ret name params {                                                            \
    FPREV_REAL(name, ret(*) params);                                           \
    DepthGuard guard;                                                          \
    if (guard.outermost && fprev_trace::tracing()) fprev_trace::record_other(index);                     \
    return real args;                                                          \
  }
#include "other_symbols.def"
#undef FPREV_COUNTED

}  // extern "C"
