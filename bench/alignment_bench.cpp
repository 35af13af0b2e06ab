// The placement (alignment) proof beside the reveal it follows (fprev/alignment.hpp): OpenBLAS sdot
// 16384 (1 thread) revealed at offset 0, then checked at the other 15 float32 offsets; and sgemv
// 1024 x 1024, a grid, at its 15 offsets and with its leading dimension + 1. The issue's
// target: the proof costs at most as much again as the reveal (the reveal plus the proof at most 2x
// the plain reveal).
//
// Counters: reveal_probes, reveal_calls, proof_probes (one +M/-M pair each), proof_calls,
// proof_multi_pair_probes (of proof_probes, those carrying several pairs), proof_target_fraction (time
// inside the target / the check's time) and ratio (reveal + proof time / reveal time, the issue's
// measure), streams (the reveal's probe streams, and the placements proven side by side).
#include <chrono>

#include "fprev/alignment.hpp"
#include "fprev/confirm.hpp"
#include "fprev/probe_streams.hpp"
#include "openblas_bench.hpp"

namespace {

class TimedTarget final : public fprev::Target {
 public:
  explicit TimedTarget(fprev::Target& inner) : inner_(inner) {}
  const fprev::TargetInfo& info() const override { return inner_.info(); }
  void evaluate(const fprev::ProbeBatch& batch, std::span<double> outputs) override { timed([&] { inner_.evaluate(batch, outputs); }); }
  void evaluate(const fprev::ValueBatch& batch, std::span<double> outputs) override { timed([&] { inner_.evaluate(batch, outputs); }); }
  // Runs stay runs: a target in a worker process gets a run of calls in one message (without these
  // every call would be a message of its own, and the check would time the messages).
  void evaluate_probe_calls(std::span<const fprev::ProbeBatch> calls, std::span<double> outputs,
                            std::size_t& done) override {
    timed([&] { inner_.evaluate_probe_calls(calls, outputs, done); });
  }
  void evaluate_value_calls(std::span<const fprev::ValueBatch> calls, std::span<double> outputs,
                            std::size_t& done) override {
    timed([&] { inner_.evaluate_value_calls(calls, outputs, done); });
  }
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

// `streams`: 1, or 0 for one per core as the command line's default (the reveal's probes spread over
// them, and the placements' proofs run side by side on as many instances).
void reveal_and_prove_placements(benchmark::State& state, const fprev::Params& case_params, std::size_t streams) {
  const std::optional<fprev_bench::OpenblasCase> opened = fprev_bench::open_openblas_case(state, case_params);
  if (!opened) return;
  const fprev::BackendInstance* instance = opened->instance;
  const std::unique_ptr<fprev::Target>& target = opened->target;
  fprev::RevealOptions options;
  fprev::use_probe_streams(options, streams, *instance, opened->params);
  fprev::RevealResult revealed;
  fprev::AlignmentStats stats;
  double reveal_seconds = 0.0, proof_seconds = 0.0, proof_target_seconds = 0.0;
  for (auto _ : state) {
    revealed = fprev::reveal(*target, options);
    TimedTarget timed(*target);
    fprev::AlignmentResult result = fprev::check_alignment(timed, revealed.map, options, &stats);
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
  state.counters["proof_multi_pair_probes"] = static_cast<double>(stats.multi_pair_probes);
  // The caller's instance only: with several streams the other lanes' time inside the target is not seen.
  state.counters["proof_target_fraction"] = proof_seconds > 0 ? proof_target_seconds / proof_seconds : 0.0;
  state.counters["streams"] = static_cast<double>(options.streams);
  state.counters["ratio"] = reveal_seconds > 0 ? (reveal_seconds + proof_seconds) / reveal_seconds : 0.0;
}

// The proof as it was before multi-pair probes, for comparison on the same machine and load: at
// every other offset confirm() with one +M/-M pair a probe (what check_alignment() does for an
// alignment-independent target, minus the class bookkeeping).
void reveal_and_prove_placements_one_pair(benchmark::State& state, const fprev::Params& case_params) {
  const std::optional<fprev_bench::OpenblasCase> opened = fprev_bench::open_openblas_case(state, case_params);
  if (!opened) return;
  const std::unique_ptr<fprev::Target>& target = opened->target;
  fprev::RevealResult revealed;
  std::size_t probes = 0, calls = 0;
  double reveal_seconds = 0.0, proof_seconds = 0.0;
  for (auto _ : state) {
    revealed = fprev::reveal(*target);
    probes = calls = 0;
    const std::size_t offsets = fprev::alignment_offsets(target->info().traits.input);
    for (std::size_t offset = 1; offset < offsets; ++offset) {
      fprev::PlacedTarget placed(*target, offset);
      const fprev::RevealStats stats = fprev::confirm(placed, revealed.map);
      probes += stats.probes;
      calls += stats.target_calls;
      proof_seconds += stats.total_seconds;
    }
    reveal_seconds += revealed.stats.total_seconds;
  }
  state.counters["reveal_probes"] = static_cast<double>(revealed.stats.probes);
  state.counters["reveal_calls"] = static_cast<double>(revealed.stats.target_calls);
  state.counters["proof_probes"] = static_cast<double>(probes);
  state.counters["proof_calls"] = static_cast<double>(calls);
  state.counters["ratio"] = reveal_seconds > 0 ? (reveal_seconds + proof_seconds) / reveal_seconds : 0.0;
}

BENCHMARK_CAPTURE(reveal_and_prove_placements, sdot_16384, fprev::Params{{"op", "dot"}, {"n", "16384"}}, 1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_and_prove_placements, sdot_16384_streams, fprev::Params{{"op", "dot"}, {"n", "16384"}}, 0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reveal_and_prove_placements_one_pair, sdot_16384, fprev::Params{{"op", "dot"}, {"n", "16384"}})
    ->Unit(benchmark::kMillisecond);
// A grid target: every placement's proof is a confirmation of the map, whose proof probes fit one
// call here (1024 rows), so its value calls (the determinism check, the final comparison) are most
// of proof_calls: 3 calls a placement (5 before the determinism check ran on the simulation's inputs).
BENCHMARK_CAPTURE(reveal_and_prove_placements, sgemv_1024, fprev::Params{{"op", "gemv"}, {"m", "1024"}, {"n", "1024"}}, 1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
