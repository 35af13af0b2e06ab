// Command-line arguments: a sub-command, then --name value / --name=value options and --flags.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace fprev::cli {

// Usage errors end the program with exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  // `flags` are options that take no value (e.g. "json", "force").
  Args(int argc, char** argv, int first, const std::set<std::string>& flags);

  bool flag(const std::string& name) const { return flags_.count(name) != 0; }
  std::optional<std::string> get(const std::string& name) const;
  std::string get_or(const std::string& name, const std::string& fallback) const;
  std::vector<std::string> get_all(const std::string& name) const;  // repeated option
  const std::vector<std::string>& positional() const { return positional_; }
  // Options not consumed with take(); used to route backend parameters.
  std::map<std::string, std::string> take_rest();
  std::optional<std::string> take(const std::string& name);
  // Fails with a usage error naming unknown options.
  void reject_unknown(const std::set<std::string>& known) const;

 private:
  std::multimap<std::string, std::string> options_;
  std::set<std::string> flags_;
  std::vector<std::string> positional_;
};

}  // namespace fprev::cli
