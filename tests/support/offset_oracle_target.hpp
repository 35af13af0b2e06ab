// A target whose order depends on where its data lies, for the alignment check's tests: it honours
// offsets (TargetInfo::alignment) and answers every call with the oracle of the call's offset, the
// base tree's unless `at_offset` names another. It counts every call it receives, so tests can set
// the engine's statistics against the calls a target really got.
#pragma once

#include <cstddef>
#include <map>
#include <memory>

#include "oracle_target.hpp"

namespace fprev {

class OffsetOracleTarget final : public Target {
 public:
  // Single-output, float32 plain summands (16 offsets in 64 bytes), `max_batch` probes a call.
  OffsetOracleTarget(const Tree& base, std::map<std::size_t, Tree> at_offset, std::size_t max_batch = 1);

  const TargetInfo& info() const override { return info_; }
  void evaluate(const ProbeBatch& batch, std::span<double> outputs) override;
  void evaluate(const ValueBatch& batch, std::span<double> outputs) override;

  std::size_t probe_calls = 0;
  std::size_t value_calls = 0;
  std::size_t probes_evaluated = 0;
  std::size_t calls() const { return probe_calls + value_calls; }

 private:
  TreeOracleTarget& oracle_at(std::size_t offset);

  std::unique_ptr<TreeOracleTarget> base_;
  std::map<std::size_t, std::unique_ptr<TreeOracleTarget>> at_offset_;
  TargetInfo info_;
};

}  // namespace fprev
