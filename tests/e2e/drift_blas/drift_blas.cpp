// A BLAS whose next release changes the order of a few output elements only, for
// tests/e2e/drift_e2e.sh: what a new edge-tile or tail kernel does to a GEMM. It exports sgemm_
// and sgemv_ (column-major, 'N' and 'T'; incx, incy > 0), every output the sequential sum of its k
// products in plain float arithmetic, except that with DRIFT_BLAS_SWAP=i,j set, the outputs in
// DRIFT_BLAS_ROWS=first-last x DRIFT_BLAS_COLUMNS=first-last (default: all; a GEMV's y is one
// column) add product i where the others add product j and the other way round (negative indices
// count from k: -1 is the last). With DRIFT_BLAS_FMA=1 the outputs in that region keep the order
// and contract every product into the sum instead (fmaf): another arithmetic, the same tree. With
// DRIFT_BLAS_WHEN=misaligned, either happens only in calls whose A does not start on a 64-byte
// boundary: an order (or an arithmetic) that depends on where the data lies.
// Compiled with -ffp-contract=off: the adds and multiplies are the ones written.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

namespace {

struct Range {
  long first = 0, last = -1;  // last < first: every index
  bool holds(long v) const { return last < first || (v >= first && v <= last); }
};

Range range_of(const char* name) {
  Range r;
  if (const char* text = std::getenv(name)) std::sscanf(text, "%ld-%ld", &r.first, &r.last);
  return r;
}

bool transposed(const char* trans) { return *trans == 'T' || *trans == 't' || *trans == 'C' || *trans == 'c'; }

// Whether this call drifts at all: always, or with DRIFT_BLAS_WHEN=misaligned only where A does
// not start on a 64-byte boundary.
bool drifts_here(const float* a) {
  const char* when = std::getenv("DRIFT_BLAS_WHEN");
  return when == nullptr || std::strcmp(when, "misaligned") != 0 || reinterpret_cast<std::uintptr_t>(a) % 64 != 0;
}

// The order output (row, column) of a call whose A starts at `a` adds its k products in.
void order_of(const float* a, long row, long column, long k, std::vector<long>& order) {
  order.resize(static_cast<std::size_t>(k));
  for (long l = 0; l < k; ++l) order[static_cast<std::size_t>(l)] = l;
  if (!drifts_here(a)) return;
  long i = -1, j = -1;
  const char* text = std::getenv("DRIFT_BLAS_SWAP");
  if (text == nullptr || std::sscanf(text, "%ld,%ld", &i, &j) != 2) return;
  if (i < 0) i += k;
  if (j < 0) j += k;
  if (i < 0 || j < 0 || i >= k || j >= k) return;
  if (!range_of("DRIFT_BLAS_ROWS").holds(row) || !range_of("DRIFT_BLAS_COLUMNS").holds(column)) return;
  std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
}

// Whether output (row, column) contracts its products into the sum (DRIFT_BLAS_FMA=1 in the region).
bool contracted(const float* a, long row, long column) {
  const char* fma = std::getenv("DRIFT_BLAS_FMA");
  return fma != nullptr && std::strcmp(fma, "1") == 0 && drifts_here(a) && range_of("DRIFT_BLAS_ROWS").holds(row) &&
         range_of("DRIFT_BLAS_COLUMNS").holds(column);
}

}  // namespace

extern "C" void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* a,
                       const int* lda, const float* x, const int* incx, const float* beta, float* y,
                       const int* incy, std::size_t) {
  const bool t = transposed(trans);
  const long rows = t ? *n : *m, k = t ? *m : *n;
  std::vector<long> order;
  for (long row = 0; row < rows; ++row) {
    order_of(a, row, 0, k, order);
    const bool fused = contracted(a, row, 0);
    float sum = 0.0f;
    for (long step = 0; step < k; ++step) {
      const long l = order[static_cast<std::size_t>(step)];
      const float u = t ? a[l + row * *lda] : a[row + l * *lda], v = x[l * *incx];
      sum = step == 0 ? u * v : fused ? std::fmaf(u, v, sum) : sum + u * v;
    }
    float& out = y[row * *incy];
    out = *beta == 0.0f ? *alpha * sum : *alpha * sum + *beta * out;
  }
}

extern "C" void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                       const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                       const float* beta, float* c, const int* ldc, std::size_t, std::size_t) {
  const bool ta = transposed(transa), tb = transposed(transb);
  std::vector<long> order;
  for (long col = 0; col < *n; ++col)
    for (long row = 0; row < *m; ++row) {
      order_of(a, row, col, *k, order);
      const bool fused = contracted(a, row, col);
      float sum = 0.0f;
      for (long step = 0; step < *k; ++step) {
        const long l = order[static_cast<std::size_t>(step)];
        const float x = ta ? a[l + row * *lda] : a[row + l * *lda];
        const float y = tb ? b[col + l * *ldb] : b[l + col * *ldb];
        sum = step == 0 ? x * y : fused ? std::fmaf(x, y, sum) : sum + x * y;
      }
      float& out = c[row + col * *ldc];
      out = *beta == 0.0f ? *alpha * sum : *alpha * sum + *beta * out;
    }
}
