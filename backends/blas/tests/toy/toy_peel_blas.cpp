// A toy BLAS whose order depends on where the data lies, for the alignment check's tests (loaded
// by absolute path). It exports sdot_ and sgemv_ only:
//   sdot_   peels until x is 32-byte aligned (p = the products before the first aligned x, as
//           Eigen's reductions do), adds the rest in 8 lanes (lane r: products p+r, p+r+8, ...,
//           sequentially), combines the lanes sequentially, then adds the peeled products one at a
//           time, the first first. Its order depends on x's offset from a 32-byte boundary.
//   sgemv_  trans 'N' only (other calls do nothing): y(i) = old y(i) + products of row i, in two
//           lanes (even and odd columns) when lda is a multiple of 16, sequentially otherwise: its
//           order depends on the leading dimension, not on the offset.
// Plain float operations (compiled without contraction into FMA).
#include <cstddef>
#include <cstdint>

extern "C" {

float sdot_(const int* n, const float* x, const int* incx, const float* y, const int* incy) {
  const int count = *n;
  const auto address = reinterpret_cast<std::uintptr_t>(x);
  int peel = static_cast<int>(((32 - address % 32) % 32) / sizeof(float));
  if (peel > count) peel = count;
  const auto product = [&](int l) { return x[l * *incx] * y[l * *incy]; };
  float acc = 0.0f;
  if (peel < count) {
    float lane[8] = {};
    bool used[8] = {};
    for (int l = peel; l < count; ++l) {
      const int r = (l - peel) % 8;
      lane[r] = used[r] ? lane[r] + product(l) : product(l);
      used[r] = true;
    }
    acc = lane[0];
    for (int r = 1; r < 8; ++r)
      if (used[r]) acc = acc + lane[r];
    for (int l = 0; l < peel; ++l) acc = acc + product(l);
    return acc;
  }
  for (int l = 0; l < count; ++l) acc = l == 0 ? product(l) : acc + product(l);
  return acc;
}

void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* a, const int* lda,
            const float* x, const int* incx, const float* beta, float* y, const int* incy,
            std::size_t /*trans_length*/) {
  if (*trans != 'N' && *trans != 'n') return;
  for (int i = 0; i < *m; ++i) {
    const auto product = [&](int j) { return a[i + j * *lda] * x[j * *incx]; };
    float sum = 0.0f;
    if (*lda % 16 == 0) {
      float lane[2] = {0.0f, 0.0f};
      for (int j = 0; j < *n; ++j) lane[j % 2] = lane[j % 2] + product(j);
      sum = lane[0] + lane[1];
    } else {
      for (int j = 0; j < *n; ++j) sum = sum + product(j);
    }
    float& out = y[i * *incy];
    out = *beta == 0.0f ? *alpha * sum : *alpha * sum + *beta * out;
  }
}

}  // extern "C"
