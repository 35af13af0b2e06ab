// fprev-golden review: walks pending results one by one (fprev/pending.hpp). For each it shows
// what it would change (a summary line, the identities, the diff against the golden as it is now)
// and reads an answer: accept, reject, skip, a picture, the diff again, quit, help. Answers are
// lines read from `in`, so a terminal and scripted input (`printf 'a\nr\n' | fprev-golden review`)
// work alike; a script's answers are echoed after each prompt, so its transcript reads as a
// session on a terminal does.
#pragma once

#include <cstddef>
#include <filesystem>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "fprev/drawing.hpp"
#include "fprev/pending.hpp"

namespace fprev::cli {

struct ReviewSettings {
  std::size_t max_nodes = kDefaultDrawnNodes;  // pictures: drawn nodes per tree
  bool force = false;                          // accept over a golden that changed since check
  bool echo = false;                           // echo each answer (the input is not a terminal)
  // Where pictures are written and kept (review --picture-dir); empty: a new directory under the
  // system's temporary directory, made on the first picture and removed when the session ends.
  std::filesystem::path picture_directory;
};

struct ReviewCounts {
  std::size_t accepted = 0;
  std::size_t rejected = 0;
  std::size_t left = 0;      // skipped, or not reached (quit, end of input): still pending
  std::size_t failed = 0;    // files that are not pending results, and refused or failed answers
};

// "2 accepted, 1 rejected, 1 left pending" (and ", 1 failed" when some did).
std::string review_summary(const ReviewCounts& counts);

// What a pending result would change, in one line: "the summation tree changed: 62 of 63 inner
// nodes agree; now pairwise", "no golden yet: accepting creates it", ...
std::string pending_change(const PendingFile& file, const Golden& pending);

class ReviewSession {
 public:
  ReviewSession(const PendingStore& store, std::istream& in, std::ostream& out, ReviewSettings settings);
  ~ReviewSession();  // removes the temporary picture directory it made
  ReviewSession(const ReviewSession&) = delete;
  ReviewSession& operator=(const ReviewSession&) = delete;
  // Reviews `files` in order; returns what became of them.
  ReviewCounts run(const std::vector<PendingFile>& files);

 private:
  enum class Verdict { accepted, rejected, left, quit, failed };
  Verdict review(const PendingFile& file, std::size_t index, std::size_t total);
  void show(const PendingFile& file, const Golden& pending, std::size_t index, std::size_t total);
  void picture(const PendingFile& file, const Golden& pending);
  bool read_answer(std::string& answer);
  std::filesystem::path picture_directory();

  const PendingStore& store_;
  std::istream& in_;
  std::ostream& out_;
  ReviewSettings settings_;
  std::size_t failures_ = 0;  // accepts and rejects that failed (the case was answered again)
  std::filesystem::path temporary_pictures_;  // made by this session, removed by it
};

}  // namespace fprev::cli
