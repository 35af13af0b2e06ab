// The MPI messages of a distributed run, through a transport plugin loaded on demand
// (framework/mpi_transport/transport_abi.h): fprev-golden links no MPI library, so a plain run
// maps none. Every plugin call is serialised here (MPI_THREAD_SERIALIZED) and every wait polls
// with a growing sleep, so that waiting ranks leave the cores to the targets.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct fprev_mpi_transport;

namespace fprev::distributed {

// A message as it travels: a JSON header and the bytes of the arrays that go with it.
struct Message {
  std::string header;   // JSON text
  std::string payload;  // raw bytes (shared memory contents)
};
std::string encode_message(const Message& message);  // 4-byte length of the header, header, payload
Message decode_message(std::string bytes);           // throws std::runtime_error on a short message

class MpiLink {
 public:
  // Loads the plugin of `implementation` ("openmpi", "mpich") from the worker directory and
  // initialises MPI. Throws std::runtime_error with what failed (no plugin built, dlopen, init).
  explicit MpiLink(const std::string& implementation);
  ~MpiLink();  // MPI_Finalize
  MpiLink(const MpiLink&) = delete;
  MpiLink& operator=(const MpiLink&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& host() const { return host_; }
  std::string library() const;  // "Open MPI v4.1.4"

  // Sends and waits until MPI has taken the message (the lock is released between polls).
  // `still_waiting` is called between polls and may throw to stop waiting (the destination rank
  // is lost): the message is then abandoned, its bytes kept until exit, since MPI may still read
  // them.
  template <typename KeepWaiting>
  void send(int dest, int tag, std::string bytes, KeepWaiting still_waiting) {
    auto owned = std::make_unique<std::string>(std::move(bytes));  // its characters never move
    const int handle = start_send(dest, tag, *owned);
    Backoff backoff;
    while (!sent(handle, dest)) {
      try {
        still_waiting();
      } catch (...) {
        abandon(std::move(owned));
        throw;
      }
      backoff.pause();
    }
  }
  void send(int dest, int tag, std::string bytes) {
    send(dest, tag, std::move(bytes), [] {});
  }
  // A send that is not waited for (heartbeats): `bytes` must live until sent() says true.
  int start_send(int dest, int tag, const std::string& bytes);
  bool sent(int handle, int dest);
  // A message from `source` (-1: any) with `tag` (-1: any), if one has arrived; its source and tag
  // are set. Does not wait.
  std::optional<std::string> try_receive(int source, int tag, int& from, int& with_tag);
  // Waits for a message from `source` with `tag`. `still_waiting` is called between polls (about
  // every millisecond once idle) and may throw to stop waiting.
  template <typename KeepWaiting>
  std::string receive(int source, int tag, KeepWaiting still_waiting) {
    Backoff backoff;
    for (;;) {
      int from = 0, with_tag = 0;
      if (auto bytes = try_receive(source, tag, from, with_tag)) return std::move(*bytes);
      still_waiting();
      backoff.pause();
    }
  }
  [[noreturn]] void abort_job(int status);
  // Ends this process without MPI_Finalize, which waits for every rank, a lost one too.
  [[noreturn]] void exit_without_finalize(int status);

  // Sleeps 20 us, doubling up to 1 ms.
  struct Backoff {
    unsigned microseconds = 20;
    void pause();
    void reset() { microseconds = 20; }
  };

 private:
  void abandon(std::unique_ptr<std::string> bytes);

  void* handle_ = nullptr;
  const fprev_mpi_transport* transport_ = nullptr;
  std::mutex mutex_;
  int rank_ = 0;
  int size_ = 1;
  std::string host_;
  std::vector<std::unique_ptr<std::string>> abandoned_;  // under mutex_
};

}  // namespace fprev::distributed
