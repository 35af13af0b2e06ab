#include "cli_app.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "backend_options.hpp"
#include "commands.hpp"
#include "commands/engine_options.hpp"
#include "exit_guard.hpp"
#include "suggest.hpp"
#include "validators.hpp"
#include "fprev/backend.hpp"
#include "fprev/drawing.hpp"
#include "version.hpp"

namespace fprev::cli {
namespace {

constexpr const char* kSelectionGroup = "Selection";
constexpr const char* kEngineGroup = "Engine";
constexpr const char* kOutputGroup = "Output";
constexpr const char* kPendingGroup = "Pending results";

// The exit statuses, at the end of every help screen (each sub-command's too).
constexpr const char* kExitFooter = R"(exit status: 0 good; 1 a tree differs, a target misbehaves (also a crash, exit or hang
  of its worker), a golden cannot be read or written, or check compared (update recorded) nothing (unless --allow-nothing);
  2 usage or configuration error; 3 internal error or out of memory; 77 (check --ctest only) the case was skipped)";

constexpr const char* kFooter = R"(environment: FPREV_SUITES, FPREV_GOLDEN_DIR, FPREV_PENDING_DIR (default paths), FPREV_STRICT=1
  (strict mode), CI (a missing golden fails; update, review and accept refuse to run; check keeps
  no pending results unless asked), FPREV_<BACKEND>_<SETTING> overrides a setting of every instance of a backend,
  e.g. FPREV_BLAS_LIBRARY=/opt/openblas-next/lib/libopenblas.so (overrides are named in the summary and refused
  under CI unless the suite lists them in environment_overrides); FPREV_WORKERS=off (debugging: libraries in
  this process; refused under CI); FPREV_PROGRESS_INTERVAL=S (seconds between progress lines in a log, default 30)
documentation: README.md and docs/ (cli.md: the commands; json.md: the JSON output; suite-format.md),
  installed in <prefix>/share/doc/fprev-golden)";

// ---- option groups, each defined once and added to the sub-commands that take it --------------

void add_selection_options(CLI::App& command, SelectionOptions& s, bool leave_out_opt_in) {
  s.leave_out_opt_in = leave_out_opt_in;
  command.add_option("SUITE_PATH", s.positional, "suite files or directories (the same as --suites)")
      ->type_name("")
      ->group(kSelectionGroup);
  command
      .add_option("--suites", s.suite_paths,
                  "a suite file or directory (repeatable; default ./suites or $FPREV_SUITES)")
      ->allow_extra_args(false)
      ->type_name("PATH")
      ->group(kSelectionGroup);
  command.add_option("--golden", s.golden, "the golden directory (default ./golden or $FPREV_GOLDEN_DIR)")
      ->type_name("DIR")
      ->group(kSelectionGroup);
  command.add_option("--suite", s.suites, "only suites whose name matches (glob, repeatable)")
      ->allow_extra_args(false)
      ->type_name("GLOB")
      ->group(kSelectionGroup);
  command.add_option("--backend", s.backends, "only backend instances whose name matches (glob, repeatable)")
      ->allow_extra_args(false)
      ->type_name("GLOB")
      ->group(kSelectionGroup);
  command.add_option("--case", s.cases, "only cases whose id matches (glob, repeatable)")
      ->allow_extra_args(false)
      ->type_name("GLOB")
      ->group(kSelectionGroup);
  command
      .add_option("--exclude-label", s.excluded_labels,
                  "leave out the cases whose suite entry carries this label (repeatable), e.g. long: "
                  "what ctest -LE long leaves out")
      ->allow_extra_args(false)
      ->type_name("LABEL")
      ->group(kSelectionGroup);
  command
      .add_option("--label", s.labels,
                  std::string("only the cases whose suite entry carries this label (repeatable), as ctest -L") +
                      (leave_out_opt_in ? "; the cases labelled long run only when named here (--label long)" : ""))
      ->allow_extra_args(false)
      ->type_name("LABEL")
      ->group(kSelectionGroup);
  command
      .add_option("--max-cases", s.max_cases,
                  "the most cases all suite files of the run may expand to together (default " +
                      std::to_string(kMaxRunCases) + "; one file may have at most " +
                      std::to_string(kMaxSuiteCases) + ")")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{100000000}))
      ->type_name("N")
      ->group(kSelectionGroup);
}

// `seed_alias`: --seed is also the engine's seed (check and update; in reveal --seed may be a
// backend's parameter). Two options rather than one with two names, so an error names the one
// the user typed.
void add_engine_options(CLI::App& command, EngineOptions& e, bool seed_alias) {
  command.add_option("--algorithm", e.algorithm, "fprev (default), basic or naive (n <= 8)")
      ->check(CLI::IsMember({"fprev", "basic", "naive"}))
      ->type_name("NAME")
      ->group(kEngineGroup);
  CLI::Option* seed =
      command
          .add_option("--reveal-seed", e.seed,
                      "seed of the engine's random inputs and pivots (the tree does not depend on it)")
          ->check(unsigned_integer())
          ->type_name("UINT")
          ->group(kEngineGroup);
  if (seed_alias)
    command.add_option("--seed", e.seed, "the same as --reveal-seed")
        ->check(unsigned_integer())
        ->type_name("UINT")
        ->group(kEngineGroup)
        ->excludes(seed);
  command
      .add_flag("--no-sibling-guesses", e.no_sibling_guesses,
                "FPRev's Alg. 4 as published: no sub-problem guessed from a sibling's shape and proven "
                "(more probes for lanes and pairwise orders; the tree is the same)")
      ->group(kEngineGroup);
  command
      .add_flag("--no-pair-grid", e.no_pair_grid,
                "a GEMM's order map without the pair grid: its probes on one row or column each, in "
                "rounds, as FPRev asks them, instead of every l(i,j) in two calls (more calls; the map "
                "is the same)")
      ->group(kEngineGroup);
  command
      .add_flag("--prove-every-element", e.prove_every_element,
                "an order map (GEMM, GEMV, a collective's vector) with every element's tree proven in full: "
                "each element answers every proof pair of its class, n - 1 calls a class along a row (511 for "
                "sgemm 512^3), so that an element whose order changed in the middle of its tree is found, not "
                "only by chance; skipped, and the report says so, where the proof would take over " +
                    std::to_string(static_cast<int>(kAskedElementProofSeconds / 60.0)) +
                    " minutes or the counts are beyond the exact range (FPREV_PROVE_EVERY_ELEMENT=1: the same, "
                    "e.g. for a nightly ctest -L reproducibility)")
      ->envname("FPREV_PROVE_EVERY_ELEMENT")
      ->group(kEngineGroup);
  command
      .add_flag("--no-alignment-check", e.no_alignment_check,
                "probe the data at offset 0 from a 64-byte boundary only: no check of whether the order "
                "depends on where the data lies (update then records no alignment; check leaves it "
                "unchecked)")
      ->group(kEngineGroup);
  command
      .add_option("--streams", e.streams,
                  "probe streams: a dot or sum target's independent probes are measured on N instances of "
                  "the target at once, one per thread, the library itself at the case's thread count "
                  "(default 0: one per core; 1 where the backend cannot run instances side by side, e.g. "
                  "a BLAS case with more than one thread). The tree is the same")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1024}))
      ->type_name("N")
      ->group(kEngineGroup);
  command
      .add_option("--max-seconds", e.max_seconds,
                  "time budget of each reveal in seconds (0: none, the default); past it the case stops and is "
                  "reported over budget (a failure when the case has a golden here or in strict mode, else a skip). A suite "
                  "case's max_seconds applies "
                  "when smaller")
      ->check(CLI::Range(0.0, 86400.0))
      ->type_name("S")
      ->group(kEngineGroup);
  command
      .add_option("--watchdog", e.watchdog,
                  "a library's target runs in a supervised worker process; a call that has not answered "
                  "after the larger of S seconds and 50 x the slowest call so far is killed and the case "
                  "fails as hung (default 60; the case's budget, --max-seconds, is a hard limit too)")
      ->check(CLI::Range(0.1, 86400.0))
      ->type_name("S")
      ->group(kEngineGroup);
  command
      .add_option("--mpi", e.mpi,
                  "distributed mode with this MPI (openmpi, mpich) when the launcher is not recognised "
                  "by its variables (srun with PMIx); under mpirun or mpiexec it is found by itself. Rank "
                  "0 runs the engine and reports; every rank hosts workers (docs/distributed.md)")
      ->envname("FPREV_MPI")
      ->check(CLI::IsMember({"openmpi", "mpich"}))
      ->type_name("IMPL")
      ->group(kEngineGroup);
  command
      .add_option("--streams-per-rank", e.streams_per_rank,
                  "distributed mode: probe streams each MPI rank hosts (default 1: one rank per core is "
                  "the MPI norm); a case uses ranks x K streams unless --streams says fewer")
      ->check(CLI::Range(std::size_t{1}, std::size_t{256}))
      ->type_name("K")
      ->group(kEngineGroup);
  command
      .add_option("--rank-timeout", e.rank_timeout,
                  "distributed mode: the ranks send each other a heartbeat every second; one silent for S "
                  "seconds is lost (killed, crashed, stopped, its node gone): the cases in flight on it fail "
                  "naming it, the others go on without it and the run fails (default 20; the launcher must "
                  "let the job go on: docs/distributed.md)")
      ->check(CLI::Range(0.5, 86400.0))
      ->type_name("S")
      ->group(kEngineGroup);
  command
      .add_option("--worker-memory", e.worker_memory_mb,
                  "resident memory all workers of the run may use together, in MiB: a worker whose "
                  "call takes the total past it is killed and its case fails as crashed (out of memory) "
                  "(default 0: half of this machine's memory; a distributed run divides it among the "
                  "ranks of each node)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30))
      ->type_name("MB")
      ->group(kEngineGroup);
}

void add_json_flag(CLI::App& command, bool& json, const char* what) {
  command.add_flag("--json", json, what)->group(kOutputGroup);
}

void add_strict_flag(CLI::App& command, bool& strict) {
  command.add_flag("--strict", strict, "every skip fails (a missing golden, a backend that cannot run here, a case over its budget), and a "
                   "golden without arithmetic fingerprint (also FPREV_STRICT=1)")
      ->group(kOutputGroup);
}

void add_output_file_option(CLI::App& command, std::optional<std::string>& output) {
  command.add_option("--output", output, "write to FILE instead of stdout")->type_name("FILE")->group(kOutputGroup);
}

void add_picture_options(CLI::App& command, PictureOptions& p) {
  command
      .add_option("--max-nodes", p.max_nodes,
                  "pictures: the most nodes drawn per tree (default " + std::to_string(kDefaultDrawnNodes) +
                      ", at most " + std::to_string(kMaxDrawnNodes) +
                      "); larger trees are drawn by their structure, collapsed parts saying what they hold")
      ->check(CLI::Range(std::size_t{1}, kMaxDrawnNodes))
      ->type_name("N")
      ->group(kOutputGroup);
}

void add_pending_directory_option(CLI::App& command, std::optional<std::string>& directory) {
  command
      .add_option("--pending-dir", directory,
                  "pending results under DIR, in the golden directory's layout (default: beside the goldens, "
                  "as <case>.golden.new; also $FPREV_PENDING_DIR)")
      ->type_name("DIR")
      ->group(kPendingGroup);
}

// Where check keeps what it revealed for review; update removes what it made obsolete.
void add_pending_options(CLI::App& command, PendingOptions& p) {
  add_pending_directory_option(command, p.directory);
  CLI::Option* keep =
      command
          .add_flag("--pending", p.keep,
                    "keep pending results in CI too (the environment variable CI set; elsewhere they are kept "
                    "unless --no-pending)")
          ->group(kPendingGroup);
  command.add_flag("--no-pending", p.none, "keep no pending results, remove none")
      ->group(kPendingGroup)
      ->excludes(keep)
      ->excludes("--pending-dir");
}

void add_gate_options(CLI::App& command, GateOptions& g) {
  add_selection_options(command, g.selection, true);
  add_pending_options(command, g.pending);
  add_engine_options(command, g.engine, true);
  add_json_flag(command, g.json, "the report as one JSON document on stdout (docs/json.md)");
  add_strict_flag(command, g.strict);
  command.add_flag("--quiet", g.quiet, "no progress: no line on the terminal, none in a log")->group(kOutputGroup);
  CLI::Option* only_failures =
      command
          .add_flag("--only-failures", g.only_failures,
                    "the summary table lists only the cases that did not pass, and counts the others (the "
                    "default on a terminal when no case failed)")
          ->group(kOutputGroup);
  command.add_flag("--all-rows", g.all_rows, "the summary table lists every case (the default in a log or pipe)")
      ->group(kOutputGroup)
      ->excludes(only_failures);
  command
      .add_option("--spread", g.spread,
                  "distributed mode (mpirun -np N): 'cases' runs whole cases side by side, one per rank "
                  "with --streams-per-rank streams each, like ctest -j across hosts; 'waves' runs cases one "
                  "after another, each wave's probes over every rank; 'auto' (default): cases when the "
                  "selection has more cases than there are ranks, waves otherwise")
      ->check(CLI::IsMember({"auto", "cases", "waves"}))
      ->type_name("HOW")
      ->group(kEngineGroup);
  command
      .add_option("--jobs,-j", g.jobs,
                  "whole cases side by side, like ctest -j: N at a time, each with a runner and workers of "
                  "its own and (without --streams) cores / N probe streams; reports and goldens stay in "
                  "the selection's order; a case whose library runs several threads (threads: 2) runs alone "
                  "(default 1; 0: one per core; distributed mode spreads over its ranks instead, --spread)")
      ->envname("FPREV_JOBS")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)  // scripts/gate passes one; the user's wins
      ->check(CLI::Range(0, 1024))
      ->type_name("N")
      ->group(kEngineGroup);
  command
      .add_option("--max-estimate", g.max_estimate,
                  "refuse, before it runs, a case whose reveal is estimated (fewest probes of the model x the "
                  "measured call time) to take more than S seconds (default 3600; 0: no estimate)")
      ->check(CLI::Range(0.0, 1e9))
      ->type_name("S")
      ->group(kEngineGroup);
}

// ---- the sub-commands -----------------------------------------------------------------------------

// --golden, --pending-dir and the filters of review, accept and reject.
void add_pending_selection_options(CLI::App& command, PendingSelectionOptions& s) {
  command.add_option("--golden", s.golden, "the golden directory (default ./golden or $FPREV_GOLDEN_DIR)")
      ->type_name("DIR")
      ->group(kSelectionGroup);
  add_pending_directory_option(command, s.directory);
  const std::pair<const char*, std::vector<std::string>*> filters[] = {
      {"--suite", &s.suites}, {"--backend", &s.backends}, {"--case", &s.cases}, {"--platform", &s.platforms}};
  const char* what[] = {"suites", "backend instances", "case ids", "platform keys"};
  for (std::size_t k = 0; k < 4; ++k)
    command
        .add_option(filters[k].first, *filters[k].second,
                    std::string("only pending results whose ") + what[k] + " match (glob, repeatable)")
        ->allow_extra_args(false)
        ->type_name("GLOB")
        ->group(kSelectionGroup);
}

struct Commands {
  ListOptions list;
  GateOptions check;
  GateOptions update;
  ReviewOptions review;
  ResolveOptions accept;
  ResolveOptions reject;
  DiffCommandOptions diff;
  ShowOptions show;
  RevealCommandOptions reveal;
  EnvOptions env;
  TraceOptions trace;
};

CLI::App* add_list(CLI::App& app, ListOptions& o) {
  CLI::App* c = app.add_subcommand("list", "the expanded cases of the suites");
  add_selection_options(*c, o.selection, false);
  add_json_flag(*c, o.json, "the cases as one JSON document on stdout (docs/json.md)");
  add_strict_flag(*c, o.strict);
  c->add_option("--cmake-tests", o.cmake_tests,
                "print CTest add_test() calls running EXE (fprev_add_reproducibility_suites uses it)")
      ->type_name("EXE")
      ->group(kOutputGroup);
  c->footer("e.g. fprev-golden list --suite blas-cpu --case 'gemm-*'");
  return c;
}

CLI::App* add_check(CLI::App& app, GateOptions& o) {
  CLI::App* c = app.add_subcommand(
      "check", "the gate: reveal every selected case and compare it with its golden");
  add_gate_options(*c, o);
  c->add_flag("--ctest", o.ctest,
              "run exactly one case for a CTest test: exit 77 when skipped, absolute paths in the "
              "printed accept command")
      ->group(kOutputGroup);
  c->add_option("--html", o.html,
                "also write a self-contained HTML report to FILE: the summary, and per failing case its "
                "identities, diff and picture (pictures need Graphviz), diagnostics and skips")
      ->type_name("FILE")
      ->group(kOutputGroup);
  add_picture_options(*c, o.picture);
  c->add_option_function<std::string>(
       "--unreferenced",
       [&o](const std::string& policy) {
         o.unreferenced = policy == "fail"     ? UnreferencedPolicy::fail
                          : policy == "delete" ? UnreferencedPolicy::remove
                                               : UnreferencedPolicy::warn;
       },
       "goldens no case refers to any more: warn (default: list them), fail (list them and fail) or delete "
       "(those that read as goldens of their paths; refused in CI unless --force)")
      ->check(CLI::IsMember({"warn", "fail", "delete"}))
      ->type_name("POLICY")
      ->group(kOutputGroup);
  c->add_flag("--force", o.force, "--unreferenced=delete even when CI is set")->group(kOutputGroup);
  c->add_flag("--no-overlays", o.no_overlays,
              "compare with the default goldens only, never with an overlay recorded for the running "
              "library (docs/golden-format.md): what a new library release changed against the default set")
      ->group(kSelectionGroup);
  c->add_flag("--allow-nothing", o.allow_nothing,
              "exit 0 although nothing was compared or recorded (0 passed, 0 failed: every case skipped); "
              "without it such a check or update fails, so that a gate is never green when it tested nothing")
      ->group(kOutputGroup);
  c->footer(
      "the revealed result of every case that needs accepting is kept for review as <case>.golden.new\n"
      "(fprev-golden review; not in CI unless --pending or --pending-dir)\n"
      "e.g. fprev-golden check suites/blas-cpu.yaml\n"
      "     fprev-golden check --suite blas-cpu --case 'gemm-*' --json");
  return c;
}

CLI::App* add_update(CLI::App& app, GateOptions& o) {
  CLI::App* c = app.add_subcommand(
      "update",
      "re-baseline: write the goldens of the selected cases (atomically), print created / changed / "
      "unchanged; refuses when the environment variable CI is set, unless --force");
  add_gate_options(*c, o);
  c->add_flag("--force", o.force, "write goldens even when CI is set")->group(kOutputGroup);
  CLI::Option* overlay =
      c->add_flag("--overlay", o.overlay,
                  "write a result that differs from the case's default golden as an overlay for the running "
                  "library (the default golden stays; an overlay that equals it is removed): goldens for a "
                  "second release of a library beside the first (docs/golden-format.md)")
          ->group(kSelectionGroup);
  c->add_flag("--no-overlays", o.no_overlays, "write the default goldens, also where an overlay for the running "
                                              "library exists")
      ->group(kSelectionGroup)
      ->excludes(overlay);
  c->footer("e.g. fprev-golden update --suite blas-cpu --backend openblas --case 'dot-*'");
  return c;
}

CLI::App* add_review(CLI::App& app, ReviewOptions& o) {
  CLI::App* c = app.add_subcommand(
      "review",
      "walk the pending results check kept: per case its summary and diff, the picture on request, and "
      "accept / reject / skip; reads the answers from stdin (scripted input works); refuses when CI is set, "
      "unless --force");
  add_pending_selection_options(*c, o.selection);
  add_picture_options(*c, o.picture);
  c->add_option("--picture-dir", o.picture_directory,
                "write the pictures asked for (answer p) into DIR and keep them (default: a temporary "
                "directory removed when review ends)")
      ->type_name("DIR")
      ->group(kOutputGroup);
  c->add_flag("--force", o.force,
              "review even when CI is set, and accept over a golden that changed since check kept the result")
      ->group(kOutputGroup);
  c->footer(
      "answers: a accept, r reject, s skip, p picture (SVG, or DOT without Graphviz), d diff again, q quit, ? help\n"
      "e.g. fprev-golden review --suite blas-cpu\n"
      "     printf 'a\\nr\\n' | fprev-golden review");
  return c;
}

CLI::App* add_accept(CLI::App& app, ResolveOptions& o) {
  CLI::App* c = app.add_subcommand(
      "accept",
      "accept the selected pending results: write each as its golden (atomically) and remove it; refuses a "
      "golden that changed since check kept the result, and refuses when CI is set, unless --force");
  add_pending_selection_options(*c, o.selection);
  add_json_flag(*c, o.json, "what was done as one JSON document on stdout (docs/json.md)");
  c->add_flag("--force", o.force,
              "accept even when CI is set, and over a golden that changed since check kept the result")
      ->group(kOutputGroup);
  c->footer("e.g. fprev-golden accept --suite blas-cpu --case 'dot-*'");
  return c;
}

CLI::App* add_reject(CLI::App& app, ResolveOptions& o) {
  CLI::App* c = app.add_subcommand("reject", "delete the selected pending results (the goldens stay as they are)");
  add_pending_selection_options(*c, o.selection);
  add_json_flag(*c, o.json, "what was done as one JSON document on stdout (docs/json.md)");
  c->footer("e.g. fprev-golden reject --backend openblas-haswell");
  return c;
}

CLI::App* add_diff(CLI::App& app, DiffCommandOptions& o) {
  CLI::App* c = app.add_subcommand(
      "diff", "compare two goldens or trees (exit 1 when they differ)");
  c->add_option("OLD", o.old_input, "a golden file, a file holding an S-expression, or an S-expression")
      ->required()
      ->type_name("");
  c->add_option("NEW", o.new_input, "the same for the new tree")->required()->type_name("");
  c->add_option("--format", o.format,
                "text (default), json, dot or svg (needs Graphviz): a picture of both trees side by side, "
                "what differs in red")
      ->check(CLI::IsMember({"text", "json", "dot", "svg"}))
      ->type_name("FORMAT")
      ->group(kOutputGroup);
  c->add_flag("--json", o.json, "the same as --format json (docs/json.md)")->group(kOutputGroup)->excludes("--format");
  add_output_file_option(*c, o.output);
  add_picture_options(*c, o.picture);
  c->footer(
      "e.g. fprev-golden diff golden/any/reference/reference/sum-float32-pairwise-n7.golden '((0 1) 2)'\n"
      "     fprev-golden diff OLD.golden NEW.golden --format svg --output diff.svg");
  return c;
}

CLI::App* add_show(CLI::App& app, ShowOptions& o) {
  CLI::App* c = app.add_subcommand("show", "render a golden or tree");
  c->add_option("TREE", o.input, "a golden file, a file holding an S-expression, or an S-expression")
      ->required()
      ->type_name("");
  c->add_option("--format", o.format, "text (default), sexpr, summary, dot, svg (needs Graphviz) or json")
      ->check(CLI::IsMember({"text", "sexpr", "summary", "dot", "svg", "json"}))
      ->type_name("FORMAT")
      ->group(kOutputGroup);
  c->add_flag("--json", o.json, "the same as --format json")->group(kOutputGroup)->excludes("--format");
  add_output_file_option(*c, o.output);
  add_picture_options(*c, o.picture);
  return c;
}

CLI::App* add_reveal(CLI::App& app, RevealCommandOptions& o) {
  CLI::App* c = app.add_subcommand("reveal", "reveal one target given on the command line");
  // Backend settings and case parameters are the backend's own (backend_options.hpp): they are
  // parsed, and their help printed, once --backend is known.
  c->allow_extras();
  c->set_help_flag();
  c->add_flag("-h,--help", o.help, "this help; with --backend, also the backend's options");
  c->add_option("--backend", o.backend, "the backend: " + builtin_backends().names())->type_name("NAME");
  c->add_option("--format", o.format, "sexpr (default), text or json")
      ->check(CLI::IsMember({"sexpr", "text", "json"}))
      ->type_name("FORMAT")
      ->group(kOutputGroup);
  c->add_flag("--json", o.json, "the same as --format json (docs/json.md)")->group(kOutputGroup)->excludes("--format");
  c->add_option("--invariant", o.invariant,
                "PARAM=V1,V2,...: is the order the same at every value of PARAM (a case parameter such as m, or "
                "a setting such as threads), element by element over the outputs both have? runs=N: in N fresh "
                "instances (worker processes). Repeatable (docs/invariance.md)")
      ->type_name("PARAM=VALUES")
      ->allow_extra_args(false);
  add_engine_options(*c, o.engine, false);
  c->footer(
      "backend settings (--library, --threads, --arch, ...) and case parameters (--op, --dtype, --n,\n"
      "--order, ...) depend on the backend: fprev-golden reveal --backend NAME --help lists them.\n"
      "--seed is the backend's own parameter where it has one (reference: the random_tree seed),\n"
      "else the same as --reveal-seed.\n"
      "e.g. fprev-golden reveal --backend reference --order strided_pairwise --lanes 8 --n 32 --format text\n"
      "     fprev-golden reveal --backend blas --op gemm --dtype float32 --m 64 --n 64 --k 256");
  return c;
}

CLI::App* add_env(CLI::App& app, EnvOptions& o) {
  CLI::App* c = app.add_subcommand("env", "the platform fingerprint and which backends are usable here");
  add_json_flag(*c, o.json, "as one JSON document on stdout (docs/json.md)");
  return c;
}

CLI::App* add_trace(CLI::App& app, TraceOptions& o) {
  CLI::App* c = app.add_subcommand(
      "trace", "run a program and write a suite of the BLAS calls it makes (docs/trace.md)");
  c->add_option("--output,-o", o.output, "the suite to write (atomically)")->required()->type_name("FILE");
  c->add_option("--top", o.top, "only the N most frequent distinct calls (default: all)")->type_name("N");
  c->add_option("--min-count", o.min_count, "only calls made at least C times (default 1)")
      ->type_name("C")
      ->check(CLI::PositiveNumber);
  c->add_option("--merge", o.merge, "add the new cases to this suite (written to --output) instead of a new suite")
      ->type_name("SUITE");
  c->add_option("COMMAND", o.command, "the program and its arguments, after --")->type_name("")->required();
  c->footer("usage: fprev-golden trace --output FILE [--top N] [--min-count C] [--merge SUITE] -- COMMAND [ARGS...]\n"
            "The program runs with an interposer preloaded (LD_PRELOAD) that forwards every CBLAS and Fortran "
            "BLAS call to the real library unchanged and records it. Its exit status: 0 the suite was written (also "
            "when the program failed: the report says how it ended); 1 the program made no BLAS call the gate "
            "reveals; 2 usage error");
  return c;
}

void print_reveal_help(const CLI::App& reveal, const RevealCommandOptions& o) {
  std::cout << reveal.help("fprev-golden");
  if (o.backend.empty()) return;
  const Backend* backend = builtin_backends().find(o.backend);
  if (backend == nullptr)
    throw UsageError(builtin_backends().unknown_backend_message(o.backend));
  std::cout << "\n" << backend_options_help(*backend);
}

// The long option names `command` takes, "--suite", for suggestions.
std::vector<std::string> long_option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options())
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  return names;
}

// "; did you mean --suite?" for each option in `arguments` that `command` does not take and that is
// close to one it does ("--suit: did you mean --suite?" when several are unknown).
std::string option_suggestions(const CLI::App* command, const std::vector<std::string>& arguments) {
  if (command == nullptr) return "";
  const std::vector<std::string> names = long_option_names(*command);
  std::vector<std::pair<std::string, std::string>> guesses;
  for (const std::string& argument : arguments) {
    if (argument.rfind("--", 0) != 0 || argument == "--") continue;
    const std::string option = argument.substr(0, argument.find('='));
    if (std::find(names.begin(), names.end(), option) != names.end()) continue;
    if (const auto guess = closest_name(option, names)) guesses.emplace_back(option, *guess);
  }
  std::string text;
  for (const auto& [option, guess] : guesses)
    text += "; " + (guesses.size() > 1 ? option + ": " : std::string()) + "did you mean " + guess + "?";
  return text;
}

// `fprev-golden help [COMMAND]` is `fprev-golden [COMMAND] --help`.
void rewrite_help_command(std::vector<std::string>& arguments) {
  if (arguments.empty() || arguments.front() != "help") return;
  arguments.erase(arguments.begin());
  arguments.emplace_back("--help");
}

}  // namespace

const std::vector<std::string>& command_names() {
  static const std::vector<std::string> names = {"list", "check",  "update", "review", "accept",
                                                 "reject", "diff", "show", "reveal", "env", "trace"};
  return names;
}

int run_command_line(const std::string& program, std::vector<std::string> arguments,
                     std::string& command) {
  CLI::App app("fprev-golden: reveal, gate and re-baseline floating-point accumulation orders",
               "fprev-golden");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("fprev-golden ") + kToolVersion);
  app.footer(std::string(kExitFooter) + "\n" + kFooter);
  app.get_formatter()->column_width(34);

  Commands o;
  o.check.program = o.update.program = program;
  CLI::App* list = add_list(app, o.list);
  CLI::App* check = add_check(app, o.check);
  CLI::App* update = add_update(app, o.update);
  CLI::App* review = add_review(app, o.review);
  CLI::App* accept = add_accept(app, o.accept);
  CLI::App* reject = add_reject(app, o.reject);
  CLI::App* diff = add_diff(app, o.diff);
  CLI::App* show = add_show(app, o.show);
  CLI::App* reveal = add_reveal(app, o.reveal);
  CLI::App* env = add_env(app, o.env);
  CLI::App* trace = add_trace(app, o.trace);

  for (CLI::App* c : {list, check, update, review, accept, reject, diff, show, reveal, env, trace}) {
    const std::string own = c->get_footer();
    c->footer(own.empty() ? std::string(kExitFooter) : own + "\n" + kExitFooter);
  }

  rewrite_help_command(arguments);
  if (arguments.empty()) {
    std::cerr << app.help();
    return kExitUsage;
  }
  const std::string& first = arguments.front();
  if (std::find(command_names().begin(), command_names().end(), first) != command_names().end()) {
    command = first;
  } else if (first.rfind("-", 0) != 0) {
    std::string names;
    for (const auto& name : command_names()) names += (names.empty() ? "" : ", ") + name;
    throw UsageError("unknown command '" + first + "'" + did_you_mean(first, command_names()) + "; commands: " + names);
  }
  const std::vector<std::string> given = arguments;

  std::reverse(arguments.begin(), arguments.end());  // CLI11 consumes the vector from its end
  try {
    app.parse(arguments);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();  // the help of the sub-command given, if any
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << "\n";
    return kExitOk;
  } catch (const CLI::ExtrasError& e) {
    throw UsageError(e.what() + option_suggestions(command.empty() ? &app : app.get_subcommand(command), given));
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }

  // Libraries run in the gate's own process only as a debugging aid, never in CI; and while a
  // command runs, no exit() from them can end the process with a status of their choosing.
  refuse_in_process_targets_in_ci();
  const ExitGuard exit_guard(command);
  if (app.got_subcommand(list)) return run_list(o.list);
  if (app.got_subcommand(check)) return run_check(o.check);
  if (app.got_subcommand(update)) return run_update(o.update);
  if (app.got_subcommand(review)) return run_review(o.review);
  if (app.got_subcommand(accept)) return run_accept(o.accept);
  if (app.got_subcommand(reject)) return run_reject(o.reject);
  if (app.got_subcommand(diff)) return run_diff(o.diff);
  if (app.got_subcommand(show)) return run_show(o.show);
  if (app.got_subcommand(env)) return run_env(o.env);
  if (app.got_subcommand(trace)) return run_trace(o.trace);
  if (app.got_subcommand(reveal)) {
    if (o.reveal.help) {
      print_reveal_help(*reveal, o.reveal);
      return kExitOk;
    }
    o.reveal.backend_arguments = reveal->remaining();
    return run_reveal(o.reveal);
  }
  throw UsageError("no command given");  // require_subcommand(1) makes this unreachable
}

}  // namespace fprev::cli
