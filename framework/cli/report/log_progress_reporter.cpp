// Progress for a log (stderr not a terminal, as in CI): a line whenever `interval` has passed
// without one, from a thread of its own, so that a case that runs for minutes (a confirmation with
// a million probes, a slow library) never leaves the log silent. The terminal's progress line
// (text_reporter.cpp) rewrites itself instead and is not used here.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "progress_text.hpp"
#include "reporter.hpp"

namespace fprev::cli {
namespace {

using Clock = std::chrono::steady_clock;

class LogProgressReporter final : public Reporter {
 public:
  LogProgressReporter(int fd, std::chrono::milliseconds interval, std::string command)
      : fd_(fd), interval_(interval), command_(std::move(command)), heartbeat_([this] { beat(); }) {}

  ~LogProgressReporter() override {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    heartbeat_.join();
  }

  LogProgressReporter(const LogProgressReporter&) = delete;
  LogProgressReporter& operator=(const LogProgressReporter&) = delete;

  void run_started(const RunInfo& info) override {
    const std::lock_guard lock(mutex_);
    total_ = info.case_count;
    started_ = last_line_ = Clock::now();
  }

  void case_started(std::size_t index, const std::string& test_name) override {
    const std::lock_guard lock(mutex_);
    running_ = "[" + std::to_string(index + 1) + "/" + std::to_string(total_) + "] " + test_name;
    case_started_ = Clock::now();
    progress_.reset();
  }

  void case_progress(const Progress& progress) override {
    const std::lock_guard lock(mutex_);
    progress_ = progress;
  }

  void case_finished(const CaseResult& /*result*/, const std::string& /*accept_command*/) override {
    const std::lock_guard lock(mutex_);
    ++done_;
    running_.clear();
  }

  // No progress line after the run's summary: ReporterList calls this under report_output_mutex(),
  // which write_line() takes before it looks at finished_.
  void run_finished(const RunSummary& /*summary*/) override {
    const std::lock_guard lock(mutex_);
    finished_ = true;
  }

 private:
  // Wakes every interval; writes a line when none was written for a whole interval.
  // The line is made under mutex_ and written after releasing it, under report_output_mutex():
  // ReporterList holds that one while it calls case_finished here (which takes mutex_), so holding
  // both here would deadlock.
  void beat() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      wake_.wait_for(lock, interval_, [this] { return stopping_; });
      if (stopping_ || total_ == 0) continue;
      const auto now = Clock::now();
      if (now - last_line_ < interval_) continue;
      last_line_ = now;
      const std::string line = make_line(now);
      lock.unlock();
      write_line(line);
      lock.lock();
    }
  }

  std::string make_line(Clock::time_point now) const {
    const auto seconds = [](Clock::duration d) { return std::chrono::duration_cast<std::chrono::seconds>(d).count(); };
    std::string line = "fprev-golden " + command_ + ": " + std::to_string(done_) + " of " + std::to_string(total_) +
                       " cases done after " + std::to_string(seconds(now - started_)) + " s";
    if (!running_.empty()) {
      line += "; running " + running_ + " for " + std::to_string(seconds(now - case_started_)) + " s";
      if (progress_) line += " (" + progress_text(*progress_) + ")";
    }
    line += "\n";
    return line;
  }

  // One write(2) of a whole line, between the reports' own (flushed) blocks: never inside one.
  void write_line(const std::string& line) {
    const std::lock_guard output(report_output_mutex());
    {
      const std::lock_guard lock(mutex_);  // the order case_finished takes them in: no deadlock
      if (finished_) return;
    }
    for (std::size_t written = 0; written < line.size();) {
      const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
      if (n <= 0) return;
      written += static_cast<std::size_t>(n);
    }
  }

  const int fd_;
  const std::chrono::milliseconds interval_;
  const std::string command_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool finished_ = false;  // the summary is written: no more lines
  std::size_t total_ = 0;
  std::size_t done_ = 0;
  std::string running_;  // "[k/N] reproducibility/<suite>/<backend>/<case>" while a case runs
  std::optional<Progress> progress_;
  Clock::time_point started_{}, case_started_{}, last_line_{};
  std::thread heartbeat_;  // last: starts once everything it reads is constructed
};

}  // namespace

std::unique_ptr<Reporter> make_log_progress_reporter(int fd, std::chrono::milliseconds interval,
                                                     const std::string& command) {
  return std::make_unique<LogProgressReporter>(fd, interval, command);
}

}  // namespace fprev::cli
