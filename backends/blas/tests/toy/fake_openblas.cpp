// A stand-in for a DYNAMIC_ARCH OpenBLAS, for tests of kernel forcing that must not depend on the
// CPU they run on. Like OpenBLAS it exports openblas_get_config and openblas_get_corename and reads
// OPENBLAS_CORETYPE once, when it is loaded. It can be forced to "Haswell" or "Sandybridge"; any
// other name, or none, gets "Prescott" (as a build that cannot force a family picks its own).
// sdot_ (its only kernel) sums in an order that tells the three apart:
//   Haswell      forwards:  ((p0 + p1) + p2) + ...
//   Sandybridge  backwards: ((p[n-1] + p[n-2]) + ...) + p0
//   Prescott     in pairs:  ((p0 + p1) + (p2 + p3)) + ... (pairs added sequentially)
#include <cstdlib>
#include <cstring>

namespace {

const char* core = "Prescott";

__attribute__((constructor)) void pick_core() {
  const char* asked = std::getenv("OPENBLAS_CORETYPE");
  if (asked == nullptr) return;
  if (std::strcmp(asked, "Haswell") == 0) core = "Haswell";
  if (std::strcmp(asked, "Sandybridge") == 0) core = "Sandybridge";
}

}  // namespace

extern "C" {

const char* openblas_get_config() {
  if (std::strcmp(core, "Haswell") == 0) return "OpenBLAS 0.0.1 DYNAMIC_ARCH Haswell fake";
  if (std::strcmp(core, "Sandybridge") == 0) return "OpenBLAS 0.0.1 DYNAMIC_ARCH Sandybridge fake";
  return "OpenBLAS 0.0.1 DYNAMIC_ARCH Prescott fake";
}

const char* openblas_get_corename() { return core; }

float sdot_(const int* n, const float* x, const int* incx, const float* y, const int* incy) {
  const auto p = [&](int l) { return x[l * *incx] * y[l * *incy]; };
  float acc = 0.0f;
  if (std::strcmp(core, "Haswell") == 0) {
    for (int l = 0; l < *n; ++l) acc = acc + p(l);
  } else if (std::strcmp(core, "Sandybridge") == 0) {
    for (int l = *n - 1; l >= 0; --l) acc = acc + p(l);
  } else {
    int l = 0;
    for (; l + 1 < *n; l += 2) acc = acc + (p(l) + p(l + 1));
    if (l < *n) acc = acc + p(l);
  }
  return acc;
}

}  // extern "C"
