// A second toy BLAS for the blas backend's tests: its reductions follow a seeded random tree with
// fused 3- and 4-term nodes, as a library using multi-term dot-product instructions would. It
// exports sdot_, ddot_, sgemm_ and dgemm_ (every element of C follows the tree over k), and
//   int toy_fused_tree(int n, char* out, int capacity)
// which writes the tree it uses for n summands as an S-expression (leaves are indices; returns the
// length, or -1 when it does not fit), so that a test knows the tree without asking the engine.
//
// The tree for n summands: start from the leaves 0..n-1 in order; while more than one part is
// left, merge w adjacent parts (w = 2, 3 or 4, at a random position) into one node; the random
// numbers come from splitmix64 seeded with n. A node of 2 children is an IEEE addition; a node of 3
// or 4 children is a fused sum: every term truncated to the unit in the last place of the largest
// term (toward zero), the exact sum of those rounded once to the format (round to nearest even),
// the fused arithmetic of matrix accelerators without extra alignment bits. Products are plain
// products (compiled without contraction into FMA).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Node {
  std::vector<int> children;  // ids: leaves are 0..n-1, node k is n + k
};

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Inner nodes in creation order (children before parents); the last one is the root.
const std::vector<Node>& tree_for(int n) {
  static thread_local int cached_n = -1;
  static thread_local std::vector<Node> nodes;
  if (cached_n == n) return nodes;
  cached_n = n;
  nodes.clear();
  std::vector<int> parts;
  for (int i = 0; i < n; ++i) parts.push_back(i);
  std::uint64_t state = 0x5eed0000ull + static_cast<std::uint64_t>(n);
  while (parts.size() > 1) {
    const std::size_t w = std::min<std::size_t>(2 + splitmix(state) % 3, parts.size());
    const std::size_t pos = splitmix(state) % (parts.size() - w + 1);
    Node node;
    node.children.assign(parts.begin() + static_cast<std::ptrdiff_t>(pos),
                         parts.begin() + static_cast<std::ptrdiff_t>(pos + w));
    nodes.push_back(node);
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(pos),
                parts.begin() + static_cast<std::ptrdiff_t>(pos + w));
    parts.insert(parts.begin() + static_cast<std::ptrdiff_t>(pos), n + static_cast<int>(nodes.size()) - 1);
  }
  return nodes;
}

template <class T>
struct Exact;  // a type in which a fused node's truncated terms add exactly
template <>
struct Exact<float> {
  using type = double;
  static constexpr int precision = 24;
};
template <>
struct Exact<double> {
  using type = long double;  // x87 extended: 64 bits, and a fused node's sum needs 53 + 2
  static constexpr int precision = 53;
};

template <class T>
T fused(const std::vector<T>& terms) {
  int top = INT32_MIN;
  for (T t : terms) {
    if (!std::isfinite(t)) {
      T naive = 0;
      for (T u : terms) naive += u;
      return naive;
    }
    if (t != 0) top = std::max(top, std::ilogb(t));
  }
  if (top == INT32_MIN) return 0;
  const int quantum = top - (Exact<T>::precision - 1);
  typename Exact<T>::type sum = 0;
  for (T t : terms) sum += std::ldexp(std::trunc(std::ldexp(t, -quantum)), quantum);
  return static_cast<T>(sum);
}

// The tree's sum of the products p(l), l < n.
template <class T, class Product>
T tree_sum(int n, Product p) {
  if (n == 1) return p(0);
  const std::vector<Node>& nodes = tree_for(n);
  std::vector<T> value(static_cast<std::size_t>(n) + nodes.size());
  for (int l = 0; l < n; ++l) value[static_cast<std::size_t>(l)] = p(l);
  std::vector<T> terms;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const auto& children = nodes[k].children;
    T& out = value[static_cast<std::size_t>(n) + k];
    if (children.size() == 2) {
      out = value[static_cast<std::size_t>(children[0])] + value[static_cast<std::size_t>(children[1])];
      continue;
    }
    terms.clear();
    for (int c : children) terms.push_back(value[static_cast<std::size_t>(c)]);
    out = fused(terms);
  }
  return value.back();
}

std::string sexpr(int n, int id) {
  if (id < n) return std::to_string(id);
  std::string text = "(";
  for (int c : tree_for(n)[static_cast<std::size_t>(id - n)].children) {
    if (text.size() > 1) text += " ";
    text += sexpr(n, c);
  }
  return text + ")";
}

bool is_t(const char* trans) { return *trans == 'T' || *trans == 't'; }

template <class T>
T dot(const int* n, const T* x, const int* incx, const T* y, const int* incy) {
  return tree_sum<T>(*n, [&](int l) { return x[l * *incx] * y[l * *incy]; });
}

template <class T>
void gemm(const char* transa, const char* transb, const int* m, const int* n, const int* k,
          const T* alpha, const T* a, const int* lda, const T* b, const int* ldb, const T* beta,
          T* c, const int* ldc) {
  const bool ta = is_t(transa), tb = is_t(transb);
  for (int j = 0; j < *n; ++j)
    for (int i = 0; i < *m; ++i) {
      const T sum = tree_sum<T>(*k, [&](int l) {
        const T left = ta ? a[l + i * *lda] : a[i + l * *lda];
        const T right = tb ? b[j + l * *ldb] : b[l + j * *ldb];
        return left * right;
      });
      T& out = c[i + j * *ldc];
      out = *alpha * sum + (*beta == 0 ? T{0} : *beta * out);
    }
}

}  // namespace

extern "C" {

int toy_fused_tree(int n, char* out, int capacity) {
  if (n < 1) return -1;
  const std::string text = n == 1 ? "0" : sexpr(n, n + static_cast<int>(tree_for(n).size()) - 1);
  if (static_cast<int>(text.size()) + 1 > capacity) return -1;
  std::snprintf(out, static_cast<std::size_t>(capacity), "%s", text.c_str());
  return static_cast<int>(text.size());
}

float sdot_(const int* n, const float* x, const int* incx, const float* y, const int* incy) {
  return dot(n, x, incx, y, incy);
}

double ddot_(const int* n, const double* x, const int* incx, const double* y, const int* incy) {
  return dot(n, x, incx, y, incy);
}

void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc, std::size_t, std::size_t) {
  gemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc, std::size_t, std::size_t) {
  gemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // extern "C"
