#pragma once

namespace fprev::cli {

#ifndef FPREV_VERSION
#define FPREV_VERSION "0.0.0"
#endif
inline constexpr const char* kToolVersion = FPREV_VERSION;

}  // namespace fprev::cli
