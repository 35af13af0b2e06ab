// An MPI collective as a target: n = ranks summands (leaf r = rank r's value), every element of
// the vector an independent reduction. One job runs for the target's whole life.
//
// Each call puts one input on every element (all elements of a rank get that rank's value), so
// every element answers every probe: elements that reduce in different orders (Open MPI's ring
// allreduce gives every block of elements its own order) show up as a disagreement on some probe
// and are refused as BatchInconsistent rather than described by one element's tree.
//
// allreduce: every rank's result is compared bit for bit with rank 0's; a difference is thrown as
// RanksDisagree. reduce_scatter_block: the ranks' blocks together are the elements.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fprev/target.hpp"
#include "mpi_case.hpp"
#include "mpi_job.hpp"

namespace fprev::mpi {

class CollectiveTarget final : public Target {
 public:
  // Starts the job (throws JobFailure, a TargetError, when it cannot).
  CollectiveTarget(JobConfig job, const MpiCase& mpi_case, std::string description);

  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override;
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override;

  MpiJob& job() { return *job_; }

 private:
  // One call with `rank_values` (one value per rank) on every element; returns element 0's result
  // after checking the ranks and the elements.
  double run(const std::vector<double>& rank_values);
  std::vector<double> elements_of(const std::vector<std::vector<double>>& by_rank) const;

  MpiCase case_;
  TargetInfo info_;
  std::unique_ptr<MpiJob> job_;
  std::vector<double> rank_values_;
};

}  // namespace fprev::mpi
