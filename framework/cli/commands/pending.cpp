// fprev-golden review, accept and reject: what becomes of the pending results check kept
// (fprev/pending.hpp).
#include <unistd.h>

#include <iostream>

#include "../commands.hpp"
#include "../environment.hpp"
#include "../exit_status.hpp"
#include "../pending_selection.hpp"
#include "../report/json.hpp"
#include "../review_session.hpp"

namespace fprev::cli {
namespace {

std::string pending_test_name(const GoldenLocation& l) {
  return "reproducibility/" + l.suite + "/" + l.backend + "/" + l.case_id;
}

// Where the pending results were looked for, for messages.
std::string where(const PendingStore& store) {
  return store.beside_goldens() ? "beside the goldens in " + store.golden_root().string() : store.root().string();
}

// Files named like pending results outside the layout are never acted on; say so.
void warn_about_stray(const PendingSelection& selection) {
  for (const auto& path : selection.stray)
    std::cerr << "warning: " << path.string()
              << " is outside the <platform>/<suite>/<backend>/<case>.golden.new layout: ignored\n";
}

// "no pending results ..." on stderr; true when there is nothing to do. Filters that name no
// pending result and no golden either are a mistake (a typo in a glob), exit 2 as for check: an
// accept that did nothing must not look like one that did. Filters naming cases that exist but
// have nothing pending: nothing to do, exit 0.
bool nothing_selected(const PendingSelection& selection, const char* command) {
  if (!selection.files.empty()) return false;
  if (selection.filters_name_nothing)
    throw UsageError("no pending results match the filters (--suite, --backend, --case, --platform), and no golden "
                     "either (looked " + where(selection.store) + "); a typo? fprev-golden review lists what is pending");
  std::cerr << "fprev-golden " << command << ": no pending results" << (selection.filtered ? " match the filters" : "")
            << " (looked " << where(selection.store) << ")\n";
  return true;
}

// One pending result after accept or reject.
struct Resolution {
  const PendingFile* file = nullptr;
  std::string outcome;  // created | changed | unchanged | repaired | rejected | refused
  std::string change;   // accept: what it changed (pending_change)
  std::string message;  // refused: why
};

Json resolution_to_json(const Resolution& r) {
  const GoldenLocation& l = r.file->location;
  Json json = Json::object();
  json["test"] = pending_test_name(l);
  json["suite"] = l.suite;
  json["backend"] = l.backend;
  json["case"] = l.case_id;
  json["platform_key"] = l.platform_key;
  json["pending_file"] = l.path.string();
  json["golden_path"] = r.file->golden_path.string();
  json["outcome"] = r.outcome;
  json["change"] = r.change.empty() ? Json(nullptr) : Json(r.change);
  json["message"] = r.message.empty() ? Json(nullptr) : Json(r.message);
  return json;
}

// The report of accept or reject: a line per result and the counts, or one JSON document.
int report(const char* command, const PendingSelection& selection, const std::vector<Resolution>& resolutions,
           bool json) {
  std::size_t done = 0, refused = 0;
  for (const Resolution& r : resolutions) (r.outcome == "refused" ? refused : done) += 1;
  const std::string summary = std::to_string(done) + (std::string(command) == "accept" ? " accepted, " : " rejected, ") +
                              std::to_string(refused) + " refused";
  if (json) {
    Json document = json_document(command);
    document["pending_dir"] = selection.store.root().string();
    document["golden_dir"] = selection.store.golden_root().string();
    Json results = Json::array();
    for (const Resolution& r : resolutions) results.push_back(resolution_to_json(r));
    document["results"] = std::move(results);
    const bool accept = std::string(command) == "accept";
    document["counts"] = {{"accepted", accept ? done : 0}, {"rejected", accept ? 0 : done}, {"refused", refused}};
    document["summary"] = summary;
    write_json(std::cout, document);
  } else {
    for (const Resolution& r : resolutions) {
      const GoldenLocation& l = r.file->location;
      if (r.outcome == "refused") {
        std::cout << "REFUSED " << pending_test_name(l) << ": " << r.message << "\n";
      } else if (r.outcome == "rejected") {
        std::cout << "REJECTED " << pending_test_name(l) << " (removed " << l.path.string() << ")\n";
      } else {
        std::cout << "ACCEPTED " << pending_test_name(l) << ": " << r.change << "\n  " << r.file->golden_path.string() << " "
                  << r.outcome << "\n";
      }
    }
    std::cout << summary << "\n";
  }
  return refused == 0 ? kExitOk : kExitFailure;
}

// accept or reject: `act` on every selected pending result; one that throws (PendingError,
// GoldenIoError: nothing was changed) is refused, with the reason.
template <class Act>
int resolve(const char* command, const ResolveOptions& options, Act act) {
  const PendingSelection selection = select_pending(options.selection);
  warn_about_stray(selection);
  if (nothing_selected(selection, command)) return options.json ? report(command, selection, {}, true) : kExitOk;
  std::vector<Resolution> resolutions;
  for (const PendingFile& file : selection.files) {
    Resolution r{&file, "", "", ""};
    try {
      act(selection.store, file, r);
    } catch (const std::exception& e) {
      r.outcome = "refused";
      r.change.clear();
      r.message = e.what();
    }
    resolutions.push_back(std::move(r));
  }
  return report(command, selection, resolutions, options.json);
}

}  // namespace

int run_review(const ReviewOptions& options) {
  refuse_in_ci(options.force, "review pending results",
               "Publish them (check --pending-dir DIR) and review them on a developer machine");
  const PendingSelection selection = select_pending(options.selection);
  warn_about_stray(selection);
  if (nothing_selected(selection, "review")) return kExitOk;
  ReviewSettings settings;
  settings.max_nodes = options.picture.max_nodes;
  settings.force = options.force;
  if (options.picture_directory) settings.picture_directory = *options.picture_directory;
  settings.echo = ::isatty(0) == 0;  // a script's answers show in the transcript
  std::cout << selection.files.size() << " pending result(s) " << where(selection.store) << "\n";
  ReviewSession session(selection.store, std::cin, std::cout, settings);
  const ReviewCounts counts = session.run(selection.files);
  std::cout << "\nreview: " << review_summary(counts) << "\n";
  return counts.failed == 0 ? kExitOk : kExitFailure;
}

int run_accept(const ResolveOptions& options) {
  refuse_in_ci(options.force, "accept pending results as goldens",
               "Review the change and accept it on a developer machine");
  return resolve("accept", options, [&](const PendingStore& store, const PendingFile& file, Resolution& r) {
    r.change = pending_change(file, store.read(file));
    r.outcome = std::string(to_string(store.accept(file, options.force)));
  });
}

int run_reject(const ResolveOptions& options) {
  return resolve("reject", options, [](const PendingStore& store, const PendingFile& file, Resolution& r) {
    store.reject(file);
    r.outcome = "rejected";
  });
}

}  // namespace fprev::cli
