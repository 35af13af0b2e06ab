#include "mpi_case.hpp"

#include "wire.hpp"

namespace fprev::mpi {

std::uint64_t MpiCase::elements() const {
  return op == Op::reduce_scatter_block ? count * static_cast<std::uint64_t>(ranks) : count;
}

std::string MpiCase::op_name() const {
  switch (op) {
    case Op::reduce: return "reduce";
    case Op::allreduce: return "allreduce";
    case Op::reduce_scatter_block: return "reduce_scatter_block";
  }
  return "?";
}

std::string MpiCase::describe() const {
  const char* routine = op == Op::reduce      ? "MPI_Reduce (root 0)"
                        : op == Op::allreduce ? "MPI_Allreduce"
                                              : "MPI_Reduce_scatter_block";
  return std::string(routine) + " " + std::string(to_string(dtype)) +
         " count=" + std::to_string(count) + " over " + std::to_string(ranks) + " ranks";
}

std::vector<ParamSpec> case_param_specs() {
  return {
      choice_param("op", {"reduce", "allreduce", "reduce_scatter_block"},
                   "the collective, with MPI_SUM: reduce (to root 0), allreduce or "
                   "reduce_scatter_block")
          .require(),
      choice_param("dtype", {"float64", "float32"}, "float64 (MPI_DOUBLE) or float32 (MPI_FLOAT)")
          .defaults_to("float64"),
      integer_param("ranks", 2, kMaxRanks,
                    "MPI processes; the leaves of the tree (leaf r = rank r); for an instance "
                    "with hostfile, hosts or ranks_per_node: its nodes x ranks_per_node")
          .require(),
      integer_param("count", 1, kMaxCount,
                    "elements per call (reduce_scatter_block: per rank), each reduced over the "
                    "ranks; the message size picks the library's algorithm")
          .defaults_to("1"),
  };
}

MpiCase parse_case(const Params& resolved) {
  MpiCase c;
  const std::string op = param_str(resolved, "op");
  if (op == "reduce")
    c.op = Op::reduce;
  else if (op == "allreduce")
    c.op = Op::allreduce;
  else if (op == "reduce_scatter_block")
    c.op = Op::reduce_scatter_block;
  else
    throw ConfigError("op", "mpi: unknown op '" + op +
                                "'; allowed values: reduce, allreduce, reduce_scatter_block");
  const auto dtype = resolved.find("dtype");
  if (dtype == resolved.end() || dtype->second == "float64")
    c.dtype = Format::float64;
  else if (dtype->second == "float32")
    c.dtype = Format::float32;
  else
    throw ConfigError("dtype", "mpi: unknown dtype '" + dtype->second +
                                   "'; allowed values: float64, float32");
  c.ranks = static_cast<int>(param_int(resolved, "ranks"));
  if (c.ranks < 2 || c.ranks > kMaxRanks)
    throw ConfigError("ranks", "mpi: 'ranks' must be between 2 and " + std::to_string(kMaxRanks));
  c.count = resolved.count("count") != 0 ? static_cast<std::uint64_t>(param_int(resolved, "count")) : 1;
  if (c.count < 1 || c.count > static_cast<std::uint64_t>(kMaxCount))
    throw ConfigError("count", "mpi: 'count' must be between 1 and " + std::to_string(kMaxCount));
  // Every rank's send buffer comes from the backend and (allreduce, reduce_scatter_block) every
  // rank's result goes back to it: keep one call's traffic bounded.
  const std::uint64_t values = c.elements() * static_cast<std::uint64_t>(c.ranks);
  if (values > wire::kMaxValues)
    throw ConfigError("count", "mpi: " + c.describe() + " moves " + std::to_string(values) +
                                   " values per call, more than the limit of " +
                                   std::to_string(wire::kMaxValues) + "; use a smaller count");
  return c;
}

}  // namespace fprev::mpi
