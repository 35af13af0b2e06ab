#include "fprev/cost_estimate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <sstream>

#include "fprev/alignment.hpp"
#include "fprev/mask_scheme.hpp"

#include "algorithms.hpp"
#include "multi_pair_proof.hpp"

namespace fprev {

ProbeCountModel model_probe_count(std::size_t n, Algorithm algorithm) {
  ProbeCountModel m;
  if (n < 2) return m;
  const double dn = static_cast<double>(n);
  switch (algorithm) {
    case Algorithm::fprev:
      m.low = n - 1;
      m.expected = 2 * n;
      m.high = static_cast<std::size_t>(dn / 2 * std::log2(dn)) + n;
      break;
    case Algorithm::basic:
      m.low = m.expected = m.high = n * (n - 1) / 2;
      break;
    case Algorithm::naive:  // random inputs, not probes: a few dozen calls
      m.low = m.expected = m.high = detail::kNaiveInputs;
      break;
  }
  return m;
}

std::string format_duration(double seconds) {
  std::ostringstream os;
  os.precision(seconds < 10 || (seconds >= 60 && seconds < 600) || seconds >= 3600 ? 2 : 3);
  if (seconds < 1e-3)
    os << std::lround(seconds * 1e6) << " us";
  else if (seconds < 1)
    os << std::lround(seconds * 1000) << " ms";
  else if (seconds < 60)
    os << std::lround(seconds) << " s";
  else if (seconds < 3600)
    os << seconds / 60 << " min";
  else if (seconds < 48 * 3600)
    os << seconds / 3600 << " h";
  else
    os << std::llround(seconds / 86400) << " days";
  return os.str();
}

namespace {
// The fewest calls a reveal of n leaves makes: n - 1 probes, probes_per_call to a call.
double fewest_calls(std::size_t n, std::size_t probes_per_call) {
  if (n < 2) return 0.0;
  return std::ceil(static_cast<double>(n - 1) / static_cast<double>(std::max<std::size_t>(1, probes_per_call)));
}
}  // namespace

double reveal_time_floor(std::size_t n, std::size_t probes_per_call, double operations_per_call) {
  return fewest_calls(n, probes_per_call) * operations_per_call / kFastestOperationsPerSecond;
}

std::string absurd_size_message(std::size_t n, std::size_t probes_per_call, double operations_per_call) {
  const double floor = reveal_time_floor(n, probes_per_call, operations_per_call);
  if (floor <= kAbsurdRevealSeconds) return "";
  const double calls = fewest_calls(n, probes_per_call);
  std::ostringstream os;
  os.precision(3);
  os << "too large to reveal: at least " << n - 1 << " probes in " << calls << " calls of "
     << operations_per_call << " multiply-adds each, over " << format_duration(floor)
     << " even at 10^12 multiply-adds per second (limit: a week); use a smaller size";
  return os.str();
}

std::string CostEstimate::describe() const {
  std::ostringstream os;
  os << "about " << probes.expected << " probes";
  if (probes.low != probes.high) os << " (" << probes.low << " to " << probes.high << ")";
  os << " x " << format_duration(seconds_per_call) << " per call";
  if (probes_per_call > 1) os << " of " << probes_per_call << " probes";
  if (streams > 1) os << " on " << streams << " streams";
  if (streams > 1 && ranks > 1) os << " over " << ranks << " MPI ranks";
  os << ": about " << format_duration(seconds);
  if (seconds_low != seconds_high)
    os << " (" << format_duration(seconds_low) << " to " << format_duration(seconds_high) << ")";
  if (placements > 0)
    os << "; then the placement proof at " << placements << (placements == 1 ? " placement" : " placements")
       << ", at least " << placement_probes << " probes each: at least " << format_duration(placement_seconds);
  return os.str();
}

void add_placement_proofs(CostEstimate& e, const TargetInfo& info) {
  e.placements = 0;
  e.placement_probes = 0;
  e.placement_seconds = 0.0;
  if (info.alignment != AlignmentSupport::honours_offsets || info.n < 2) return;
  e.placements = alignment_offsets(info.traits.input) - 1 + (info.is_grid() && info.leading_dimensions ? 1 : 0);
  std::size_t pairs_a_probe = 1;
  try {
    // Beyond the exact counting range (low-range mode) the proof restricts each probe's
    // background to one node's scope: one pair a probe.
    const MaskScheme scheme = choose_mask_scheme(info.traits, info.n);
    if (!detail::uses_low_range_mode(info.n, scheme))
      if (const std::optional<detail::MultiPairScheme> pairs = detail::multi_pair_scheme(info, scheme))
        pairs_a_probe = std::max<std::size_t>(1, pairs->max_pairs);
  } catch (const MaskSchemeError&) {
  }
  e.placement_probes = (info.n - 1 + pairs_a_probe - 1) / pairs_a_probe;
  // The placements' proofs run side by side on the streams (one placement a stream).
  const std::size_t lanes = std::max<std::size_t>(1, std::min(e.streams, e.placements));
  const double calls_each =
      std::ceil(static_cast<double>(e.placement_probes) / static_cast<double>(std::max<std::size_t>(1, e.probes_per_call)));
  e.placement_seconds = calls_each * static_cast<double>(e.placements) * e.seconds_per_call / static_cast<double>(lanes);
}

CostEstimate estimate_cost(Target& target, const RevealOptions& options, std::size_t calls) {
  const TargetInfo& info = target.info();
  CostEstimate e;
  e.probes = model_probe_count(info.n, options.algorithm);
  e.probes_per_call = info.is_grid() ? info.grid.rows : std::max<std::size_t>(1, info.max_batch);
  e.streams = info.is_grid() || !options.make_worker ? 1 : std::max<std::size_t>(1, options.streams);
  e.ranks = std::max<std::size_t>(1, options.ranks);

  // Probe calls as the reveal makes them: after the first (which writes the background), a dot
  // target moves two masks and calls the kernel. Formats that cannot mask n summands get a random
  // input instead (it costs at least as much: all n summands written).
  std::optional<MaskScheme> scheme;
  try {
    if (info.n >= 2) scheme = choose_mask_scheme(info.traits, info.n);
  } catch (const MaskSchemeError&) {
  }
  Background background;
  background.id = Background::next_id();
  const Background* backgrounds[] = {&background};
  std::vector<Probe> probes(e.probes_per_call, Probe{0, 1, 0});
  ProbeBatch probe_batch;
  if (scheme) {
    probe_batch.values = &scheme->values;
    probe_batch.backgrounds = backgrounds;
    probe_batch.probes = probes;
  }
  const std::size_t rows = info.is_grid() ? info.grid.rows : 1;
  const detail::RandomInputs inputs =
      scheme ? detail::RandomInputs{} : detail::make_random_inputs(info, rows, options.seed ^ 0xc057, 4);
  ValueBatch value_batch;
  value_batch.rows = rows;
  value_batch.a = inputs.a;
  value_batch.b = inputs.b;
  std::vector<double> outputs(info.is_grid() ? info.grid.size() : (scheme ? probes.size() : rows));
  double fastest = 0.0;
  for (std::size_t k = 0; k < std::max<std::size_t>(2, calls); ++k) {
    const auto start = std::chrono::steady_clock::now();
    if (scheme)  // a TargetError goes to the caller
      target.evaluate(probe_batch, outputs);
    else
      target.evaluate(value_batch, outputs);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fastest = k == 0 ? s : std::min(fastest, s);
  }
  e.seconds_per_call = fastest;
  e.set_probes(e.probes);
  return e;
}

void CostEstimate::set_probes(const ProbeCountModel& model) {
  probes = model;
  const auto cost = [&](std::size_t probe_count) {
    const double target_calls =
        std::ceil(static_cast<double>(probe_count) / static_cast<double>(probes_per_call));
    return target_calls * seconds_per_call / static_cast<double>(streams);
  };
  seconds_low = cost(probes.low);
  seconds = cost(probes.expected);
  seconds_high = cost(probes.high);
}

}  // namespace fprev
