// The placement (alignment) proof beside the reveal it follows (fprev/alignment.hpp): OpenBLAS sdot
// 16384 (1 thread) revealed at offset 0, then checked at the other 15 float32 offsets. The issue's
// target: the proof costs at most as much again as the reveal (the reveal plus the proof at most 2x
// the plain reveal).
//
// Counters: reveal_probes, reveal_calls, proof_probes, proof_calls, proof_target_fraction (time
// inside the target / the check's time) and ratio (reveal + proof time / reveal time, the issue's
// measure).
#include <chrono>

#include "fprev/alignment.hpp"
#include "openblas_bench.hpp"

namespace {

class TimedTarget final : public fprev::Target {
 public:
  explicit TimedTarget(fprev::Target& inner) : inner_(inner) {}
  const fprev::TargetInfo& info() const override { return inner_.info(); }
  void evaluate(const fprev::ProbeBatch& batch, std::span<double> outputs) override { timed([&] { inner_.evaluate(batch, outputs); }); }
  void evaluate(const fprev::ValueBatch& batch, std::span<double> outputs) override { timed([&] { inner_.evaluate(batch, outputs); }); }
  double seconds = 0.0;

 private:
  template <class Call>
  void timed(Call&& call) {
    const auto start = std::chrono::steady_clock::now();
    call();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  fprev::Target& inner_;
};

void reveal_and_prove_placements(benchmark::State& state, const fprev::Params& case_params) {
  const std::optional<fprev_bench::OpenblasCase> opened = fprev_bench::open_openblas_case(state, case_params);
  if (!opened) return;
  const fprev::BackendInstance* instance = opened->instance;
  const std::unique_ptr<fprev::Target>& target = opened->target;
  fprev::RevealResult revealed;
  fprev::AlignmentStats stats;
  double reveal_seconds = 0.0, proof_seconds = 0.0, proof_target_seconds = 0.0;
  for (auto _ : state) {
    revealed = fprev::reveal(*target);
    TimedTarget timed(*target);
    fprev::AlignmentResult result = fprev::check_alignment(timed, revealed.map, {}, &stats);
    benchmark::DoNotOptimize(result.verdict);
    reveal_seconds += revealed.stats.total_seconds;
    proof_seconds += stats.seconds;
    proof_target_seconds += timed.seconds;
  }
  state.SetLabel(target->info().description + ", " + instance->identity().details.at("kernel_family"));
  state.counters["reveal_probes"] = static_cast<double>(revealed.stats.probes);
  state.counters["reveal_calls"] = static_cast<double>(revealed.stats.target_calls);
  state.counters["proof_probes"] = static_cast<double>(stats.probes);
  state.counters["proof_calls"] = static_cast<double>(stats.target_calls);
  state.counters["proof_target_fraction"] = proof_seconds > 0 ? proof_target_seconds / proof_seconds : 0.0;
  state.counters["ratio"] = reveal_seconds > 0 ? (reveal_seconds + proof_seconds) / reveal_seconds : 0.0;
}

BENCHMARK_CAPTURE(reveal_and_prove_placements, sdot_16384, fprev::Params{{"op", "dot"}, {"n", "16384"}})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
