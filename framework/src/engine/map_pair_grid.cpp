// The map reveal's pair grid (pair_grid.hpp): every l(i, j) measured at the classes' own elements in
// two calls, read by each class's FPRev instead of rounds of one probe per line.
#include "map_reveal.hpp"
#include "pair_grid.hpp"

namespace fprev::detail {
namespace {

// The tables hold n^2 answers per class: more than this many in all (256 MiB at 8 bytes; 32
// classes of n = 1024) and the reveal runs its rounds instead.
constexpr std::size_t kMostTableEntries = std::size_t{1} << 25;

}  // namespace

void MapRevealer::answer_from_pair_grid() {
  const TargetInfo& info = session_.info();
  const std::optional<MaskScheme> crossed = pair_grid_scheme(info, options_, stats_.low_range_mode);
  const std::size_t R = rows_.lines(), C = columns_.lines(), n = n_;
  if (!crossed || R * C > std::size_t{UINT32_MAX}) return;
  std::size_t revealing = 0;
  for (const MapClass& c : classes_) revealing += c.alive && c.algorithm ? 1 : 0;
  if (revealing * n * n > kMostTableEntries) return;
  // Per class: the answers its elements gave, and whether two of them disagreed on one pair.
  std::vector<std::vector<std::uint64_t>> answers(classes_.size());
  std::vector<bool> disagreed(classes_.size(), false);
  std::vector<std::size_t> recorded(classes_.size(), 0);
  for (std::uint32_t id = 0; id < classes_.size(); ++id)
    if (classes_[id].alive && classes_[id].algorithm) answers[id].assign(n * n, kNoPairAnswer);
  // Only where the calls answer every pair at some element of every class: a class left with
  // pairs to ask needs rounds, which would carry the other classes' probes too, and the pair
  // grid's calls would come on top (a map with a kernel's edge tiles as classes of a few rows).
  // The second call's leaves are shuffled, or else turned half way round (bands of half the rows
  // or columns, as two threads split C, then hold every pair too).
  // One walk over the grid per layout (a class's elements are wherever the labels put them).
  const auto covers_every_class = [&](const std::vector<PairGridLayout>& layouts) {
    std::vector<std::vector<bool>> covered(classes_.size());
    std::vector<std::size_t> pairs(classes_.size(), 0);
    for (std::uint32_t id = 0; id < classes_.size(); ++id)
      if (!answers[id].empty()) covered[id].assign(n * n, false);
    for (const PairGridLayout& layout : layouts)
      for (std::size_t r = 0; r < R; ++r)
        for (std::size_t c = 0; c < C; ++c) {
          const std::uint32_t id = class_of(r, c);
          const std::uint32_t plus = layout.row_leaf[r], minus = layout.column_leaf[c];
          if (plus == minus || covered[id].empty()) continue;
          std::vector<bool>::reference seen = covered[id][std::size_t{plus} * n + minus];
          if (seen) continue;
          seen = true;
          ++pairs[id];
        }
    for (std::uint32_t id = 0; id < classes_.size(); ++id)
      if (!covered[id].empty() && pairs[id] < n * (n - 1)) return false;
    return true;
  };
  // A class with fewer elements than the pairs it needs over the two calls (a corner, an edge tile)
  // cannot hold them: no walk at all.
  for (std::uint32_t id = 0; id < classes_.size(); ++id)
    if (!answers[id].empty() && 2 * classes_[id].rows.size() * classes_[id].columns.size() < n * (n - 1)) return;
  std::vector<PairGridLayout> layouts;
  for (const PairGridTurn second : {PairGridTurn::shuffled, PairGridTurn::half_way}) {
    layouts = {pair_grid_layout(n, R, C, PairGridTurn::none, options_.seed),
               pair_grid_layout(n, R, C, second, options_.seed)};
    if (covers_every_class(layouts)) break;
    layouts.clear();
  }
  if (layouts.empty()) return;
  for (const PairGridLayout& layout : layouts) {
    const PairGridInputs inputs = pair_grid_inputs(*crossed, n, layout);
    const std::vector<double> out =
        session_.evaluate_value_grid(Placement::rows, R, inputs.a, inputs.b, inputs.column_factors,
                                     ProbeSession::ValueInputs::probes);
    ++stats_.pair_grid_calls;
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t c = 0; c < C; ++c) {
        const std::uint32_t plus = layout.row_leaf[r], minus = layout.column_leaf[c];
        if (plus == minus) continue;  // +M times -M: no probe
        const std::uint32_t id = class_of(r, c);
        if (answers[id].empty() || disagreed[id]) continue;
        const DecodedOutput decoded = decode_output(*crossed, out[r * C + c]);
        // An output that is no count here is the rounds' to diagnose, with the target's own
        // scheme: the pair grid gives nothing at all.
        if (decoded.status != DecodeStatus::exact || decoded.count > n - 2) return;
        const std::uint64_t l = n - decoded.count;
        std::uint64_t& slot = answers[id][std::size_t{plus} * n + minus];
        ++recorded[id];
        if (slot == kNoPairAnswer)
          slot = l << 32 | (r * C + c);
        else if (slot >> 32 != l)
          disagreed[id] = true;
      }
  }
  for (std::uint32_t id = 0; id < classes_.size(); ++id)
    if (!disagreed[id]) {
      classes_[id].pair_answers = std::move(answers[id]);
      classes_[id].pair_answer_count = recorded[id];
    }
}

bool MapRevealer::take_pair_answer(MapClass& c, const ProbeRequest& request, const ProbeKey& key) {
  if (c.pair_answers.empty() || !request.background->all_active || request.active_count != n_) return false;
  const std::uint64_t slot = c.pair_answers[std::size_t{request.plus} * n_ + request.minus];
  if (slot == kNoPairAnswer) return false;
  const std::size_t element = slot & 0xffffffffu, columns = columns_.lines();
  c.cache.emplace(key, CacheEntry{Measurement{static_cast<std::uint32_t>(slot >> 32), false},
                                  Element{element / columns, element % columns}});
  ++stats_.pair_grid_answers;
  return true;
}

// FPRev's transcript proves the class's tree for an element that gives its answers; the rest of the
// table is every other l(i, j) measured at the class's elements, each of which must be what the tree
// predicts: the whole tree checked, not a sample.
bool MapRevealer::check_pair_answers() {
  for (std::uint32_t id = 0; id < classes_.size(); ++id) {
    MapClass& c = classes_[id];
    if (!c.alive || c.algorithm || c.pair_answers.empty()) continue;
    const LcaIndex lca(c.tree);
    std::optional<Mismatch> mismatch;
    for (std::uint32_t plus = 0; plus < n_ && !mismatch; ++plus)
      for (std::uint32_t minus = 0; minus < n_; ++minus) {
        const std::uint64_t slot = c.pair_answers[std::size_t{plus} * n_ + minus];
        if (slot == kNoPairAnswer) continue;
        const std::uint32_t predicted = lca.leaf_count(plus, minus);
        const auto measured = static_cast<std::uint32_t>(slot >> 32);
        if (measured == predicted) continue;
        const std::size_t element = slot & 0xffffffffu, columns = columns_.lines();
        mismatch = Mismatch{element / columns, element % columns, id,
                            ProbeRequest{plus, minus, session_.all_active(), static_cast<std::uint32_t>(n_)},
                            Measurement{measured, false}, predicted};
        break;
      }
    std::vector<std::uint64_t>().swap(c.pair_answers);
    if (mismatch) {
      divide_by_mismatch(*mismatch, true);
      return false;
    }
    stats_.element_checks += c.pair_answer_count;
  }
  return true;
}

}  // namespace fprev::detail
