// The fingerprints of every class of a grid target's order map, measured together.
//
// Each class is read where its own ClassView reads it (fprev/class_view.hpp): inputs on the rows R
// that hold the class's elements in one column c, the output at (r, c). Measured class by class, each
// class made its own calls, and most rows of each call carried nothing. Here the calls are shared:
//
//   * The fixed input sets go exactly where the class's own measurement puts them (set row i on row
//     R[i mod |R|], one call per |R| rows), so every output of the digest is read at the same element
//     from the same input as before. Classes whose rows do not ask for different inputs on one row
//     share the set's call (with a one-tree map, or classes that all start at row 0, one call per set
//     for every class).
//   * The facts: every class's measure_facts runs in a thread of its own. Lab::run() hands the
//     experiments it queued to the courier below and waits; once every class waits or has finished,
//     the queued experiments of all classes are placed together, grouped by right factors (the rows of
//     a call share them), each on a free row of its class's R, read in its class's column c. Each
//     experiment is read at an element of the same set as before (its class's R x {c}); only which of
//     those rows carries it changes, as it already did with the batch it fell into.
//
// That an element's output depends on its own row's input (and the shared right factors) only, not
// on what the other rows carry, is what the order map's reveal checks (batch_inconsistent: answers
// compared across calls with other rows) and what its calls rely on. The threads only queue
// experiments and read outputs; every target call is made here, on the calling thread, in a fixed
// order, so the calls and the fingerprints do not depend on thread timing.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "fingerprint_lab.hpp"
#include "fingerprint_packing.hpp"
#include "fingerprint_uniformity.hpp"
#include "fprev/class_view.hpp"

namespace fprev::detail {
namespace {

// The calls of one round, evaluated in one run (a target in a worker process gets them in one
// message); outputs are whole grids, row-major.
class GridCalls {
 public:
  GridCalls(Target& target, FingerprintStats& stats) : target_(target), stats_(stats) {}

  // A call of `rows` rows (zero where nothing is set) with right factors `b`; returns its index.
  std::size_t add(std::size_t rows, std::vector<double> b) {
    calls_.push_back({std::vector<double>(rows * target_.info().n, 0.0), std::move(b)});
    return calls_.size() - 1;
  }
  std::span<double> row(std::size_t call, std::size_t row) {
    const std::size_t n = target_.info().n;
    return std::span<double>(calls_[call].a).subspan(row * n, n);
  }
  void count_input() { ++stats_.inputs; }
  void run() {
    if (calls_.empty()) return;
    const TargetInfo& info = target_.info();
    std::vector<ValueBatch> batches(calls_.size());
    for (std::size_t k = 0; k < calls_.size(); ++k) {
      batches[k].rows = calls_[k].a.size() / info.n;
      batches[k].a = calls_[k].a;
      batches[k].b = calls_[k].b;
      batches[k].placement = Placement::rows;
    }
    outputs_.assign(calls_.size() * info.grid.size(), 0.0);
    std::size_t done = 0;
    target_.evaluate_value_calls(batches, outputs_, done);
    stats_.target_calls += calls_.size();
  }
  double output(std::size_t call, std::size_t row, std::size_t column) const {
    const OutputGrid& grid = target_.info().grid;
    return outputs_[call * grid.size() + row * grid.columns + column];
  }

 private:
  struct Call {
    std::vector<double> a;
    std::vector<double> b;
  };
  Target& target_;
  FingerprintStats& stats_;
  std::vector<Call> calls_;
  std::vector<double> outputs_;
};

// Where a class is read: its ClassView's rows and column.
struct ClassPlace {
  std::vector<std::size_t> rows;
  std::size_t column = 0;
};

// Every set row of every class at the row where the class's own measurement put it: the calls
// (one set each), and where each set row is read.
struct SetPlan {
  static constexpr std::size_t kFree = std::string::npos;
  struct Call {
    std::size_t set;
    std::vector<std::size_t> on_row;  // the set row on each grid row (kFree: zeros)
  };
  struct Read {
    std::size_t klass, set, set_row, call, row;
  };
  std::vector<Call> calls;
  std::vector<Read> reads;
};

SetPlan plan_sets(const std::vector<ClassPlace>& places, const std::vector<FingerprintInputSet>& sets) {
  constexpr std::size_t kFree = SetPlan::kFree;
  SetPlan plan;
  for (std::size_t s = 0; s < sets.size(); ++s) {
    const FingerprintInputSet& set = sets[s];
    const std::size_t first_call = plan.calls.size();
    for (std::size_t k = 0; k < places.size(); ++k) {
      const std::vector<std::size_t>& rows = places[k].rows;
      for (std::size_t first = 0; first < set.rows; first += rows.size()) {
        const std::size_t count = std::min(rows.size(), set.rows - first);
        const auto fits = [&](const SetPlan::Call& call) {
          for (std::size_t i = 0; i < count; ++i) {
            const std::size_t r = rows[i];
            if (r < call.on_row.size() && call.on_row[r] != kFree && call.on_row[r] != first + i) return false;
          }
          return true;
        };
        std::size_t chosen = first_call;
        while (chosen < plan.calls.size() && !fits(plan.calls[chosen])) ++chosen;
        if (chosen == plan.calls.size()) plan.calls.push_back({s, {}});
        SetPlan::Call& call = plan.calls[chosen];
        for (std::size_t i = 0; i < count; ++i) {
          const std::size_t r = rows[i];
          if (call.on_row.size() <= r) call.on_row.resize(r + 1, kFree);
          call.on_row[r] = first + i;
          plan.reads.push_back({k, s, first + i, chosen, r});
        }
      }
    }
  }
  return plan;
}

std::vector<std::map<std::string, std::vector<double>>> measure_sets(
    Target& target, const std::vector<ClassPlace>& places, const std::vector<FingerprintInputSet>& sets,
    FingerprintStats& stats) {
  const std::size_t n = target.info().n;
  const SetPlan plan = plan_sets(places, sets);
  std::vector<std::map<std::string, std::vector<double>>> outputs(places.size());
  for (std::size_t k = 0; k < places.size(); ++k)
    for (const FingerprintInputSet& set : sets) {
      outputs[k][set.name].assign(set.rows, 0.0);
      stats.inputs += set.rows;
    }
  GridCalls calls(target, stats);
  for (const SetPlan::Call& call : plan.calls) {
    const FingerprintInputSet& set = sets[call.set];
    const std::size_t at = calls.add(call.on_row.size(), set.b);
    for (std::size_t r = 0; r < call.on_row.size(); ++r)
      if (call.on_row[r] != SetPlan::kFree)
        std::copy_n(set.a.begin() + static_cast<std::ptrdiff_t>(call.on_row[r] * n), n, calls.row(at, r).begin());
  }
  calls.run();
  for (const SetPlan::Read& read : plan.reads)
    outputs[read.klass][sets[read.set].name][read.set_row] = calls.output(read.call, read.row, places[read.klass].column);
  return outputs;
}

// Runs every class's measure_facts in its own thread and evaluates what they queue together (see
// the top of this file).
class JointFacts {
 public:
  // With `packing` (fingerprint_packing.hpp), the experiments of a round share calls whatever their
  // right factors, and `first_round` adds the fixed sets' rows to the first round's calls.
  struct Riders {
    std::function<void(ColumnPacker&)> add;
    std::function<void(const ColumnPacker&)> read;
    std::size_t view_calls = 0;                 // the calls they take in their views' own calls
    std::function<void()> measure_in_views;     // takes those calls instead
  };
  JointFacts(Target& target, std::vector<ClassPlace> places, FingerprintStats& stats,
             const std::vector<PackingClass>* packing = nullptr, std::optional<Riders> first_round = std::nullopt)
      : target_(target),
        places_(std::move(places)),
        stats_(stats),
        members_(places_.size()),
        packing_(packing),
        first_round_(std::move(first_round)) {}
  // Whether the first round's riders still wait for a round (no class queued an experiment).
  bool riders_waiting() const { return first_round_.has_value(); }

  // Measures the facts of class k with `labs[k]` and `trees[k]`.
  void measure(std::vector<Lab>& labs, const std::vector<const Tree*>& trees,
               std::vector<std::map<std::string, std::string>>& facts,
               std::vector<std::optional<FactModel>>& models, std::vector<std::string>& why_not) {
    std::vector<std::thread> threads;
    threads.reserve(labs.size());
    for (std::size_t k = 0; k < labs.size(); ++k) {
      members_[k].lab = &labs[k];
      labs[k].set_courier([this, k](Lab&) { wait_for_outputs(k); });
    }
    std::exception_ptr failure;
    try {
      for (std::size_t k = 0; k < labs.size(); ++k)
        threads.emplace_back([&, k] {
          try {
            facts[k] = measure_facts(labs[k], *trees[k], models[k], why_not[k]);
          } catch (...) {
            std::lock_guard lock(mutex_);
            members_[k].error = std::current_exception();
          }
          std::lock_guard lock(mutex_);
          members_[k].state = State::done;
          changed_.notify_all();
        });
      serve();
    } catch (...) {  // a target call failed, or a thread could not start: stop every class
      failure = std::current_exception();
      std::lock_guard lock(mutex_);
      aborted_ = true;
      changed_.notify_all();
    }
    for (std::thread& thread : threads) thread.join();
    if (failure) std::rethrow_exception(failure);
    for (const Member& member : members_)
      if (member.error) std::rethrow_exception(member.error);
  }

 private:
  enum class State { running, waiting, done };
  struct Member {
    Lab* lab = nullptr;
    State state = State::running;
    std::exception_ptr error;
  };
  struct Aborted {};

  // In a class's thread, from Lab::run(): waits until the coordinator has set the outputs.
  void wait_for_outputs(std::size_t k) {
    std::unique_lock lock(mutex_);
    members_[k].state = State::waiting;
    changed_.notify_all();
    changed_.wait(lock, [&] { return members_[k].state == State::running || aborted_; });
    if (aborted_) throw Aborted{};
  }

  void serve() {
    for (;;) {
      std::vector<std::size_t> waiting;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] {
          return std::none_of(members_.begin(), members_.end(),
                              [](const Member& m) { return m.state == State::running; });
        });
        for (std::size_t k = 0; k < members_.size(); ++k)
          if (members_[k].state == State::waiting) waiting.push_back(k);
      }
      if (waiting.empty()) return;
      evaluate(waiting);
      std::lock_guard lock(mutex_);
      for (std::size_t k : waiting) members_[k].state = State::running;
      changed_.notify_all();
    }
  }

  // The queued experiments of the waiting classes, grouped by right factors (class by class, in
  // queue order within a group); a group fills calls, each experiment on the next free row of its
  // class's rows.
  struct Item {
    std::size_t klass, index;
  };
  // The calls of the view's columns for a round: the experiments grouped by right factors (class by
  // class, in queue order within a group), each call taking from every class as many as the class
  // has rows not yet taken in that call.
  struct ViewCall {
    std::vector<double> b;                               // the group's right factors
    std::vector<std::pair<Item, std::size_t>> placed;    // (experiment, row)
    std::size_t rows = 0;
  };
  std::vector<ViewCall> plan_view_calls(const std::vector<std::size_t>& waiting) const {
    const TargetInfo& info = target_.info();
    const bool products = info.traits.summand != SummandKind::plain;
    const auto experiment = [&](const Item& item) -> const Experiment& {
      return members_[item.klass].lab->queued()[item.index];
    };
    std::vector<Item> items;
    for (std::size_t k : waiting)
      for (std::size_t i = 0; i < members_[k].lab->queued().size(); ++i) items.push_back({k, i});
    std::stable_sort(items.begin(), items.end(), [&](const Item& x, const Item& y) {
      return right_factors_less(experiment(x), experiment(y), products);
    });
    std::vector<ViewCall> calls;
    const std::size_t n = info.n;
    for (std::size_t begin = 0; begin < items.size();) {
      std::size_t end = begin + 1;
      while (end < items.size() && !right_factors_less(experiment(items[begin]), experiment(items[end]), products))
        ++end;
      // The group's right factors, as Lab::evaluate writes them.
      const Experiment& first = experiment(items[begin]);
      std::vector<double> b;
      if (products) {
        b.assign(n, first.b_default);
        for (const LeafValue& v : first.b) b[v.leaf] = v.value;
      }
      std::vector<std::vector<Item>> of_class(members_.size());
      for (std::size_t i = begin; i < end; ++i) of_class[items[i].klass].push_back(items[i]);
      std::vector<std::size_t> next(members_.size(), 0);
      for (bool more = true; more;) {
        more = false;
        ViewCall call{b, {}, 0};
        std::vector<bool> taken(info.grid.rows, false);
        for (std::size_t k = 0; k < members_.size(); ++k) {
          for (std::size_t r : places_[k].rows) {
            if (next[k] == of_class[k].size()) break;
            if (taken[r]) continue;
            taken[r] = true;
            call.placed.emplace_back(of_class[k][next[k]++], r);
            call.rows = std::max(call.rows, r + 1);
          }
          more = more || next[k] < of_class[k].size();
        }
        calls.push_back(std::move(call));
      }
      begin = end;
    }
    return calls;
  }

  void evaluate(const std::vector<std::size_t>& waiting) {
    const std::vector<ViewCall> view_calls = plan_view_calls(waiting);
    if (packing_ != nullptr) {
      // Packed only where that takes fewer calls than the views' own (with the sets' in the first
      // round); every input prefers the row its view's call gives it.
      ColumnPacker packer(target_, *packing_, stats_);
      std::size_t view_count = view_calls.size();
      if (first_round_) {
        first_round_->add(packer);
        view_count += first_round_->view_calls;
      }
      std::vector<std::pair<Item, std::size_t>> packed;  // (experiment, packer index)
      std::size_t factors = 0;
      for (std::size_t c = 0; c < view_calls.size(); ++c) {
        const ViewCall& call = view_calls[c];
        // The calls of one group hold the same factors: one block, one column per packed call.
        if (c == 0 || call.b != view_calls[c - 1].b) factors = packer.factors(call.b);
        for (const auto& [item, row] : call.placed) {
          const Experiment& e = members_[item.klass].lab->queued()[item.index];
          packed.emplace_back(item, packer.add(item.klass, row, factors, [&e](std::span<double> a) {
            for (const LeafValue& v : e.a) a[v.leaf] = v.value;
          }));
        }
      }
      const std::size_t planned = packer.plan();
      if (planned < view_count) {
        packer.run();
        if (first_round_) {
          first_round_->read(packer);
          first_round_.reset();
        }
        for (const auto& [item, index] : packed) members_[item.klass].lab->set_output(item.index, packer.output(index));
        return;
      }
      if (first_round_) {
        first_round_->measure_in_views();
        first_round_.reset();
      }
    }
    GridCalls calls(target_, stats_);
    struct Read {
      Item item;
      std::size_t call, row;
    };
    std::vector<Read> reads;
    for (const ViewCall& view_call : view_calls) {
      const std::size_t call = calls.add(view_call.rows, view_call.b);
      for (const auto& [item, r] : view_call.placed) {
        const std::span<double> a = calls.row(call, r);
        for (const LeafValue& v : members_[item.klass].lab->queued()[item.index].a) a[v.leaf] = v.value;
        reads.push_back({item, call, r});
        calls.count_input();
      }
    }
    calls.run();
    for (const Read& read : reads)
      members_[read.item.klass].lab->set_output(
          read.item.index, calls.output(read.call, read.row, places_[read.item.klass].column));
  }

  Target& target_;
  std::vector<ClassPlace> places_;
  FingerprintStats& stats_;
  std::vector<Member> members_;
  const std::vector<PackingClass>* packing_ = nullptr;
  std::optional<Riders> first_round_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool aborted_ = false;
};

// The packed calls' classes (fingerprint_packing.hpp), or nothing where the view's columns are read
// as before: a target whose columns share their right factors, no column signatures, no class with
// a second column to read in, or factors for every column past kMostPackedFactors values a call.
constexpr std::size_t kMostPackedFactors = std::size_t{1} << 23;  // 64 MiB of doubles

std::vector<PackingClass> packing_for(Target& target, const OrderMap& map, const std::vector<ClassPlace>& places,
                                      std::span<const std::uint64_t> row_signatures,
                                      std::span<const std::uint64_t> column_signatures) {
  const TargetInfo& info = target.info();
  if (!info.column_right_factors || info.traits.summand == SummandKind::plain || info.grid.columns < 2 ||
      info.grid.columns > kMostPackedFactors / std::max<std::size_t>(1, info.n))
    return {};
  std::vector<std::vector<std::size_t>> rows;
  std::vector<std::size_t> columns;
  for (const ClassPlace& place : places) {
    rows.push_back(place.rows);
    columns.push_back(place.column);
  }
  std::vector<PackingClass> packing = packing_classes(map, rows, columns, row_signatures, column_signatures);
  const bool some_class_moves =
      std::any_of(packing.begin(), packing.end(), [](const PackingClass& k) { return k.columns.size() > 1; });
  return some_class_moves ? packing : std::vector<PackingClass>{};
}

}  // namespace

std::vector<Fingerprint> measure_grid_fingerprints(Target& target, const OrderMap& map, FingerprintStats& stats,
                                                   std::span<const std::uint64_t> row_signatures,
                                                   std::span<const std::uint64_t> column_signatures,
                                                   std::span<const double> uniformity_outputs) {
  const auto start = std::chrono::steady_clock::now();
  const std::size_t classes = map.classes.size();
  std::vector<std::unique_ptr<ClassView>> views;
  std::vector<ClassPlace> places;
  for (std::size_t k = 0; k < classes; ++k) {
    views.push_back(std::make_unique<ClassView>(target, map, k));
    places.push_back({views.back()->rows(), views.back()->column()});
  }
  // Every class's inputs are built for the class's own view (n, formats: the grid's).
  const std::vector<FingerprintInputSet> sets = fingerprint_inputs(views.front()->info());
  // Every element of a class computes like its reference (the first its view reads), or the fact
  // "uniformity" names those that do not, and the class is read where its elements computed like
  // the reference only (fingerprint_uniformity.hpp): its facts describe those.
  std::vector<std::pair<std::size_t, std::size_t>> reference;
  for (const ClassPlace& place : places) reference.emplace_back(place.rows.front(), place.column);
  const Uniformity uniformity = measure_uniformity(target, map, reference, sets, stats, uniformity_outputs);
  const OrderMap read_in = reading_map(map, uniformity, reference);
  if (uniformity.any())
    for (std::size_t k = 0; k < classes; ++k) {
      views[k] = std::make_unique<ClassView>(target, read_in, k);
      places[k] = {views[k]->rows(), views[k]->column()};
    }
  std::vector<Fingerprint> fingerprints(classes);
  const std::vector<PackingClass> packing = packing_for(target, read_in, places, row_signatures, column_signatures);
  std::optional<JointFacts::Riders> sets_ride;
  std::vector<std::map<std::string, std::vector<double>>> set_outputs(classes);
  std::vector<std::size_t> set_inputs;  // packed: the packer's index of every set row, class by class
  if (packing.empty()) {
    set_outputs = measure_sets(target, places, sets, stats);
  } else {
    // The fixed sets ride in the facts' first round of calls (or in calls of their own, below, when
    // no class queues an experiment): each set row on the row the view puts it on.
    sets_ride = JointFacts::Riders{
        [&](ColumnPacker& packer) {
          set_inputs.clear();
          for (const FingerprintInputSet& set : sets) {
            const std::size_t factors = packer.factors(set.b);
            for (std::size_t k = 0; k < classes; ++k)
              for (std::size_t i = 0; i < set.rows; ++i)
                set_inputs.push_back(packer.add(k, places[k].rows[i % places[k].rows.size()], factors,
                                                [&set, i](std::span<double> a) {
                                                  const std::size_t n = a.size();
                                                  std::copy_n(set.a.begin() + static_cast<std::ptrdiff_t>(i * n), n,
                                                              a.begin());
                                                }));
          }
        },
        [&](const ColumnPacker& packer) {
          std::size_t at = 0;
          for (const FingerprintInputSet& set : sets)
            for (std::size_t k = 0; k < classes; ++k) {
              std::vector<double>& out = set_outputs[k][set.name];
              out.assign(set.rows, 0.0);
              for (std::size_t i = 0; i < set.rows; ++i) out[i] = packer.output(set_inputs[at++]);
            }
        },
        plan_sets(places, sets).calls.size(),
        [&] { set_outputs = measure_sets(target, places, sets, stats); }};
  }

  FingerprintStats per_class;  // the labs' own counters: unused, every call is counted in `stats`
  std::vector<Lab> labs;
  labs.reserve(classes);
  std::vector<const Tree*> trees;
  for (std::size_t k = 0; k < classes; ++k) {
    labs.emplace_back(*views[k], per_class);
    trees.push_back(&map.classes[k].tree);
  }
  std::vector<std::map<std::string, std::string>> facts(classes);
  std::vector<std::optional<FactModel>> models(classes);
  std::vector<std::string> why_not(classes);
  JointFacts joint(target, places, stats, packing.empty() ? nullptr : &packing, sets_ride);
  joint.measure(labs, trees, facts, models, why_not);
  if (joint.riders_waiting()) {  // no class queued an experiment: the sets on their own
    ColumnPacker packer(target, packing, stats);
    sets_ride->add(packer);
    if (packer.plan() < sets_ride->view_calls) {
      packer.run();
      sets_ride->read(packer);
    } else {
      sets_ride->measure_in_views();
    }
  }
  for (std::size_t k = 0; k < classes; ++k)
    if (!uniformity.facts[k].empty()) facts[k]["uniformity"] = uniformity.facts[k];
  for (std::size_t k = 0; k < classes; ++k) fingerprints[k].outputs = set_outputs[k];
  for (std::size_t k = 0; k < classes; ++k) {
    fingerprints[k].facts = std::move(facts[k]);
    fingerprints[k].model = model_verdict(views[k]->info(), map.classes[k].tree, sets, fingerprints[k].outputs,
                                          models[k], why_not[k]);
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return fingerprints;
}

}  // namespace fprev::detail
