// What the command line of each sub-command parses into (cli_app.cpp defines the options, once
// each; the commands read these structs and never see argv).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fprev/drawing.hpp"
#include "fprev/suite.hpp"

namespace fprev::cli {

// Which suites and cases: list, check and update.
struct SelectionOptions {
  std::vector<std::string> suite_paths;  // --suites PATH (repeatable)
  std::vector<std::string> positional;   // SUITE_PATH... (the same as --suites)
  std::optional<std::string> golden;     // --golden DIR
  std::vector<std::string> suites;       // --suite GLOB
  std::vector<std::string> backends;     // --backend GLOB
  std::vector<std::string> cases;        // --case GLOB
  std::vector<std::string> excluded_labels;  // --exclude-label LABEL: not the cases carrying it
  std::vector<std::string> labels;           // --label LABEL: only the cases carrying one of them
  // check and update: the opt-in labels (long) leave their cases out unless --label names them,
  // as `ctest -L reproducibility` does; list lists every case (CTest discovers the long ones too).
  bool leave_out_opt_in = false;
  std::uint64_t max_cases = kMaxRunCases;    // --max-cases N: the cases of all suite files together
};

// How the revelation engine runs: check, update and reveal.
struct EngineOptions {
  std::optional<std::string> algorithm;  // fprev | basic | naive
  std::optional<std::uint64_t> seed;     // --reveal-seed (check/update: also --seed)
  std::size_t streams = 0;               // --streams N: probe streams per case (0: auto, one per core)
  double max_seconds = 0.0;              // --max-seconds S: time budget of a reveal / of each case (0: none)
  bool no_sibling_guesses = false;       // --no-sibling-guesses: FPRev's Alg. 4 as published
  bool no_pair_grid = false;             // --no-pair-grid: a GEMM map's probes in rounds only
  bool prove_every_element = false;      // --prove-every-element: a map's every element proven in full
  double watchdog = 60.0;                // --watchdog S: the least time before a worker is declared hung
  std::size_t worker_memory_mb = 0;      // --worker-memory MB: a worker's resident memory limit (0: half the RAM)
  bool no_alignment_check = false;       // --no-alignment-check: offset 0 only (fprev/alignment.hpp)
  std::string mpi;                       // --mpi IMPL (FPREV_MPI): distributed mode with that MPI
  std::size_t streams_per_rank = 1;      // --streams-per-rank K: probe streams each rank hosts
  double rank_timeout = 20.0;            // --rank-timeout S: a rank silent this long is lost
};

// The pictures of show and diff (dot, svg) and of check --html.
struct PictureOptions {
  std::size_t max_nodes = kDefaultDrawnNodes;  // --max-nodes: drawn nodes per tree
};

struct ListOptions {
  SelectionOptions selection;
  bool json = false;
  bool strict = false;
  std::optional<std::string> cmake_tests;  // --cmake-tests EXE
};

// Where check keeps pending results, and whether it does: check and update.
struct PendingOptions {
  bool keep = false;                       // --pending: also in CI
  bool none = false;                       // --no-pending
  std::optional<std::string> directory;    // --pending-dir DIR (else $FPREV_PENDING_DIR, else beside the goldens)
};

// What check does with goldens no case refers to any more.
enum class UnreferencedPolicy { warn, fail, remove };

struct GateOptions {
  std::string program;  // argv[0]: the accept command names the program as it was run
  SelectionOptions selection;
  EngineOptions engine;
  PendingOptions pending;
  bool json = false;
  bool strict = false;  // also FPREV_STRICT
  bool ctest = false;   // check only
  bool force = false;   // update: write in CI; check: --unreferenced=delete in CI
  bool quiet = false;
  bool allow_nothing = false;  // check: 0 passed and 0 failed is not a failure
  bool no_overlays = false;    // --no-overlays: the default goldens only (RunnerOptions::use_overlays)
  bool overlay = false;        // update --overlay: what differs goes to the library's overlay
  bool only_failures = false;  // --only-failures: the table lists the cases that did not pass
  bool all_rows = false;       // --all-rows: every case, also on a terminal when all passed
  double max_estimate = 3600.0;  // --max-estimate S: refuse cases estimated beyond it (0: no estimate)
  std::string spread = "auto";   // --spread auto|cases|waves: what a distributed run spreads over ranks
  std::size_t jobs = 1;          // --jobs N: cases side by side in a serial run (0: one per core)
  UnreferencedPolicy unreferenced = UnreferencedPolicy::warn;  // check --unreferenced
  std::optional<std::string> html;  // check --html FILE: a self-contained report
  PictureOptions picture;           // ... its pictures
};

// Which pending results review, accept and reject work on.
struct PendingSelectionOptions {
  std::optional<std::string> golden;       // --golden DIR
  std::optional<std::string> directory;    // --pending-dir DIR
  std::vector<std::string> suites;         // --suite GLOB
  std::vector<std::string> backends;       // --backend GLOB
  std::vector<std::string> cases;          // --case GLOB
  std::vector<std::string> platforms;      // --platform GLOB
};

struct ReviewOptions {
  PendingSelectionOptions selection;
  PictureOptions picture;
  std::optional<std::string> picture_directory;  // --picture-dir: pictures kept there
  bool force = false;  // review in CI; accept over a golden that changed since check
};

// accept and reject.
struct ResolveOptions {
  PendingSelectionOptions selection;
  bool force = false;  // accept: in CI, and over a golden that changed since check
  bool json = false;
};

struct RevealCommandOptions {
  std::string backend;
  std::optional<std::string> format;  // sexpr | text | json
  bool json = false;
  EngineOptions engine;
  // Backend settings and case parameters, as left over by the first parse; their names come from
  // the backend (backend_options.hpp).
  std::vector<std::string> backend_arguments;
  bool help = false;
  // --invariant PARAM=V1,V2,... (repeatable; runs=N): invariance contracts (fprev/invariance.hpp)
  std::vector<std::string> invariant;
};

struct ShowOptions {
  std::string input;
  std::optional<std::string> format;  // text | sexpr | summary | dot | svg | json
  bool json = false;
  std::optional<std::string> output;
  PictureOptions picture;
};

struct DiffCommandOptions {
  std::string old_input;
  std::string new_input;
  std::optional<std::string> format;  // text | json | dot | svg
  bool json = false;
  std::optional<std::string> output;
  PictureOptions picture;
};

struct EnvOptions {
  bool json = false;
};

// trace: run a program under the BLAS interposer and write a suite of its calls (docs/trace.md).
struct TraceOptions {
  std::filesystem::path output;          // --output FILE
  std::size_t top = 0;                   // --top N: the N most frequent cases (0: all)
  std::uint64_t min_count = 1;           // --min-count C: cases with fewer calls are left out
  std::optional<std::string> merge;      // --merge SUITE: add to that suite
  std::vector<std::string> command;      // after --
};

}  // namespace fprev::cli
