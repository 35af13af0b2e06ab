#include "collective_target.hpp"

#include <algorithm>
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

wire::Configuration configuration_of(const MpiCase& c) {
  wire::Configuration out{};
  out.op = static_cast<std::uint32_t>(c.op == Op::reduce      ? wire::Op::reduce
                                      : c.op == Op::allreduce ? wire::Op::allreduce
                                                              : wire::Op::reduce_scatter_block);
  out.dtype = static_cast<std::uint32_t>(c.dtype == Format::float32 ? wire::Dtype::float32 : wire::Dtype::float64);
  out.count = c.count;
  return out;
}

}  // namespace

CollectiveTarget::CollectiveTarget(std::shared_ptr<JobPool> pool, JobConfig job,
                                   const MpiCase& mpi_case, std::string description)
    : case_(mpi_case), elements_(static_cast<std::size_t>(mpi_case.elements())), pool_(std::move(pool)) {
  info_.description = std::move(description);
  info_.n = static_cast<std::size_t>(case_.ranks);
  info_.traits.input = case_.dtype;
  info_.traits.accumulator = case_.dtype;
  info_.traits.output = case_.dtype;
  info_.traits.summand = SummandKind::plain;
  info_.max_batch = 1;
  info_.alignment = AlignmentSupport::not_applicable;  // the MPI library places the buffers it reduces
  info_.grid = {elements_, 1};
  // One column: columns placement puts one input on every element.
  info_.columns_placement = true;
  const std::string what = job.what;
  bool started = false;
  job_ = pool_->acquire(job, started);
  info_.jobs_started = started ? 1 : 0;
  try {
    job_->configure(configuration_of(case_), what);
  } catch (...) {
    job_->stop();
    throw;
  }
}

CollectiveTarget::~CollectiveTarget() {
  if (job_spoiled_ || !job_->running()) {
    job_->stop();
    return;
  }
  pool_->give_back(std::move(job_));
}

std::size_t CollectiveTarget::check_call(std::size_t inputs, std::size_t outputs,
                                         Placement placement) const {
  const std::size_t lines = placement == Placement::rows ? elements_ : 1;
  if (inputs == 0 || inputs > lines || outputs != elements_)
    throw TargetError(info_.description + ": evaluate() got " + std::to_string(inputs) +
                      " inputs on " + std::to_string(lines) + " " +
                      std::string(to_string(placement)) + " and " + std::to_string(outputs) +
                      " outputs (expected " + std::to_string(elements_) + ")");
  return inputs;
}

void CollectiveTarget::check_ranks_agree(const std::vector<std::vector<double>>& by_rank) const {
  const std::vector<double>& root = by_rank[0];
  for (std::size_t r = 1; r < by_rank.size(); ++r)
    for (std::size_t e = 0; e < root.size(); ++e)
      if (!same_bits(by_rank[r][e], root[e]))
        throw RanksDisagree("ranks_disagree: " + info_.description + ": element " +
                            std::to_string(e) + " is " + show(root[e]) + " at rank 0 but " +
                            show(by_rank[r][e]) + " at rank " + std::to_string(r) +
                            "; every rank of an allreduce must receive the same bits");
}

void CollectiveTarget::run(std::size_t width, std::span<double> outputs) {
  try {
    collect(width, outputs);
  } catch (...) {
    job_spoiled_ = true;
    throw;
  }
}

void CollectiveTarget::collect(std::size_t width, std::span<double> outputs) {
  const auto by_rank = job_->call(inputs_, width);
  // What each rank must answer: reduce, rank 0 all elements and the others nothing; allreduce,
  // every rank all elements; reduce_scatter_block, every rank its block of count.
  const auto count = static_cast<std::size_t>(case_.count);
  for (std::size_t r = 0; r < by_rank.size(); ++r) {
    const std::size_t expected = case_.op == Op::reduce ? (r == 0 ? count : 0) : count;
    if (by_rank[r].size() != expected)
      throw TargetError(info_.description + ": rank " + std::to_string(r) + " returned " +
                        std::to_string(by_rank[r].size()) + " values, expected " +
                        std::to_string(expected));
  }
  if (case_.op == Op::allreduce) check_ranks_agree(by_rank);
  if (case_.op != Op::reduce_scatter_block) {
    std::copy(by_rank[0].begin(), by_rank[0].end(), outputs.begin());
    return;
  }
  // Rank r's block holds elements [r * count, (r + 1) * count) of the send buffers.
  for (std::size_t r = 0; r < by_rank.size(); ++r)
    std::copy(by_rank[r].begin(), by_rank[r].end(),
              outputs.begin() + static_cast<std::ptrdiff_t>(r * count));
}

void CollectiveTarget::evaluate(const ProbeBatch& batch, std::span<double> outputs) {
  const std::size_t width = check_call(batch.probes.size(), outputs.size(), batch.placement);
  const std::size_t ranks = info_.n;
  inputs_.resize(ranks * width);
  for (std::size_t r = 0; r < ranks; ++r)
    for (std::size_t p = 0; p < width; ++p)
      inputs_[r * width + p] = batch.leaf(p, static_cast<std::uint32_t>(r)).value();
  run(width, outputs);
}

void CollectiveTarget::evaluate(const ValueBatch& batch, std::span<double> outputs) {
  const std::size_t width = check_call(batch.rows, outputs.size(), batch.placement);
  const std::size_t ranks = info_.n;
  if (batch.a.size() < width * ranks || (!batch.b.empty() && batch.b.size() < ranks))
    throw TargetError(info_.description + ": value batch smaller than its rows x n");
  inputs_.resize(ranks * width);
  for (std::size_t r = 0; r < ranks; ++r)
    for (std::size_t p = 0; p < width; ++p)
      inputs_[r * width + p] = batch.leaf(p, ranks, r).value();
  run(width, outputs);
}

}  // namespace fprev::mpi
