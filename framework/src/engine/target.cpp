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
  const Background& background = *backgrounds[probe.background];
  const bool active =
      background.all_active ||
      std::binary_search(background.active.begin(), background.active.end(), k);
  return active ? values->unit : values->zero();
}

}  // namespace fprev
