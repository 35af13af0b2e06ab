// Checks on the values the engine hands to a cuBLAS target. The GPU would round a value that is
// not exact in the format it converts to (tf32 truncation, fp8 saturation) without a word; the
// target refuses instead, so a wrong count can never come from a silently changed input.
#pragma once

#include <cstddef>
#include <span>
#include <sstream>
#include <string>

#include "fprev/format.hpp"
#include "fprev/target.hpp"

namespace fprev::cublas::detail {

inline void require_representable(double value, Format format, const char* what) {
  if (!is_representable(value, format)) {
    std::ostringstream os;
    os.precision(17);
    os << "cuBLAS target: " << what << " " << value << " is not exactly representable in "
       << to_string(format)
       << ", the format the library may convert it to; the GPU would round it silently";
    throw TargetError(os.str());
  }
}

// The four values a probe batch is made of: every leaf is one of them.
inline void check_probe_values(const ProbeValues& values, Format a_format, Format b_format,
                               bool product_leaf_in_output, Format output) {
  const SummandValue all[] = {values.unit, values.plus, values.minus, values.zero()};
  for (const SummandValue& v : all) {
    require_representable(v.a, a_format, "probe factor a =");
    require_representable(v.b, b_format, "probe factor b =");
    // With beta = 1 the last leaf is C itself, stored in the output format.
    if (product_leaf_in_output) require_representable(v.value(), output, "probe value of C =");
  }
}

inline void check_batch_size(std::size_t inputs, std::size_t outputs, std::size_t max_batch) {
  if (inputs != outputs || inputs > max_batch) {
    std::ostringstream os;
    os << "cuBLAS target called with " << inputs << " inputs and " << outputs
       << " outputs; it takes at most " << max_batch << " per call and one output per input";
    throw TargetError(os.str());
  }
}

inline void check_value_batch(const ValueBatch& batch, std::size_t n) {
  if (batch.a.size() != batch.rows * n || (!batch.b.empty() && batch.b.size() != n)) {
    std::ostringstream os;
    os << "cuBLAS target: value batch of " << batch.rows << " rows has " << batch.a.size()
       << " a-values and " << batch.b.size() << " b-values; expected " << batch.rows * n << " and "
       << n;
    throw TargetError(os.str());
  }
}

}  // namespace fprev::cublas::detail
