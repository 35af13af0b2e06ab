// An MPI collective as a grid target: n = ranks summands (leaf r = rank r's value), and one
// output per element of the result vector — count x 1, or for reduce_scatter_block the ranks'
// blocks concatenated (ranks * count x 1, element e = rank e / count's element e % count). Each
// element is an independent reduction over the ranks, possibly in an order of its own (Open MPI's
// ring allreduce reduces every block of count / ranks elements in its own rotated order), so the
// engine reveals an order map over the elements. The target runs on one job of the instance's
// pool for its whole life (job_pool.hpp): an idle job of its launch, configured for this case, or a
// new one; the job goes back to the pool when the target ends, unless a call of this target failed.
//
// Placement::rows puts input p on element p: one collective call carries up to `elements` probes.
// Placement::columns (one column) puts input 0 on every element. Elements without an input of
// their own (rows beyond the batch) repeat the inputs cyclically; their outputs are ignored.
//
// allreduce: every rank's result is compared bit for bit with rank 0's, element by element; a
// difference is thrown as RanksDisagree (the finding ranks_disagree), naming the element and rank.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fprev/target.hpp"
#include "job_pool.hpp"
#include "mpi_case.hpp"
#include "mpi_job.hpp"

namespace fprev::mpi {

class CollectiveTarget final : public Target {
 public:
  // Takes a job of `job`'s launch from `pool` (or starts one) and configures it for the case
  // (throws JobFailure, a TargetError, when it cannot).
  CollectiveTarget(std::shared_ptr<JobPool> pool, JobConfig job, const MpiCase& mpi_case,
                   std::string description);
  ~CollectiveTarget() override;  // the job back to the pool, or stopped when a call failed
  CollectiveTarget(const CollectiveTarget&) = delete;
  CollectiveTarget& operator=(const CollectiveTarget&) = delete;

  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override;
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override;

  MpiJob& job() { return *job_; }

 private:
  // Checks a call's shape; returns how many inputs it places (1 for Placement::columns).
  std::size_t check_call(std::size_t inputs, std::size_t outputs, Placement placement) const;
  // One collective call: rank r's send buffer element e gets inputs_[r * width + e % width]
  // (width = the number of inputs). Writes every element's result after checking the ranks.
  // A failure marks the job spoiled.
  void run(std::size_t width, std::span<double> outputs);
  void collect(std::size_t width, std::span<double> outputs);
  void check_ranks_agree(const std::vector<std::vector<double>>& by_rank) const;

  MpiCase case_;
  TargetInfo info_;
  std::size_t elements_ = 0;
  std::shared_ptr<JobPool> pool_;
  std::unique_ptr<MpiJob> job_;
  bool job_spoiled_ = false;  // a call failed: the job's state is unknown, it serves no other case
  std::vector<double> inputs_;  // ranks x width, rank-major (what the job sends)
};

}  // namespace fprev::mpi
