// The interposer's record of one BLAS call and the table that aggregates them (call_table.cpp).
// Plain C++ without the framework: this code runs inside the traced program, preloaded.
#pragma once

#include <cstdint>

namespace fprev_trace {

enum class Op : std::uint8_t { dot, gemv, gemm };

// What decides a call's order, and what it is kept apart by: one entry of the table per distinct
// value. Alignment is not part of it (it varies from call to call); it is gathered per entry.
struct CallKey {
  Op op = Op::dot;
  bool float64 = false;
  bool cblas = false;      // cblas_* (else the Fortran symbol)
  bool row_major = false;  // CBLAS layout
  char trans_a = 'N';      // gemv: trans; gemm: transa ('N', 'T', 'C' as passed)
  char trans_b = 'N';
  bool alpha_one = true;
  std::uint8_t beta = 0;   // 0: beta == 0, 1: beta == 1, 2: another value
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t inc_x = 0, inc_y = 0;  // dot: x, y; gemv: x, y
  std::int64_t ld_a = 0, ld_b = 0, ld_c = 0;
  int threads = 0;   // 0: unknown
  int library = -1;  // index into the library table

  bool operator==(const CallKey& other) const;
};

// The operands whose address is recorded (mod 64): A (or x), B (or y of a dot, x of a gemv), C (or y).
struct CallAddresses {
  const void* first = nullptr;
  const void* second = nullptr;
  const void* third = nullptr;
};

// Whether the table is set up (the interposer's constructor has run): calls made before are
// forwarded without a record.
bool tracing();
// Records one outermost call. `caller` is the return address into the code that called the BLAS.
void record_call(const CallKey& key, const CallAddresses& addresses, void* caller);
// Counts a call of a kind the gate does not reveal (saxpy, zgemm, ...).
void record_other(int symbol_index);

// The library that defines `real` (found once per distinct library), and its thread count now.
int library_of(void* real);
int threads_of(int library);

}  // namespace fprev_trace
