#include "collective_target.hpp"

#include <cstdio>
#include <cstring>

namespace fprev::mpi {
namespace {

std::string show(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

}  // namespace

CollectiveTarget::CollectiveTarget(JobConfig job, const MpiCase& mpi_case, std::string description)
    : case_(mpi_case), rank_values_(static_cast<std::size_t>(mpi_case.ranks)) {
  info_.description = std::move(description);
  info_.n = static_cast<std::size_t>(case_.ranks);
  info_.traits.input = case_.dtype;
  info_.traits.accumulator = case_.dtype;
  info_.traits.output = case_.dtype;
  info_.traits.summand = SummandKind::plain;
  info_.max_batch = 1;
  job_ = std::make_unique<MpiJob>(std::move(job));
}

std::vector<double> CollectiveTarget::elements_of(
    const std::vector<std::vector<double>>& by_rank) const {
  const auto count = static_cast<std::size_t>(case_.count);
  const auto expected = [&](std::size_t rank) -> std::size_t {
    return case_.op == Op::reduce && rank != 0 ? 0 : count;
  };
  for (std::size_t r = 0; r < by_rank.size(); ++r)
    if (by_rank[r].size() != expected(r))
      throw TargetError(info_.description + ": rank " + std::to_string(r) + " returned " +
                        std::to_string(by_rank[r].size()) + " values, expected " +
                        std::to_string(expected(r)));
  if (case_.op != Op::reduce_scatter_block) return by_rank[0];
  std::vector<double> elements;
  elements.reserve(static_cast<std::size_t>(case_.elements()));
  for (const auto& block : by_rank) elements.insert(elements.end(), block.begin(), block.end());
  return elements;
}

double CollectiveTarget::run(const std::vector<double>& rank_values) {
  const auto by_rank = job_->call(rank_values, 1);
  const std::vector<double> elements = elements_of(by_rank);
  if (case_.op == Op::allreduce) {
    for (std::size_t r = 1; r < by_rank.size(); ++r)
      for (std::size_t e = 0; e < elements.size(); ++e)
        if (!same_bits(by_rank[r][e], elements[e]))
          throw RanksDisagree(
              "ranks_disagree: " + info_.description + ": element " + std::to_string(e) +
              " is " + show(elements[e]) + " at rank 0 but " + show(by_rank[r][e]) + " at rank " +
              std::to_string(r) + "; every rank of an allreduce must receive the same bits");
  }
  for (std::size_t e = 1; e < elements.size(); ++e)
    if (!same_bits(elements[e], elements[0]))
      throw BatchInconsistent(
          "batch_inconsistent: " + info_.description + ": every element holds the same input, "
          "but element 0 is " + show(elements[0]) + " and element " + std::to_string(e) + " is " +
          show(elements[e]) + ": the elements are reduced in different orders (e.g. per block of "
          "a ring allreduce), so no single tree describes this collective");
  return elements[0];
}

void CollectiveTarget::evaluate(const ProbeBatch& batch, std::span<double> outputs) {
  if (batch.probes.size() != 1 || outputs.size() != 1)
    throw TargetError(info_.description + ": evaluate() takes one probe per call");
  for (std::size_t r = 0; r < rank_values_.size(); ++r)
    rank_values_[r] = batch.leaf(0, static_cast<std::uint32_t>(r)).value();
  outputs[0] = run(rank_values_);
}

void CollectiveTarget::evaluate(const ValueBatch& batch, std::span<double> outputs) {
  const std::size_t n = info_.n;
  if (batch.rows != 1 || outputs.size() != 1 || batch.a.size() < n ||
      (!batch.b.empty() && batch.b.size() < n))
    throw TargetError(info_.description + ": evaluate() takes one input of n values per call");
  for (std::size_t r = 0; r < n; ++r) rank_values_[r] = batch.leaf(0, n, r).value();
  outputs[0] = run(rank_values_);
}

}  // namespace fprev::mpi
