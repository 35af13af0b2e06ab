// Invariance contracts (docs/invariance.md): does a target's order stay the same while something
// else varies, the number of rows in a batch, the thread count, the process?
//
// The check compares the per-element trees of variants of one case (the same case with one
// parameter set to each listed value), over the elements both variants have, by their (row,
// column) meaning: row i of m = 1 against row i of m = 64. It is built as the alignment check
// (fprev/alignment.hpp) is, the placement case of the same question: the reference variant's order
// map is known (the case's own, revealed or confirmed), every other variant gets the cheap proof of
// that map restricted to its own elements (confirm(), n - 1 probes per tree), and only where the
// proof fails is the variant revealed, to name the counterexample: the two values, the first output
// element whose tree differs, and the first differing subtree.
//
// A variant that misbehaves (non-deterministic, a crash, a value-dependent order) gives no verdict:
// check_invariance() throws, as a reveal would, naming the variant. A verdict "invariant" rests on a
// proof at every variant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fprev/backend.hpp"
#include "fprev/order_map.hpp"
#include "fprev/reveal.hpp"
#include "fprev/target.hpp"

namespace fprev {

// The parameter that stands for "a fresh process, N times" (run-to-run invariance).
inline constexpr std::string_view kRunsParameter = "runs";

// The level a parameter's invariance is named by, one vocabulary everywhere: "run-to-run" (runs),
// "thread-invariant" (threads), "batch-invariant" (m), "placement-invariant" (the alignment check,
// fprev/alignment.hpp), otherwise "invariant over <parameter>".
std::string invariance_level(std::string_view parameter);

// An output element at which two variants follow different trees.
struct InvarianceCounterexample {
  std::string value;       // the variant whose order differs ...
  std::string base_value;  // ... from the reference variant's, which holds the element too
  std::size_t row = 0;
  std::size_t column = 0;
  bool single_output = false;  // a target of one output: "the output", no element
  // The first differing subtree (diff_trees' first region): its leaves and the subtree in the
  // reference variant's tree and in the variant's. Reports only; a golden records the position.
  std::string leaves;
  std::string base_subtree;
  std::string variant_subtree;
  friend bool operator==(const InvarianceCounterexample& a, const InvarianceCounterexample& b) {
    return a.value == b.value && a.base_value == b.base_value && a.row == b.row && a.column == b.column &&
           a.single_output == b.single_output;
  }
};

struct InvarianceResult {
  std::string parameter;
  // As listed (runs: "1" .. "N"), and the case's own value last where the list lacks it.
  std::vector<std::string> values;
  bool invariant = false;
  std::optional<InvarianceCounterexample> counterexample;  // set when !invariant

  // "batch-invariant (m = 1, 2, 8, 64)", "run-to-run (3 runs)", or "not batch-invariant (m = 1, 2,
  // 8, 64): at m=1 element (0,0) adds its summands in another order than at m=64": the golden's
  // `invariance.<parameter>:` value.
  std::string summary() const;
  // The counterexample's sentence ("at m=1 element (0,0) adds ..."), empty when invariant.
  std::string explanation() const;
  // "batch-invariant" or "not batch-invariant".
  std::string verdict_text() const;
  // The counterexample's first differing subtree, where known, as lines ending with '\n':
  // "first difference, over leaves {0..15}:", then "  m=16: <subtree>" and "  m=1: <subtree>".
  std::string difference_text() const;
  // Same parameter, values, verdict and counterexample position (not the subtree texts).
  friend bool operator==(const InvarianceResult&, const InvarianceResult&) = default;
};

// Parses summary()'s text for `parameter` strictly; nullopt with `error` set for anything else.
std::optional<InvarianceResult> parse_invariance_summary(std::string_view parameter, std::string_view text,
                                                         std::string& error);
// Parameter names and values an invariance can record: [A-Za-z0-9_.+-], non-empty, at most 64
// characters (so that the golden's line reads back unambiguously).
bool valid_invariance_word(std::string_view word);

// What is wrong with asking for invariance over `parameter` at `values` (a valid name, at least two
// values, each a valid word and listed once), or empty. Runs are asked as one value, the count
// (2 .. 1000), and checked by run_values_problem.
std::string invariance_values_problem(std::string_view parameter, const std::vector<std::string>& values);

// What differs between recorded verdicts (a golden's) and others (found now), one sentence each,
// in parameter order: a lost level ("no longer batch-invariant: at m=1 element (0,0) ..."; sets
// *lost), a gained one ("now batch-invariant (m = 1, 64), a change to review: ..."), other values or
// another counterexample, a verdict only one side has. Empty when they agree.
std::vector<std::string> compare_invariance(const std::vector<InvarianceResult>& recorded,
                                            const std::vector<InvarianceResult>& now, bool* lost = nullptr);

// Asking for what cannot be compared: variants with different numbers of summands (n of a dot),
// other formats, grids that no variant holds all of. A usage error, never a verdict.
class InvarianceError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// One variant to compare: the parameter's value and how to make its target (a fresh target each
// call).
struct InvarianceVariant {
  std::string value;
  std::function<std::unique_ptr<Target>()> make;
  // True when `make` asks the case's own instance for a target (a case parameter such as m): such a
  // target holds one of the instance's workers while it lives, so the check keeps at most one of
  // them alive, and makes it again when its turn comes (a kept worker serves it: one library import
  // or job launch for every value). False where `make` opens an instance of its own (a setting, a
  // run): made once, kept until the check ends.
  bool shares_case_instance = false;
};

// The variant whose order is already known: the case itself. Only its target's description is
// needed (its map is known), so the caller need not hold a target (nor its worker) meanwhile.
struct KnownVariant {
  std::string value;
  TargetInfo info;
  const OrderMap* map = nullptr;
};

struct InvarianceStats {
  std::size_t variants = 0;       // variants compared besides the known one
  std::size_t proofs = 0;         // confirm() runs
  std::size_t proofs_failed = 0;
  std::size_t reveals = 0;        // full reveals (a failed proof's counterexample, a larger reference)
  std::size_t probes = 0;         // probes of all the proofs and reveals
  std::size_t target_calls = 0;   // calls of all the proofs and reveals (TargetCalls::invariance)
  double seconds = 0.0;
};

// Checks that every variant follows, at each of its output elements, the tree the reference
// variant follows at the same (row, column). The reference is the known variant when its grid
// holds every variant's (the cheap case: one proof per variant), else the variant with the largest
// grid, revealed first. `values` lists the parameter's values in the order the verdict reports
// (the known variant's value may be among them); `variants` holds one entry per value other than
// the known one, in that order. Stops at the first counterexample, in `values` order.
// Throws InvarianceError for variants that cannot be compared, RevealFailure (naming the variant)
// when one misbehaves, RevealOverBudget past options.max_seconds (one budget for the whole check).
InvarianceResult check_invariance(const std::string& parameter, const std::vector<std::string>& values,
                                  const KnownVariant& known, std::span<const InvarianceVariant> variants,
                                  const RevealOptions& options = {}, InvarianceStats* stats = nullptr);

// The map of `reference` on the elements of `grid` (each element (r, c) with the tree reference
// follows at (r, c)). Throws InvarianceError when `grid` reaches beyond reference's grid.
OrderMap restrict_map(const OrderMap& reference, OutputGrid grid);

// ---- variants of a backend's case ---------------------------------------------------------------

// What a parameter is to a backend: a case parameter (m, n, op, ...), a setting of its instances
// (threads, a library's own settings: a fresh instance per value), or runs (the case itself in a
// fresh instance each run: a fresh worker process where the backend runs in one).
enum class InvarianceParameterKind : std::uint8_t { case_parameter, setting, runs };

// Throws ConfigError naming the parameters `backend` takes (and runs) when it takes no such one.
InvarianceParameterKind invariance_parameter_kind(const Backend& backend, const BackendInstance& instance,
                                                  const std::string& parameter);

// The case's own value of `parameter` (resolved settings and case parameters; "1" for runs).
std::string invariance_known_value(const Backend& backend, const BackendInstance& instance, const Params& settings,
                                   const Params& case_params, const std::string& parameter);

// Opens an instance of the backend with these resolved settings. The runner's opener keeps what it
// opened for the next case of the run that asks for the same settings (a thread count's variant
// opened once per run, not once per case: a Python worker imports its library once).
using InstanceOpener = std::function<std::shared_ptr<BackendInstance>(const Params& resolved_settings)>;

// Takes this machine's cores for the calling case alone, for as long as the returned token lives
// (check --jobs: a library of several threads beside another case waits for a time slice at every
// call, docs/cli.md "--jobs"). Tokens taken while one lives share it.
using CoreClaim = std::function<std::shared_ptr<void>()>;

// The variants of a case over `parameter`, one per value other than `known_value`, in `values`
// order. Each make() opens an instance of `backend` with the (resolved) settings, the parameter set
// where it is a setting (through `open` where given, else backend.open()), validates the case with
// the parameter set where it is a case parameter (ConfigError naming the value), and makes its
// target; the instance lives at least as long as the target. With `claim_cores`, a variant over
// `threads` of more than one thread takes the cores alone from its target's first call until the
// target is gone: its library then runs its threads undisturbed, while the rest of the case (its
// own reveal, the variant's library loading: a Python worker's import) shares the cores.
std::vector<InvarianceVariant> make_invariance_variants(const Backend& backend, const BackendInstance& instance,
                                                        const Params& settings, const Params& case_params,
                                                        const std::string& parameter,
                                                        const std::vector<std::string>& values,
                                                        const std::string& known_value,
                                                        InstanceOpener open = nullptr,
                                                        CoreClaim claim_cores = nullptr);

// "1", "2", ..., "runs": the values of runs = N.
std::vector<std::string> run_values(std::size_t runs);

}  // namespace fprev
