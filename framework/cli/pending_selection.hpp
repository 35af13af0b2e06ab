// Where pending results are (fprev/pending.hpp) for each command: the store check and update keep
// them in, and the pending results review, accept and reject select by their filters.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fprev/pending.hpp"
#include "options.hpp"

namespace fprev::cli {

// --pending-dir DIR, else $FPREV_PENDING_DIR; nullopt: beside the goldens.
std::optional<std::filesystem::path> pending_directory(const std::optional<std::string>& option);

// The store check and update keep pending results in, or none: --no-pending keeps none; in CI
// (the environment variable CI set) only --pending, --pending-dir or FPREV_PENDING_DIR asks for
// them; elsewhere they are kept beside the goldens unless a directory is named.
std::optional<PendingStore> pending_store_for(const PendingOptions& options, const std::filesystem::path& golden_root);

struct PendingSelection {
  PendingStore store;
  std::vector<PendingFile> files;            // after the filters, in natural_path_less order
  std::vector<std::filesystem::path> stray;  // *.golden.new outside the layout (never acted on)
  bool filtered = false;                     // some filter was given
  // The filters select nothing that exists: no pending result and no golden (a typo in a glob).
  bool filters_name_nothing = false;
};

// Paths in natural order: runs of digits compare by value, so ".../dot-n17" comes before
// ".../dot-n1000" as in the suite.
bool natural_path_less(const std::filesystem::path& a, const std::filesystem::path& b);

// The pending results under the store the options name that match the filters.
PendingSelection select_pending(const PendingSelectionOptions& options);

// "--golden DIR" and "--pending-dir DIR" for a printed command: those given on the command line
// (absolute: both, made absolute), so the command finds the same files.
std::vector<std::string> pending_arguments(const PendingStore& store, bool golden_given, bool directory_given,
                                           bool absolute);

}  // namespace fprev::cli
