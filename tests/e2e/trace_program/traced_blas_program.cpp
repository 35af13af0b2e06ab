/* A program linked to the BLAS, traced end to end by tests/e2e/trace_e2e.sh (docs/trace.md):
 * CBLAS and Fortran calls of the gated kinds from two call sites, a routine that is counted but
 * not gated (saxpy), and its results printed bit for bit, so that a run under the interposer can
 * be compared with a plain run. `traced_blas_program repeat N` makes N small ddot calls instead
 * (the overhead measurement of bench/trace_overhead.sh). */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

/* The prototypes of cblas.h and the Fortran BLAS, so that no -dev package's header is needed. */
extern "C" {
enum { RowMajor = 101, ColMajor = 102, NoTrans = 111, Trans = 112 };
float cblas_sdot(int n, const float* x, int incx, const float* y, int incy);
double cblas_ddot(int n, const double* x, int incx, const double* y, int incy);
void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double* a, int lda,
                 const double* b, int ldb, double beta, double* c, int ldc);
void cblas_saxpy(int n, float alpha, const float* x, int incx, float* y, int incy);
void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* a, const int* lda,
            const float* x, const int* incx, const float* beta, float* y, const int* incy);
void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc);
}

static std::uint64_t state = 0x9e3779b97f4a7c15u;
static double next_value(void) { /* xorshift: the same inputs on every run */
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5;
}

/* The result's bytes as an FNV-1a digest: equal digests, equal bits. */
static void print_bits(const char* what, const void* data, std::size_t bytes) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  std::uint64_t digest = 14695981039346656037u;
  for (std::size_t i = 0; i < bytes; ++i) digest = (digest ^ p[i]) * 1099511628211u;
  printf("%s %016llx\n", what, static_cast<unsigned long long>(digest));
}

/* Two call sites of one distinct call: the trace keeps both. */
extern "C" __attribute__((noinline)) float dot_from_here(const float* x, const float* y) { return cblas_sdot(1000, x, 1, y, 1); }
extern "C" __attribute__((noinline)) float dot_from_there(const float* x, const float* y) { return cblas_sdot(1000, x, 1, y, 1); }

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "repeat") == 0) {
    const long calls = atol(argv[2]);
    double x[16], y[16], sum = 0.0;
    for (int i = 0; i < 16; ++i) x[i] = next_value(), y[i] = next_value();
    for (long i = 0; i < calls; ++i) sum += cblas_ddot(16, x, 1, y, 1);
    print_bits("sum", &sum, sizeof sum);
    return 0;
  }
  static float xs[1000], ys[1000], a[24 * 40], v[40], w[24];
  static double ad[64 * 16], bd[16 * 32], cd[64 * 32], e[8 * 33], f[33 * 8], g[8 * 8];
  for (int i = 0; i < 1000; ++i) xs[i] = static_cast<float>(next_value()), ys[i] = static_cast<float>(next_value());
  for (int i = 0; i < 24 * 40; ++i) a[i] = static_cast<float>(next_value());
  for (int i = 0; i < 40; ++i) v[i] = static_cast<float>(next_value());
  for (int i = 0; i < 24; ++i) w[i] = static_cast<float>(next_value());
  for (int i = 0; i < 64 * 16; ++i) ad[i] = next_value();
  for (int i = 0; i < 16 * 32; ++i) bd[i] = next_value();
  for (int i = 0; i < 8 * 33; ++i) e[i] = next_value(), f[i] = next_value();
  for (int i = 0; i < 8 * 8; ++i) g[i] = next_value();

  const float d1 = dot_from_here(xs, ys), d2 = dot_from_there(xs, ys);
  print_bits("sdot", &d1, sizeof d1);
  print_bits("sdot", &d2, sizeof d2);
  /* C (64 x 32) = A (64 x 16) B (16 x 32), row-major: NumPy's matmul makes this call. */
  cblas_dgemm(RowMajor, NoTrans, NoTrans, 64, 32, 16, 1.0, ad, 16, bd, 32, 0.0, cd, 32);
  print_bits("dgemm", cd, sizeof cd);
  /* Fortran: y = A^T v with A 40 x 24 (lda 40), beta 1. */
  const int m = 40, n = 24, one = 1;
  const float alpha = 1.0f, beta = 1.0f;
  sgemv_("T", &m, &n, &alpha, a, &m, v, &one, &beta, w, &one);
  print_bits("sgemv", w, sizeof w);
  /* Fortran: G (8 x 8) = E (8 x 33) F (33 x 8) + G. */
  const int p = 8, k = 33;
  const double alpha_d = 1.0, beta_d = 1.0;
  dgemm_("N", "N", &p, &p, &k, &alpha_d, e, &p, f, &k, &beta_d, g, &p);
  print_bits("dgemm_", g, sizeof g);
  cblas_saxpy(1000, 0.5f, xs, 1, ys, 1); /* counted, not gated */
  print_bits("saxpy", ys, 16);
  return argc > 1 ? atoi(argv[1]) : 0; /* an exit status to report, on request */
}
