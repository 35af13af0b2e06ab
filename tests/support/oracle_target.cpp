#include "oracle_target.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "fprev/reveal.hpp"

namespace fprev {
namespace {

void require(bool condition, const std::string& message) {
  if (!condition) throw std::logic_error("TreeOracleTarget: " + message);
}

}  // namespace

NumericTraits float32_product_traits() {
  NumericTraits t;
  t.input = t.accumulator = t.output = Format::float32;
  t.summand = SummandKind::product;
  return t;
}

NumericTraits TreeOracleTarget::default_traits(const Tree& tree) {
  NumericTraits traits;
  traits.input = traits.accumulator = traits.output = Format::float64;
  traits.summand = SummandKind::plain;
  traits.max_fused_width = std::max<std::size_t>(2, tree.max_arity());
  return traits;
}

TreeOracleTarget::TreeOracleTarget(Tree tree, std::optional<NumericTraits> traits,
                                   std::size_t max_batch)
    : tree_(std::move(tree)), lca_(tree_) {
  if (tree_.empty()) throw std::invalid_argument("TreeOracleTarget: the tree has no leaves");
  if (max_batch == 0) throw std::invalid_argument("TreeOracleTarget: max_batch must be >= 1");
  info_.n = tree_.leaf_count();
  info_.traits = traits ? *traits : default_traits(tree_);
  info_.max_batch = max_batch;
  info_.extra_masks = true;  // probes with several pairs are simulated
  info_.description = "tree oracle, n=" + std::to_string(info_.n);

  // Depth-first leaf ranks, top-down (parents have larger ids than their children): the leaves
  // under a node are exactly the ranks [first_rank, first_rank + leaves_under).
  first_rank_.assign(tree_.node_count(), 0);
  for (std::size_t v = tree_.node_count(); v-- > tree_.leaf_count();) {
    std::uint32_t rank = first_rank_[v];
    for (NodeId child : tree_.children(static_cast<NodeId>(v))) {
      first_rank_[child] = rank;
      rank += tree_.leaves_under(child);
    }
  }
}

void TreeOracleTarget::set_wrong_count(std::uint32_t plus, std::uint32_t minus,
                                       std::int64_t offset) {
  wrong_pair_ = WrongPair{plus, minus, offset};
}

std::vector<std::uint32_t> TreeOracleTarget::active_ranks(const Background& background) const {
  std::vector<std::uint32_t> ranks;
  ranks.reserve(background.active.size());
  for (std::size_t k = 0; k < background.active.size(); ++k) {
    const std::uint32_t leaf = background.active[k];
    // The messages are built only for a failure: this runs for every active leaf of every probe.
    if (leaf >= info_.n)
      require(false, "background " + std::to_string(background.id) + " lists leaf " + std::to_string(leaf) +
                         ", but n = " + std::to_string(info_.n));
    if (k > 0 && background.active[k - 1] >= leaf)
      require(false, "background " + std::to_string(background.id) + ": active leaves must be sorted and distinct");
    ranks.push_back(first_rank_[leaf]);
  }
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

std::uint64_t TreeOracleTarget::unmasked_count(
    const Probe& probe, const Background& background,
    const std::vector<std::uint32_t>* active_ranks) const {
  const NodeId lca = lca_.lca(probe.plus, probe.minus);
  const std::uint32_t under = tree_.leaves_under(lca);
  if (background.all_active) return info_.n - under;
  // plus and minus are under the LCA, so whether the background lists them does not matter.
  const std::uint32_t begin = first_rank_[lca];
  const auto low = std::lower_bound(active_ranks->begin(), active_ranks->end(), begin);
  const auto high = std::lower_bound(low, active_ranks->end(), begin + under);
  return active_ranks->size() - static_cast<std::uint64_t>(high - low);
}

void TreeOracleTarget::evaluate(const ProbeBatch& batch, std::span<double> outputs) {
  require(batch.values != nullptr, "probe batch without values");
  require(outputs.size() == batch.probes.size(),
          std::to_string(batch.probes.size()) + " probes but " + std::to_string(outputs.size()) +
              " outputs");
  require(batch.probes.size() <= info_.max_batch,
          std::to_string(batch.probes.size()) + " probes in one call, max_batch is " +
              std::to_string(info_.max_batch));
  ++probe_calls;

  // Bounded cache: dropped between calls when it grows large (the engine makes many
  // short-lived backgrounds), never during one, so the pointers below stay valid.
  if (cached_ranks_ > 8 * info_.n + 1024 || ranks_by_background_.size() > 256) {
    ranks_by_background_.clear();
    cached_ranks_ = 0;
  }
  std::vector<const std::vector<std::uint32_t>*> resolved(batch.backgrounds.size(), nullptr);
  std::vector<std::vector<std::uint32_t>> unnamed;  // backgrounds with id 0 are not cached
  unnamed.reserve(batch.backgrounds.size());

  const double unit = batch.values->unit.value();
  for (std::size_t p = 0; p < batch.probes.size(); ++p) {
    const Probe& probe = batch.probes[p];
    auto fail = [&](const std::string& problem) {
      require(false, "probe " + std::to_string(p) + " (+M at " + std::to_string(probe.plus) +
                         ", -M at " + std::to_string(probe.minus) + "): " + problem);
    };
    if (probe.plus >= info_.n || probe.minus >= info_.n) {
      fail("leaf out of range, n = " + std::to_string(info_.n));
    }
    if (probe.plus == probe.minus) fail("both masks on the same leaf");
    if (probe.background >= batch.backgrounds.size()) {
      fail("background index " + std::to_string(probe.background) + " but only " +
           std::to_string(batch.backgrounds.size()) + " backgrounds");
    }
    const Background* background = batch.backgrounds[probe.background];
    if (background == nullptr) fail("null background");
    const std::vector<std::uint32_t>*& ranks = resolved[probe.background];
    if (!background->all_active && ranks == nullptr) {
      if (background->id == 0) {
        ranks = &unnamed.emplace_back(active_ranks(*background));
      } else {
        auto found = ranks_by_background_.find(background->id);
        if (found == ranks_by_background_.end()) {
          found = ranks_by_background_.emplace(background->id, active_ranks(*background)).first;
          cached_ranks_ += found->second.size();
        }
        ranks = &found->second;
      }
    }

    if (!batch.extras(p).empty()) {
      // Several pairs: what the tree computes, bitwise (simulate_sum under the traits).
      std::vector<double> values(info_.n);
      for (std::size_t k = 0; k < info_.n; ++k) values[k] = batch.leaf(p, static_cast<std::uint32_t>(k)).value();
      const NumericTraits& t = info_.traits;
      outputs[p] = nan_probes_ ? std::numeric_limits<double>::quiet_NaN()
                               : simulate_sum(tree_, values, t.accumulator, t.output, t.fused_extra_bits);
      ++probes_evaluated;
      continue;
    }
    std::int64_t count = static_cast<std::int64_t>(unmasked_count(probe, *background, ranks));
    if (wrong_pair_ && ((wrong_pair_->a == probe.plus && wrong_pair_->b == probe.minus) ||
                        (wrong_pair_->a == probe.minus && wrong_pair_->b == probe.plus))) {
      count += wrong_pair_->offset;
    }
    outputs[p] = nan_probes_ ? std::numeric_limits<double>::quiet_NaN()
                             : static_cast<double>(count) * unit;
    ++probes_evaluated;
  }
}

void TreeOracleTarget::evaluate(const ValueBatch& batch, std::span<double> outputs) {
  const std::size_t n = info_.n;
  require(outputs.size() == batch.rows, std::to_string(batch.rows) + " rows but " +
                                            std::to_string(outputs.size()) + " outputs");
  require(batch.rows <= info_.max_batch, std::to_string(batch.rows) +
                                             " rows in one call, max_batch is " +
                                             std::to_string(info_.max_batch));
  require(batch.a.size() == batch.rows * n, "value batch: a must hold rows x n values");
  require(batch.b.empty() || batch.b.size() == n, "value batch: b must be empty or hold n values");
  ++value_calls;
  std::vector<double> values(n);
  for (std::size_t row = 0; row < batch.rows; ++row) {
    for (std::size_t k = 0; k < n; ++k) values[k] = batch.leaf(row, n, k).value();
    const NumericTraits& t = info_.traits;
    outputs[row] = simulate_sum(tree_, values, t.accumulator, t.output, t.fused_extra_bits);
    ++value_rows_evaluated;
  }
}

}  // namespace fprev
