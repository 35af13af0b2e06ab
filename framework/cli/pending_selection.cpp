#include "pending_selection.hpp"

#include <algorithm>
#include <cctype>

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

namespace {

// "n17" before "n1000": runs of digits compare by their value, the rest by character, so the
// cases of a suite come in the order of their sizes, as the suite lists them.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei])) != 0) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej])) != 0) ++ej;
      std::size_t si = i, sj = j;  // leading zeros do not count
      while (si + 1 < ei && a[si] == '0') ++si;
      while (sj + 1 < ej && b[sj] == '0') ++sj;
      if (ei - si != ej - sj) return ei - si < ej - sj;
      if (const int c = a.compare(si, ei - si, b, sj, ej - sj); c != 0) return c < 0;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

bool natural_path_less(const std::filesystem::path& a, const std::filesystem::path& b) {
  return natural_less(a.string(), b.string());
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
  PendingSelection selection{PendingStore(golden_root, directory.value_or(std::filesystem::path())), {}, {}, false, false};
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
  if (selection.filtered && selection.files.empty()) {
    const auto selected = [&](const GoldenLocation& l) {
      return matches_any(options.suites, l.suite) && matches_any(options.backends, l.backend) &&
             matches_any(options.cases, l.case_id) && matches_any(options.platforms, l.platform_key);
    };
    const std::vector<GoldenLocation> goldens = list_goldens(golden_root).goldens;
    selection.filters_name_nothing = std::none_of(goldens.begin(), goldens.end(), selected);
  }
  std::stable_sort(selection.files.begin(), selection.files.end(), [](const PendingFile& a, const PendingFile& b) {
    return natural_path_less(a.location.path, b.location.path);
  });
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
