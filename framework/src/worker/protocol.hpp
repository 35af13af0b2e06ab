// The worker protocol's pieces shared by the supervisor and the C++ worker (docs/worker-protocol.md):
// frames (a 4-byte little-endian length, then one JSON object), the shared memory file that holds
// the arrays, and the JSON forms of the framework's types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fprev/backend.hpp"
#include "fprev/target.hpp"

namespace fprev::worker {

using Json = nlohmann::json;

constexpr int kProtocolVersion = 1;
constexpr int kSocketFd = 3;        // the worker's end of the message socket
constexpr int kSharedMemoryFd = 4;  // the shared memory file (memfd) the arrays travel in
constexpr std::uint32_t kMaxFrameBytes = 64u << 20;

// A broken message stream: short read, oversized frame, invalid JSON.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `fd` moved to a descriptor at 10 or above, close-on-exec (the original is closed). The worker's
// copies are made with dup2 onto 1 to 4, which must never find their source already there (dup2
// of a descriptor onto itself keeps close-on-exec).
int high_fd(int fd);

// Frames on a blocking descriptor (the worker's side; the supervisor reads with its deadlines).
void write_frame(int fd, const Json& message);
// nullopt at end of stream before a frame starts.
std::optional<Json> read_frame(int fd);
std::string encode_frame(const Json& message);  // length prefix + JSON text

// The shared memory file, mapped; both sides map the whole file. The supervisor grows it (the
// worker maps it again when a request names a larger size).
class SharedMemory {
 public:
  SharedMemory() = default;
  explicit SharedMemory(int fd) : fd_(fd) {}  // the worker's: created by the supervisor
  ~SharedMemory();
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  void create(std::size_t bytes);  // the supervisor's: a new memfd
  void reserve(std::size_t bytes);  // grows (supervisor), at least doubling
  // The bytes the last reserve() asked for: what a request's arrays and its outputs occupy (what
  // distributed mode copies to another rank and back). reset_in_use() after each request.
  std::size_t in_use() const { return in_use_; }
  void reset_in_use() { in_use_ = 0; }
  void map(std::size_t bytes);      // maps `bytes` of the file (worker, after the supervisor grew it)
  int fd() const { return fd_; }
  std::size_t size() const { return size_; }
  std::byte* data() const { return data_; }
  template <typename T>
  T* at(std::size_t offset) const {
    return reinterpret_cast<T*>(data_ + offset);
  }

 private:
  void unmap();
  int fd_ = -1;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t in_use_ = 0;
};

// Lays out sections of the shared memory, each 8-byte aligned.
class Layout {
 public:
  template <typename T>
  std::size_t add(std::size_t count) {
    const std::size_t offset = (end_ + 7) / 8 * 8;
    end_ = offset + count * sizeof(T);
    return offset;
  }
  std::size_t bytes() const { return end_; }

 private:
  std::size_t end_ = 0;
};

// JSON forms.
Json to_json(const ParamSpec& spec);
ParamSpec param_spec_from_json(const Json& json);
Json to_json(const std::vector<ParamSpec>& specs);
std::vector<ParamSpec> param_specs_from_json(const Json& json);
Json to_json(const Params& params);
Params params_from_json(const Json& json);
Json to_json(const Identity& identity);
Identity identity_from_json(const Json& json);
Json to_json(const TargetInfo& info);
TargetInfo target_info_from_json(const Json& json);

// An exception as the "error" member of a reply, and back (rethrown as the same type where the
// framework has one: ConfigError, BackendUnavailable, BatchInconsistent, RanksDisagree,
// TargetError).
Json error_to_json(std::exception_ptr error);
[[noreturn]] void throw_error_from_json(const Json& error);

// A reply's value after checking it is an object with "ok": true (otherwise the error is thrown).
const Json& checked_reply(const Json& reply);

}  // namespace fprev::worker
