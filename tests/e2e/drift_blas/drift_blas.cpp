// A BLAS whose next release changes the order of a few output elements only, for
// tests/e2e/drift_e2e.sh: what a new edge-tile or tail kernel does to a GEMM. It exports sgemm_
// (column-major, 'N' and 'T'), every element of C the sequential sum of its k products in plain
// float arithmetic, except that with DRIFT_BLAS_SWAP=i,j set, the elements in
// DRIFT_BLAS_ROWS=first-last x DRIFT_BLAS_COLUMNS=first-last (default: all) add product i where the
// others add product j and the other way round (negative indices count from k: -1 is the last).
// Compiled with -ffp-contract=off: the adds and multiplies are the ones written.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
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

}  // namespace

extern "C" void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                       const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                       const float* beta, float* c, const int* ldc, std::size_t, std::size_t) {
  const bool ta = *transa == 'T' || *transa == 't' || *transa == 'C' || *transa == 'c';
  const bool tb = *transb == 'T' || *transb == 't' || *transb == 'C' || *transb == 'c';
  long swap_i = -1, swap_j = -1;
  if (const char* text = std::getenv("DRIFT_BLAS_SWAP")) {
    std::sscanf(text, "%ld,%ld", &swap_i, &swap_j);
    if (swap_i < 0) swap_i += *k;
    if (swap_j < 0) swap_j += *k;
  }
  const Range rows = range_of("DRIFT_BLAS_ROWS"), columns = range_of("DRIFT_BLAS_COLUMNS");
  std::vector<long> order(static_cast<std::size_t>(*k));
  for (long col = 0; col < *n; ++col)
    for (long row = 0; row < *m; ++row) {
      for (long l = 0; l < *k; ++l) order[static_cast<std::size_t>(l)] = l;
      const bool drifted = swap_i >= 0 && swap_j >= 0 && swap_i < *k && swap_j < *k && rows.holds(row) &&
                           columns.holds(col);
      if (drifted) std::swap(order[static_cast<std::size_t>(swap_i)], order[static_cast<std::size_t>(swap_j)]);
      float sum = 0.0f;
      for (long step = 0; step < *k; ++step) {
        const long l = order[static_cast<std::size_t>(step)];
        const float x = ta ? a[l + row * *lda] : a[row + l * *lda];
        const float y = tb ? b[col + l * *ldb] : b[l + col * *ldb];
        sum = step == 0 ? x * y : sum + x * y;
      }
      float& out = c[row + col * *ldc];
      out = *beta == 0.0f ? *alpha * sum : *alpha * sum + *beta * out;
    }
}
