// A toy BLAS for the blas backend's tests, loaded by absolute path. It exports only sdot_, sgemv_
// and sgemm_ (the float64 routines are missing on purpose) and sums in orders the tests know, with
// an "edge kernel" like a real BLAS's register tiles of 8 rows and 4 columns:
//   sdot_   reversed: ((x[n-1]y[n-1] + x[n-2]y[n-2]) + ...) + x[0]y[0]
//   sgemv_  output rows below the last (outputs mod 8): sequential over the reduction;
//           the last (outputs mod 8) rows: reversed
//   sgemm_  element (i, j) with i < m - m mod 8 and j < n - n mod 4 (whole tiles): sequential;
//           the last m mod 8 rows, in whole column tiles: reversed;
//           the last n mod 4 columns, in whole row tiles: two lanes (even and odd k, each
//           sequential), lane 0 + lane 1;
//           the corner (both): pairwise (halves of len / 2, recursively)
// alpha * sum + beta * old value: the old y / C is added last. Products and sums are plain float
// operations (compiled without contraction into FMA).
#include <cstddef>

namespace {

enum class Order { sequential, reversed, two_lanes, pairwise };

// The sum of products p(l), l in [begin, end), in `order`.
template <class Product>
float accumulate(int begin, int end, Order order, Product p) {
  switch (order) {
    case Order::sequential: {
      float acc = 0.0f;
      for (int l = begin; l < end; ++l) acc = acc + p(l);
      return acc;
    }
    case Order::reversed: {
      float acc = 0.0f;
      for (int l = end - 1; l >= begin; --l) acc = acc + p(l);
      return acc;
    }
    case Order::two_lanes: {
      float lane[2] = {0.0f, 0.0f};
      for (int l = begin; l < end; ++l) lane[(l - begin) % 2] = lane[(l - begin) % 2] + p(l);
      return lane[0] + lane[1];
    }
    case Order::pairwise: {
      if (end - begin == 1) return p(begin);
      const int middle = begin + (end - begin) / 2;
      return accumulate(begin, middle, Order::pairwise, p) + accumulate(middle, end, Order::pairwise, p);
    }
  }
  return 0.0f;
}

bool is_t(const char* trans) { return *trans == 'T' || *trans == 't'; }

}  // namespace

extern "C" {

float sdot_(const int* n, const float* x, const int* incx, const float* y, const int* incy) {
  return accumulate(0, *n, Order::reversed, [&](int l) { return x[l * *incx] * y[l * *incy]; });
}

void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* a,
            const int* lda, const float* x, const int* incx, const float* beta, float* y,
            const int* incy, std::size_t /*trans_length*/) {
  const bool t = is_t(trans);
  const int outputs = t ? *n : *m, reduction = t ? *m : *n;
  const int whole_rows = outputs - outputs % 8;
  for (int r = 0; r < outputs; ++r) {
    const float sum =
        accumulate(0, reduction, r < whole_rows ? Order::sequential : Order::reversed, [&](int l) {
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
  const int whole_rows = *m - *m % 8, whole_columns = *n - *n % 4;
  for (int j = 0; j < *n; ++j) {
    for (int i = 0; i < *m; ++i) {
      const bool edge_row = i >= whole_rows, edge_column = j >= whole_columns;
      const Order order = edge_row ? (edge_column ? Order::pairwise : Order::reversed)
                                   : (edge_column ? Order::two_lanes : Order::sequential);
      const float sum = accumulate(0, *k, order, [&](int l) {
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
