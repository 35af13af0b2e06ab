// How each format is stored in host/device buffers: the C++ element type, the exact software
// encoder/decoder (format.hpp) and the cudaDataType_t cuBLAS is told.
#pragma once

#include <library_types.h>

#include <algorithm>  // before probe_inputs.hpp, which uses std::fill without including it
#include <cstdint>

#include "fprev/format.hpp"
#include "fprev/probe_inputs.hpp"

namespace fprev::cublas::detail {

template <class T>
struct Codec {
  Encoder<T> encode;
  double (*decode)(T);
};

template <class T>
double static_cast_decoder(T value) {
  return static_cast<double>(value);
}

// float32 and tf32 (tf32 is stored as float: cuBLAS reads its top 19 bits).
inline Codec<float> float_codec() { return {&static_cast_encoder<float>, &static_cast_decoder<float>}; }
inline Codec<double> double_codec() {
  return {&static_cast_encoder<double>, &static_cast_decoder<double>};
}
// float16 or bfloat16 bit patterns.
inline Codec<std::uint16_t> half_codec(Format format) {
  if (format == Format::bfloat16) return {&encode_bfloat16, &decode_bfloat16};
  return {&encode_float16, &decode_float16};
}
// fp8 bit patterns.
inline Codec<std::uint8_t> fp8_codec(Format format) {
  if (format == Format::fp8_e5m2) return {&encode_fp8_e5m2, &decode_fp8_e5m2};
  return {&encode_fp8_e4m3, &decode_fp8_e4m3};
}

inline cudaDataType_t cuda_data_type(Format format) {
  switch (format) {
    case Format::float64:
      return CUDA_R_64F;
    case Format::float16:
      return CUDA_R_16F;
    case Format::bfloat16:
      return CUDA_R_16BF;
    case Format::fp8_e4m3:
      return CUDA_R_8F_E4M3;
    case Format::fp8_e5m2:
      return CUDA_R_8F_E5M2;
    case Format::float32:
    case Format::tf32:
      break;
  }
  return CUDA_R_32F;
}

}  // namespace fprev::cublas::detail
