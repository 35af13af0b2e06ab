// The fingerprint's experiments: inputs with a few non-zero leaves, evaluated in batches.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fprev/fingerprint.hpp"

namespace fprev::detail {

// A summand's value at one leaf; every other leaf is zero.
struct LeafValue {
  std::uint32_t leaf;
  double value;
};

// One experiment: a per leaf (zero elsewhere) and the right factors (b_default elsewhere).
struct Experiment {
  std::vector<LeafValue> a;
  std::vector<LeafValue> b;  // right factors other than `b_default`
  double b_default = 1.0;
};

// Experiments with the same right factors can share a call (the rows of a call share them, as a
// GEMM's rows share B). Plain sums have no right factors: every experiment shares.
bool right_factors_less(const Experiment& p, const Experiment& q, bool products);

// Collects experiments and evaluates them in calls of up to max_batch rows (rows of one call share
// the right factors, as a GEMM's rows share B). The calls travel to the target in shipments of at
// most kShipmentBytes of rows (one message each to a worker process); rows are materialised only
// while their shipment is being filled, so memory stays bounded however many experiments there are.
//
// With a courier (set_courier), run() hands the queued experiments to it instead of evaluating them:
// the fingerprints of an order map's classes are measured together that way
// (fingerprint_grid.cpp), the courier setting every output with set_output() before it returns.
class Lab {
 public:
  // 4 MiB: a shipment is copied into the worker's shared memory and read back there; one that fits
  // the caches moves faster than a larger one, and the pages touched once per run are fewer (32 MiB
  // cost sdot 16384's 3,362 experiments 0.145 s against 0.11 s, for about a hundred messages).
  static constexpr std::size_t kShipmentBytes = std::size_t{4} << 20;
  Lab(Target& target, FingerprintStats& stats);
  // A summand value split over both factors of a product (a * b == value, both exact in the input
  // format), or nullopt when the input format cannot express it.
  std::optional<std::pair<double, double>> split(double value) const;
  // Queues an experiment; returns its index, or nullopt when a value cannot be expressed.
  std::optional<std::size_t> add(const std::vector<LeafValue>& values);
  // Queues an experiment with explicit factors: a per leaf and one right factor shared by all leaves.
  std::size_t add_factors(const std::vector<LeafValue>& a, double shared_b);
  // Evaluates everything queued; afterwards output(i) is valid for every index returned so far.
  void run();
  double output(std::size_t index) const { return outputs_.at(index); }
  const TargetInfo& info() const { return info_; }

  using Courier = std::function<void(Lab&)>;
  void set_courier(Courier courier) { courier_ = std::move(courier); }
  // For the courier: the experiments queued since the last run, and their outputs.
  const std::vector<Experiment>& queued() const { return pending_; }
  void set_output(std::size_t queued_index, double value) { outputs_.at(first_pending_ + queued_index) = value; }

 private:
  // Evaluates the calls of one shipment: each group holds indices into pending_ with the same
  // right factors (one call).
  void ship(std::span<const std::span<const std::size_t>> groups);

  Target& target_;
  const TargetInfo& info_;
  FingerprintStats& stats_;
  Courier courier_;
  std::vector<Experiment> pending_;
  std::size_t first_pending_ = 0;  // index of pending_[0]
  std::vector<double> outputs_;
  std::vector<double> a_, b_;  // ship()'s inputs; a_ is kept (zero) between shipments
  std::vector<std::size_t> a_dirty_;  // where the last shipment set a value
};

// Evaluates rows x n inputs with shared right factors `b`, in batches; appends the outputs.
void evaluate_rows(Target& target, std::size_t rows, std::span<const double> a,
                   std::span<const double> b, std::vector<double>& outputs, FingerprintStats& stats);

// The arithmetic the facts describe, for simulating the tree with them (fingerprint_model.cpp).
struct FactModel {
  enum class Products : std::uint8_t { rounded, exact, contracted };
  std::vector<Format> node_format;  // per node id (inner nodes): the precision its result keeps
  bool round_toward_zero = false;
  Products products = Products::rounded;
  int fused_extra_bits = 0;
  bool fused_truncates = true;  // the fused sum's final normalisation truncates (else: to nearest)
};

// The facts (see fingerprint.hpp), measured with `lab` on the target whose tree is `tree`, and the
// model they make, or nullopt with the reason when the simulation cannot express them.
std::map<std::string, std::string> measure_facts(Lab& lab, const Tree& tree,
                                                 std::optional<FactModel>& model, std::string& why_not);

// The fingerprints of every class of `map` on the grid target `target`, measured together
// (fingerprint_grid.cpp); every call is counted in `stats`. The signatures: see
// measure_map_fingerprints.
std::vector<Fingerprint> measure_grid_fingerprints(Target& target, const OrderMap& map, FingerprintStats& stats,
                                                   std::span<const std::uint64_t> row_signatures = {},
                                                   std::span<const std::uint64_t> column_signatures = {},
                                                   std::span<const double> uniformity_outputs = {});

// fingerprint.model: whether `tree` simulated with the facts' model reproduces the outputs of the
// fixed sets ("reproduced", "not reproduced: ...", or "not modelled: " and `why_not`).
std::string model_verdict(const TargetInfo& info, const Tree& tree, const std::vector<FingerprintInputSet>& sets,
                          const std::map<std::string, std::vector<double>>& outputs,
                          const std::optional<FactModel>& model, const std::string& why_not);

// The output the model predicts for one input row.
double simulate_with_facts(const Tree& tree, const NumericTraits& traits, const FactModel& model,
                           std::span<const double> a, std::span<const double> b);

}  // namespace fprev::detail
