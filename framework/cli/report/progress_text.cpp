#include "progress_text.hpp"

#include "fprev/cost_estimate.hpp"

namespace fprev::cli {

std::string progress_text(const Progress& p) {
  std::string text = std::to_string(p.probes_done);
  if (p.probes_expected > 0) text += " of ~" + std::to_string(p.probes_expected);
  text += " probes, " + format_duration(p.seconds);
  if (p.probes_expected == 0 || p.probes_done == 0) return text;
  if (p.probes_done >= p.probes_expected) return text + ", past the estimate";
  const double left = p.seconds * static_cast<double>(p.probes_expected - p.probes_done) /
                      static_cast<double>(p.probes_done);
  return text + ", about " + format_duration(left) + " left";
}

}  // namespace fprev::cli
