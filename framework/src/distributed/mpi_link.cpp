#include "distributed/mpi_link.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "distributed/transport_abi.h"
#include "fprev/worker.hpp"

namespace fprev::distributed {

std::string encode_message(const Message& message) {
  const auto size = static_cast<std::uint32_t>(message.header.size());
  std::string bytes(4, '\0');
  for (int k = 0; k < 4; ++k) bytes[static_cast<std::size_t>(k)] = static_cast<char>((size >> (8 * k)) & 0xff);
  bytes += message.header;
  bytes += message.payload;
  return bytes;
}

Message decode_message(std::string bytes) {
  if (bytes.size() < 4) throw std::runtime_error("a distributed-mode message shorter than its header length");
  std::uint32_t size = 0;
  for (int k = 0; k < 4; ++k)
    size |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[static_cast<std::size_t>(k)])) << (8 * k);
  if (bytes.size() < 4 + static_cast<std::size_t>(size))
    throw std::runtime_error("a distributed-mode message shorter than its header");
  Message message;
  message.header = bytes.substr(4, size);
  message.payload = bytes.substr(4 + static_cast<std::size_t>(size));
  return message;
}

void MpiLink::Backoff::pause() {
  std::this_thread::sleep_for(std::chrono::microseconds(microseconds));
  microseconds = std::min(microseconds * 2, 1000u);
}

MpiLink::MpiLink(const std::string& implementation) {
  const std::string path = worker_directory() + "/libfprev-mpi-transport-" + implementation + ".so";
  // RTLD_GLOBAL: Open MPI's own components, loaded by libmpi, resolve symbols of libmpi.
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle_ == nullptr)
    throw std::runtime_error("cannot load the MPI transport " + path + " (" + ::dlerror() +
                             "); this fprev-golden was built without " + implementation +
                             "'s compiler wrapper (mpicxx." + implementation + ")");
  const auto entry = reinterpret_cast<fprev_mpi_transport_entry>(::dlsym(handle_, "fprev_mpi_transport_v1"));
  transport_ = entry != nullptr ? entry() : nullptr;
  if (transport_ == nullptr || transport_->abi_version != FPREV_MPI_TRANSPORT_ABI_VERSION)
    throw std::runtime_error(path + " is not an MPI transport of this fprev-golden version");
  char host[256] = "";
  char error[512] = "";
  if (transport_->init(&rank_, &size_, host, sizeof host, error, sizeof error) != 0)
    throw std::runtime_error(std::string("cannot start MPI: ") + error);
  host_ = host;
}

MpiLink::~MpiLink() {
  if (transport_ != nullptr) transport_->finalize();
  // The plugin stays mapped: MPI may have started threads that run its code until exit.
}

std::string MpiLink::library() const { return transport_->implementation; }

int MpiLink::start_send(int dest, int tag, const std::string& bytes) {
  char error[512] = "";
  int handle = -1;
  {
    const std::lock_guard lock(mutex_);
    handle = transport_->send_start(dest, tag, bytes.data(), bytes.size(), error, sizeof error);
  }
  if (handle < 0) throw std::runtime_error(std::string("MPI send to rank ") + std::to_string(dest) + ": " + error);
  return handle;
}

bool MpiLink::sent(int handle, int dest) {
  int done = 0;
  {
    const std::lock_guard lock(mutex_);
    done = transport_->send_done(handle);
  }
  if (done < 0) throw std::runtime_error("MPI send to rank " + std::to_string(dest) + " failed");
  return done == 1;
}

void MpiLink::abandon(std::unique_ptr<std::string> bytes) {
  const std::lock_guard lock(mutex_);
  abandoned_.push_back(std::move(bytes));
}

std::optional<std::string> MpiLink::try_receive(int source, int tag, int& from, int& with_tag) {
  const std::lock_guard lock(mutex_);
  std::size_t bytes = 0;
  const int found = transport_->probe(source, tag, &from, &with_tag, &bytes);
  if (found < 0) throw std::runtime_error("MPI probe failed");
  if (found == 0) return std::nullopt;
  std::string data(bytes, '\0');
  if (transport_->receive_matched(data.data()) != 0) throw std::runtime_error("MPI receive failed");
  return data;
}

void MpiLink::abort_job(int status) {
  transport_->abort_job(status);
  std::_Exit(status);
}

void MpiLink::exit_without_finalize(int status) {
  std::fflush(nullptr);
  std::_Exit(status);
}

}  // namespace fprev::distributed
