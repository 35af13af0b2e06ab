#include "offset_oracle_target.hpp"

namespace fprev {
namespace {

NumericTraits float32_traits(const Tree& tree) {
  NumericTraits traits = TreeOracleTarget::default_traits(tree);
  traits.input = traits.accumulator = traits.output = Format::float32;
  return traits;
}

}  // namespace

OffsetOracleTarget::OffsetOracleTarget(const Tree& base, std::map<std::size_t, Tree> at_offset,
                                       std::size_t max_batch)
    : base_(std::make_unique<TreeOracleTarget>(base, float32_traits(base), max_batch)), info_(base_->info()) {
  for (auto& [offset, tree] : at_offset)
    at_offset_.emplace(offset, std::make_unique<TreeOracleTarget>(tree, float32_traits(tree), max_batch));
  info_.alignment = AlignmentSupport::honours_offsets;
  info_.description = "oracle whose order depends on the offset";
}

TreeOracleTarget& OffsetOracleTarget::oracle_at(std::size_t offset) {
  const auto it = at_offset_.find(offset);
  return it == at_offset_.end() ? *base_ : *it->second;
}

void OffsetOracleTarget::evaluate(const ProbeBatch& batch, std::span<double> outputs) {
  ++probe_calls;
  probes_evaluated += batch.probes.size();
  oracle_at(batch.offset).evaluate(batch, outputs);
}

void OffsetOracleTarget::evaluate(const ValueBatch& batch, std::span<double> outputs) {
  ++value_calls;
  oracle_at(batch.offset).evaluate(batch, outputs);
}

}  // namespace fprev
