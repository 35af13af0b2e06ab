#include "fprev/target.hpp"

#include <algorithm>
#include <atomic>

namespace fprev {

std::string_view to_string(Placement placement) {
  return placement == Placement::rows ? "rows" : "columns";
}

std::string_view to_string(AlignmentSupport support) {
  switch (support) {
    case AlignmentSupport::ignores: return "ignores";
    case AlignmentSupport::honours_offsets: return "honours_offsets";
    case AlignmentSupport::not_applicable: return "not_applicable";
  }
  return "?";
}

std::uint64_t Background::next_id() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;  // 0 is never handed out: it means "nothing materialised"
}

SummandValue ProbeBatch::leaf(std::size_t p, std::uint32_t k) const {
  const Probe& probe = probes[p];
  if (k == probe.plus) return values->plus;
  if (k == probe.minus) return values->minus;
  for (const ExtraMask& extra : extras(p))
    if (extra.leaf == k) return extra.value;
  const Background& background = *backgrounds[probe.background];
  const bool active =
      background.all_active ||
      std::binary_search(background.active.begin(), background.active.end(), k);
  return active ? values->unit : values->zero();
}

std::size_t outputs_of_call(const TargetInfo& info, const ProbeBatch& call) {
  return info.is_grid() ? info.grid.size() : call.probes.size();
}

std::size_t outputs_of_call(const TargetInfo& info, const ValueBatch& call) {
  return info.is_grid() ? info.grid.size() : call.rows;
}

namespace {

template <typename Batch>
void evaluate_each(Target& target, std::span<const Batch> calls, std::span<double> outputs,
                   std::size_t& done) {
  done = 0;
  std::size_t offset = 0;
  for (const Batch& call : calls) {
    const std::size_t count = outputs_of_call(target.info(), call);
    target.evaluate(call, outputs.subspan(offset, count));
    offset += count;
    ++done;
  }
}

}  // namespace

void Target::evaluate_probe_calls(std::span<const ProbeBatch> calls, std::span<double> outputs,
                                  std::size_t& done) {
  evaluate_each(*this, calls, outputs, done);
}

void Target::evaluate_value_calls(std::span<const ValueBatch> calls, std::span<double> outputs,
                                  std::size_t& done) {
  evaluate_each(*this, calls, outputs, done);
}

}  // namespace fprev
