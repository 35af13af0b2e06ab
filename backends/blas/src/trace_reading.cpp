// Reading the interposer's trace files (fprev/blas/trace.hpp; the format is written by
// backends/blas/trace/call_table.cpp and described in docs/trace.md).
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fprev/blas/trace.hpp"
#include "fprev/worker.hpp"

namespace fprev::blas {
namespace {

std::vector<std::string> trace_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (;;) {
    const std::size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

class TraceFileReader {
 public:
  TraceFileReader(const std::filesystem::path& path, Trace& trace) : path_(path), trace_(trace) {}

  void read() {
    std::ifstream in(path_);
    if (!in) fail("cannot be read");
    std::string line;
    while (std::getline(in, line)) {
      ++line_;
      const std::vector<std::string> f = trace_fields(line);
      if (line_ == 1) {
        if (f.size() != 2 || f[0] != "fprev-blas-trace" || f[1] != "1")
          fail("is not a trace of this version (first line 'fprev-blas-trace<TAB>1')");
      } else if (f[0] == "process") {
      } else if (f[0] == "library") {
        library(f);
      } else if (f[0] == "loaded") {
        expect(f, 2);
        trace_.loaded.push_back(f[1]);
      } else if (f[0] == "call") {
        call(f);
      } else if (f[0] == "site") {
        expect(f, 2);
        if (trace_.calls.size() == first_call_) fail("a call site before any call");
        trace_.calls.back().sites.push_back(f[1]);
      } else if (f[0] == "other") {
        expect(f, 3);
        trace_.other_calls[f[1]] += number(f[2]);
      } else if (f[0] == "unrecorded") {
        expect(f, 2);
        trace_.unrecorded += number(f[1]);
      } else {
        fail("has an unknown record '" + f[0] + "'");
      }
    }
    if (line_ == 0) fail("is empty");
    ++trace_.processes;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ConfigError("", "trace file " + path_.string() + (line_ != 0 ? ":" + std::to_string(line_) : "") + " " + what);
  }
  void expect(const std::vector<std::string>& f, std::size_t count) const {
    if (f.size() != count)
      fail("has " + std::to_string(f.size()) + " fields in a '" + f[0] + "' record, expected " + std::to_string(count));
  }
  std::uint64_t number(const std::string& text) const {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0') fail("has '" + text + "' where a number belongs");
    return value;
  }
  std::int64_t signed_number(const std::string& text) const {
    char* end = nullptr;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0') fail("has '" + text + "' where a number belongs");
    return value;
  }
  std::uint64_t hex(const std::string& text) const {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 16);
    if (text.empty() || *end != '\0') fail("has '" + text + "' where a hexadecimal mask belongs");
    return value;
  }

  // Libraries are numbered per process; the merged trace numbers them by file and configuration.
  void library(const std::vector<std::string>& f) {
    expect(f, 7);
    TracedLibrary l{f[2], f[3], f[4], f[5], f[6]};
    std::size_t index = 0;
    while (index < trace_.libraries.size() &&
           (trace_.libraries[index].file != l.file || trace_.libraries[index].config != l.config ||
            trace_.libraries[index].coretype != l.coretype))
      ++index;
    if (index == trace_.libraries.size()) trace_.libraries.push_back(l);
    local_libraries_[static_cast<int>(number(f[1]))] = static_cast<int>(index);
  }

  void call(const std::vector<std::string>& f) {
    expect(f, 23);
    TracedCall c;
    c.op = f[1];
    c.dtype = f[2];
    if (c.op != "dot" && c.op != "gemv" && c.op != "gemm") fail("has an unknown op '" + c.op + "'");
    if (c.dtype != "float32" && c.dtype != "float64") fail("has an unknown dtype '" + c.dtype + "'");
    c.cblas = f[3] == "cblas";
    c.row_major = f[4] == "row";
    if (f[5].size() != 1 || f[6].size() != 1) fail("has a transpose that is not one character");
    c.trans_a = f[5][0];
    c.trans_b = f[6][0];
    c.alpha_one = f[7] == "1";
    c.beta = static_cast<int>(number(f[8]));
    c.m = signed_number(f[9]);
    c.n = signed_number(f[10]);
    c.k = signed_number(f[11]);
    c.inc_x = signed_number(f[12]);
    c.inc_y = signed_number(f[13]);
    c.ld_a = signed_number(f[14]);
    c.ld_b = signed_number(f[15]);
    c.ld_c = signed_number(f[16]);
    c.threads = static_cast<int>(signed_number(f[17]));
    const auto local = local_libraries_.find(static_cast<int>(signed_number(f[18])));
    c.library = local != local_libraries_.end() ? local->second : -1;
    c.count = number(f[19]);
    for (int i = 0; i < 3; ++i) c.alignment[i] = hex(f[20 + static_cast<std::size_t>(i)]);
    trace_.calls.push_back(std::move(c));
  }

  std::filesystem::path path_;
  Trace& trace_;
  std::size_t line_ = 0;
  std::size_t first_call_ = trace_.calls.size();
  std::map<int, int> local_libraries_;
};

}  // namespace

std::string TracedCall::routine() const {
  const char prefix = dtype == "float64" ? 'd' : 's';
  return (cblas ? std::string("cblas_") : std::string()) + prefix + op + (cblas ? "" : "_");
}

std::string trace_interposer_path() {
  if (const char* path = std::getenv("FPREV_BLAS_TRACE_INTERPOSER"); path != nullptr && *path != '\0') return path;
  const std::string directory = worker_directory();
  return (directory.empty() ? std::string() : directory + "/") + "libfprev-blas-trace.so";
}

Trace read_trace_directory(const std::filesystem::path& directory) {
  Trace trace;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("trace.", 0) == 0 && name.find(".partial") == std::string::npos) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) TraceFileReader(file, trace).read();
  return trace;
}

}  // namespace fprev::blas
