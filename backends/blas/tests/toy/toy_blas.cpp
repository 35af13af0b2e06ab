// A toy BLAS for the blas backend's tests, loaded by absolute path. It exports only sdot_, sgemv_
// and sgemm_ (the float64 routines are missing on purpose) and sums in orders the tests know:
//   sdot_   reversed: ((x[n-1]y[n-1] + x[n-2]y[n-2]) + ...) + x[0]y[0]
//   sgemv_  sequential over the reduction, except the LAST output row, which is reversed
//   sgemm_  sequential over k, except the LAST column of C, which is reversed
// so that a batched call whose rows or columns follow different orders can be provoked.
// Products and sums are plain float operations (compiled without contraction into FMA).
#include <cstddef>

namespace {

// The sum of products p(l), l = 0..len-1, forwards or backwards, started from zero.
template <class Product>
float accumulate(int len, bool reversed, Product p) {
  float acc = 0.0f;
  for (int i = 0; i < len; ++i) {
    const int l = reversed ? len - 1 - i : i;
    acc = acc + p(l);
  }
  return acc;
}

bool is_t(const char* trans) { return *trans == 'T' || *trans == 't'; }

}  // namespace

extern "C" {

float sdot_(const int* n, const float* x, const int* incx, const float* y, const int* incy) {
  return accumulate(*n, true, [&](int l) { return x[l * *incx] * y[l * *incy]; });
}

void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* a,
            const int* lda, const float* x, const int* incx, const float* beta, float* y,
            const int* incy, std::size_t /*trans_length*/) {
  const bool t = is_t(trans);
  const int outputs = t ? *n : *m, reduction = t ? *m : *n;
  for (int r = 0; r < outputs; ++r) {
    const float sum = accumulate(reduction, r == outputs - 1, [&](int l) {
      const float element = t ? a[l + r * *lda] : a[r + l * *lda];
      return element * x[l * *incx];
    });
    float& out = y[r * *incy];
    out = *alpha * sum + (*beta == 0.0f ? 0.0f : *beta * out);
  }
}

void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc, std::size_t /*transa_length*/,
            std::size_t /*transb_length*/) {
  const bool ta = is_t(transa), tb = is_t(transb);
  for (int j = 0; j < *n; ++j) {
    for (int i = 0; i < *m; ++i) {
      const float sum = accumulate(*k, j == *n - 1, [&](int l) {
        const float left = ta ? a[l + i * *lda] : a[i + l * *lda];
        const float right = tb ? b[j + l * *ldb] : b[l + j * *ldb];
        return left * right;
      });
      float& out = c[i + j * *ldc];
      out = *alpha * sum + (*beta == 0.0f ? 0.0f : *beta * out);
    }
  }
}

}  // extern "C"
