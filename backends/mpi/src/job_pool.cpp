#include "job_pool.hpp"

#include <vector>

namespace fprev::mpi {
namespace {

void add_field(std::string& key, const std::string& value) {
  key += std::to_string(value.size());
  key += ':';
  key += value;
}

// Ends jobs side by side: every job is asked first, then each is waited for. A job that does not
// end cleanly is stopped (its destructor); there is no case left to report it to.
void end_jobs(std::vector<std::unique_ptr<MpiJob>> jobs) {
  for (auto& job : jobs) {
    try {
      job->request_quit();
    } catch (const std::exception&) {
    }
  }
  for (auto& job : jobs) {
    try {
      job->await_quit();
    } catch (const std::exception&) {
    }
  }
}

}  // namespace

std::string launch_key(const JobConfig& config) {
  // Length-prefixed fields: no value can pose as another's.
  std::string key;
  add_field(key, config.launcher);
  for (const std::string& arg : config.launcher_args) add_field(key, "arg " + arg);
  for (const std::string& entry : config.environment) add_field(key, "env " + entry);
  add_field(key, config.probe);
  for (const std::string& arg : config.probe_args) add_field(key, "probe " + arg);
  add_field(key, std::to_string(config.ranks));
  add_field(key, std::to_string(config.timeout.count()));
  add_field(key, config.over_tcp ? "tcp" : "unix");
  add_field(key, config.layout ? config.layout->describe() : "");
  return key;
}

JobPool::~JobPool() {
  std::vector<std::unique_ptr<MpiJob>> jobs;
  for (Idle& idle : idle_) jobs.push_back(std::move(idle.job));
  idle_.clear();
  end_jobs(std::move(jobs));
}

std::unique_ptr<MpiJob> JobPool::acquire(const JobConfig& config, bool& started) {
  const std::string key = launch_key(config);
  std::vector<std::unique_ptr<MpiJob>> dead;
  std::unique_ptr<MpiJob> job;
  {
    const std::lock_guard lock(mutex_);
    for (auto it = idle_.begin(); it != idle_.end() && !job;) {
      if (it->key != key) {
        ++it;
        continue;
      }
      // A job whose launcher ended while idle served its last case completely: replaced.
      if (it->job->running()) job = std::move(it->job);
      else dead.push_back(std::move(it->job));
      it = idle_.erase(it);
    }
  }
  for (auto& gone : dead) gone->stop();
  dead.clear();
  started = !job;
  if (job) return job;
  {
    const std::lock_guard lock(mutex_);
    ++started_;  // a launch, also when it fails
  }
  return std::make_unique<MpiJob>(config);
}

void JobPool::give_back(std::unique_ptr<MpiJob> job) {
  if (!job || !job->running()) return;
  if (!reuse_) {
    std::vector<std::unique_ptr<MpiJob>> one;
    one.push_back(std::move(job));
    end_jobs(std::move(one));
    return;
  }
  std::vector<std::unique_ptr<MpiJob>> evicted;
  {
    const std::lock_guard lock(mutex_);
    idle_.push_back({launch_key(job->config()), std::move(job)});
    while (idle_.size() > kMaxIdleJobs) {
      evicted.push_back(std::move(idle_.front().job));
      idle_.pop_front();
    }
  }
  end_jobs(std::move(evicted));
}

std::size_t JobPool::jobs_started() const {
  const std::lock_guard lock(mutex_);
  return started_;
}

std::size_t JobPool::idle_jobs() const {
  const std::lock_guard lock(mutex_);
  return idle_.size();
}

}  // namespace fprev::mpi
