// The example project's own kernel: a blocked, Kahan-compensated dot product.
//
// The products x[k] * y[k] are rounded to T, summed block by block with Kahan's compensated
// summation (Kahan, "Further remarks on reducing truncation errors", CACM 1965) in index order,
// and the block sums are added left to right. The order of the additions is fixed by the
// definition; the compensation makes the result more accurate than a plain sum in that order.
#pragma once

#include <cstddef>
#include <span>

namespace kahan {

float blocked_kahan_dot(std::span<const float> x, std::span<const float> y, std::size_t block);
double blocked_kahan_dot(std::span<const double> x, std::span<const double> y, std::size_t block);

}  // namespace kahan
