// The cases of the mpi backend: which collective, in which dtype, over how many ranks and elements.
//
//   op     reduce (root 0), allreduce, reduce_scatter_block; always MPI_SUM
//   dtype  float64 (MPI_DOUBLE, default) or float32 (MPI_FLOAT)
//   ranks  processes in MPI_COMM_WORLD, 2..64: the leaves of the tree (leaf r = rank r's value);
//          an instance that places its ranks takes only its layout's count (node_layout.hpp)
//   count  elements per call (reduce_scatter_block: per rank's block, MPI's recvcount), 1..2^20;
//          it selects the library's algorithm through the message size
//
// Every element is an independent reduction over the ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/format.hpp"

namespace fprev::mpi {

enum class Op : std::uint8_t { reduce, allreduce, reduce_scatter_block };

struct MpiCase {
  Op op = Op::allreduce;
  Format dtype = Format::float64;
  int ranks = 2;
  std::uint64_t count = 1;

  // Elements of the send buffer, each reduced over the ranks: count, or ranks * count for
  // reduce_scatter_block (rank r receives elements [r * count, (r + 1) * count)).
  std::uint64_t elements() const;
  std::string op_name() const;    // "allreduce"
  std::string describe() const;   // "MPI_Allreduce float64 count=64 over 8 ranks"
};

inline constexpr int kMaxRanks = 64;
inline constexpr std::int64_t kMaxCount = std::int64_t{1} << 20;

std::vector<ParamSpec> case_param_specs();

// Interprets resolved case parameters; throws ConfigError for an impossible case (too many values
// per call for the bounds the backend keeps).
MpiCase parse_case(const Params& resolved);

}  // namespace fprev::mpi
