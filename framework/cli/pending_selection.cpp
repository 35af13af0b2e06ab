#include "pending_selection.hpp"

#include "environment.hpp"
#include "exit_status.hpp"
#include "selection.hpp"

namespace fprev::cli {

std::optional<std::filesystem::path> pending_directory(const std::optional<std::string>& option) {
  if (option) return std::filesystem::path(*option);
  if (auto value = environment_value("FPREV_PENDING_DIR")) return std::filesystem::path(*value);
  return std::nullopt;
}

std::optional<PendingStore> pending_store_for(const PendingOptions& options, const std::filesystem::path& golden_root) {
  if (options.none) return std::nullopt;
  const auto directory = pending_directory(options.directory);
  if (!options.keep && !directory && environment_flag("CI")) return std::nullopt;
  return PendingStore(golden_root, directory.value_or(std::filesystem::path()));
}

PendingSelection select_pending(const PendingSelectionOptions& options) {
  const std::filesystem::path golden_root = resolve_golden_root(options.golden);
  const auto directory = pending_directory(options.directory);
  if (directory && std::filesystem::exists(*directory) && !std::filesystem::is_directory(*directory))
    throw UsageError("--pending-dir " + directory->string() + " is not a directory");
  // A directory the user named that is not there is a typo, never "nothing to do" (exit 0), as
  // for check. Pending results live beside the goldens unless a pending directory is named.
  const bool golden_named = options.golden.has_value() || environment_value("FPREV_GOLDEN_DIR").has_value();
  if (golden_named && !directory && !std::filesystem::is_directory(golden_root))
    throw UsageError("the golden directory " + golden_root.string() + " does not exist (named with " +
                     (options.golden ? "--golden" : "FPREV_GOLDEN_DIR") +
                     "); the pending results of check are kept beside the goldens there. Fix the path");
  if (directory && !std::filesystem::is_directory(*directory))
    throw UsageError("the pending directory " + directory->string() + " does not exist (named with " +
                     (options.directory ? "--pending-dir" : "FPREV_PENDING_DIR") + "). Fix the path");
  PendingSelection selection{PendingStore(golden_root, directory.value_or(std::filesystem::path())), {}, {}, false};
  PendingListing listing = selection.store.list();
  selection.stray = std::move(listing.stray);
  selection.filtered = !options.suites.empty() || !options.backends.empty() || !options.cases.empty() ||
                       !options.platforms.empty();
  for (PendingFile& file : listing.files) {
    const GoldenLocation& l = file.location;
    if (matches_any(options.suites, l.suite) && matches_any(options.backends, l.backend) &&
        matches_any(options.cases, l.case_id) && matches_any(options.platforms, l.platform_key))
      selection.files.push_back(std::move(file));
  }
  return selection;
}

std::vector<std::string> pending_arguments(const PendingStore& store, bool golden_given, bool directory_given,
                                           bool absolute) {
  const auto path = [&](const std::filesystem::path& p) {
    return absolute ? std::filesystem::absolute(p).lexically_normal().string() : p.string();
  };
  std::vector<std::string> arguments;
  if (golden_given || absolute) arguments.insert(arguments.end(), {"--golden", path(store.golden_root())});
  if (!store.beside_goldens() && (directory_given || absolute))
    arguments.insert(arguments.end(), {"--pending-dir", path(store.root())});
  return arguments;
}

}  // namespace fprev::cli
