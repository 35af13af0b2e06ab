// fprev-mpi-probe: the program the mpi backend runs under an MPI launcher, one process per rank.
// It is built once per MPI implementation with that implementation's compiler wrapper; nothing
// else of fprev-golden links MPI.
//
//   fprev-mpi-probe --socket PATH | --connect HOST:PORT [--cvar NAME]... [--idle-yield on|off]
//
// Every rank connects to the backend (a Unix socket, or over TCP with the token from
// $FPREV_MPI_TOKEN when the ranks may run on other nodes) and serves requests (see wire.hpp): a
// configuration (which collective, dtype and count the next calls run: one job serves case after
// case), then calls: fill the send buffer, call the collective once on MPI_COMM_WORLD with MPI_SUM
// (root 0 for reduce), send the result back. No other MPI communication happens, so the collective
// under test is the only one the library sees. Rank 0 also reports MPI_Get_library_version() and
// the MPI_T control variables named by --cvar (the effective algorithm settings); every rank
// reports its processor name (the node it runs on). --idle-yield on (MPICH, more ranks than cores):
// a rank waiting in a collective gives its core up (idle_yield.hpp); every response says how often.
//
// FPREV_MPI_PROBE_TEST_FAULT (tests only) makes the job misbehave on purpose, on the first call
// after each configuration (of every case), or with FAULT:COUNT only after a configuration of
// that count (one case of several that share the job); several, comma separated, the first that
// applies to a configuration counts:
//   ranks_disagree   the last rank flips the lowest bit of its last allreduce result
//   crash            the last rank says so on its standard error and aborts
//   hang             the last rank never answers
//   print            the last rank writes a line to its standard output and serves the call
// The C API only: the deprecated C++ bindings do not compile warning-free.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "idle_yield.hpp"
#include "wire.hpp"

namespace {

namespace wire = fprev::mpi::wire;

using Op = wire::Op;
enum class FaultKind { none, ranks_disagree, crash, hang, print };

struct Fault {
  FaultKind kind = FaultKind::none;
  std::uint64_t count = 0;  // 0: every configuration; else only one of this count
};

struct Options {
  std::string socket_path;
  std::string tcp_address;  // HOST:PORT
  std::vector<std::string> cvars;
};

[[noreturn]] void die(const std::string& message) {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "fprev-mpi-probe (rank %d): %s\n", rank, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::abort();
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) die("option " + arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--socket") {
      o.socket_path = value;
    } else if (arg == "--connect") {
      o.tcp_address = value;
    } else if (arg == "--cvar") {
      o.cvars.push_back(value);
    } else if (arg == "--idle-yield") {
      if (value != "on" && value != "off") die("--idle-yield takes on or off, not " + value);
    } else {
      die("unknown option " + arg);
    }
  }
  if (o.socket_path.empty() == o.tcp_address.empty())
    die("one of --socket and --connect is required");
  return o;
}

std::vector<Fault> faults_from_environment() {
  const char* value = std::getenv("FPREV_MPI_PROBE_TEST_FAULT");
  std::vector<Fault> faults;
  if (value == nullptr || *value == '\0') return faults;
  const std::string all = value;
  for (std::size_t begin = 0; begin <= all.size();) {
    const std::size_t comma = std::min(all.find(',', begin), all.size());
    std::string v = all.substr(begin, comma - begin);
    begin = comma + 1;
    Fault fault;
    if (const auto colon = v.find(':'); colon != std::string::npos) {
      char* end = nullptr;
      fault.count = std::strtoull(v.c_str() + colon + 1, &end, 10);
      if (fault.count == 0 || *end != '\0') die("bad count in FPREV_MPI_PROBE_TEST_FAULT " + all);
      v.resize(colon);
    }
    if (v == "ranks_disagree") fault.kind = FaultKind::ranks_disagree;
    else if (v == "crash") fault.kind = FaultKind::crash;
    else if (v == "hang") fault.kind = FaultKind::hang;
    else if (v == "print") fault.kind = FaultKind::print;
    else die("unknown FPREV_MPI_PROBE_TEST_FAULT " + all);
    faults.push_back(fault);
  }
  return faults;
}

// The fault this configuration's calls have (the first that applies), if any.
FaultKind fault_for(const std::vector<Fault>& faults, std::uint64_t count) {
  for (const Fault& f : faults)
    if (f.count == 0 || f.count == count) return f.kind;
  return FaultKind::none;
}

int connect_unix(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) die("socket path too long: " + path);
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) die(std::string("socket(): ") + std::strerror(errno));
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
    die("cannot connect to " + path + ": " + std::strerror(errno));
  return fd;
}

// The backend over TCP: every address its host name resolves to, in turn. Requests and answers
// are small and strictly alternate, so Nagle's algorithm would only delay them.
int connect_tcp(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size())
    die("--connect takes HOST:PORT, got " + address);
  const std::string host = address.substr(0, colon), port = address.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
    die("cannot resolve the backend's host " + host + ": " + ::gai_strerror(rc) +
        " (the host name of the machine running fprev-golden: every node of the job must resolve "
        "it, through DNS or /etc/hosts)");
  std::string errors;
  int fd = -1;
  for (const addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && ::connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
    errors += std::string(errors.empty() ? "" : "; ") + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(found);
  if (fd < 0) die("cannot connect to the backend at " + address + ": " + errors);
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

void write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) die(std::string("write to the backend failed: ") + std::strerror(errno));
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

// False on a clean end of file before the first byte (the backend went away).
bool read_all(int fd, void* data, std::size_t size) {
  char* p = static_cast<char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, p + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 && done == 0) return false;
    if (n <= 0) die("the backend closed the connection in the middle of a request");
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// "name\tvalue\n" for each requested control variable the library has (MPI_T, MPI 3.0). Enum
// values are written "number=name" when the library names them.
std::string read_cvars(const std::vector<std::string>& wanted) {
  if (wanted.empty()) return {};
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return {};
  std::string out;
  int count = 0;
  MPI_T_cvar_get_num(&count);
  for (int i = 0; i < count; ++i) {
    char name[256];
    int name_len = sizeof name;
    int verbosity = 0, bind = 0, scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, nullptr, nullptr,
                            &bind, &scope) != MPI_SUCCESS)
      continue;
    bool asked = false;
    for (const auto& w : wanted) asked = asked || w == name;
    if (!asked || bind != MPI_T_BIND_NO_OBJECT) continue;
    MPI_T_cvar_handle handle;
    int elements = 0;
    if (MPI_T_cvar_handle_alloc(i, nullptr, &handle, &elements) != MPI_SUCCESS) continue;
    std::string value = "?";
    if (type == MPI_CHAR) {
      std::vector<char> text(static_cast<std::size_t>(elements) + 1, '\0');
      if (MPI_T_cvar_read(handle, text.data()) == MPI_SUCCESS) value = text.data();
    } else if (elements == 1) {
      alignas(16) unsigned char raw[64] = {};
      if (MPI_T_cvar_read(handle, raw) == MPI_SUCCESS) {
        long long number = 0;
        if (type == MPI_INT) { int v; std::memcpy(&v, raw, sizeof v); number = v; }
        else if (type == MPI_UNSIGNED) { unsigned v; std::memcpy(&v, raw, sizeof v); number = v; }
        else if (type == MPI_UNSIGNED_LONG) { unsigned long v; std::memcpy(&v, raw, sizeof v); number = static_cast<long long>(v); }
        else if (type == MPI_UNSIGNED_LONG_LONG) { unsigned long long v; std::memcpy(&v, raw, sizeof v); number = static_cast<long long>(v); }
        else if (type == MPI_LONG_LONG) { long long v; std::memcpy(&v, raw, sizeof v); number = v; }
        else if (type == MPI_COUNT) { MPI_Count v; std::memcpy(&v, raw, sizeof v); number = static_cast<long long>(v); }
        else if (type == MPI_C_BOOL) { bool v; std::memcpy(&v, raw, sizeof v); number = v ? 1 : 0; }
        else if (type == MPI_DOUBLE) { double v; std::memcpy(&v, raw, sizeof v); value = std::to_string(v); }
        if (value == "?") value = std::to_string(number);
        if (enumtype != MPI_T_ENUM_NULL) {
          int items = 0;
          char enum_name[256];
          int enum_name_len = sizeof enum_name;
          MPI_T_enum_get_info(enumtype, &items, enum_name, &enum_name_len);
          for (int k = 0; k < items; ++k) {
            int item_value = 0;
            char item[256];
            int item_len = sizeof item;
            if (MPI_T_enum_get_item(enumtype, k, &item_value, item, &item_len) == MPI_SUCCESS &&
                item_value == number)
              value += std::string("=") + item;
          }
        }
      }
    }
    MPI_T_cvar_handle_free(&handle);
    out += std::string(name) + "\t" + value + "\n";
  }
  MPI_T_finalize();
  return out;
}

// One configured collective: its buffers and how it is called. A job serves one configuration
// after another (one per case).
class Collective {
 public:
  virtual ~Collective() = default;
  virtual std::size_t send_length() const = 0;
  virtual void fill(const std::vector<double>& row) = 0;
  virtual void run() = 0;
  // What this rank reports (see wire.hpp); `flip` flips the lowest bit of the last allreduce
  // result at the last rank (the ranks_disagree fault).
  virtual std::vector<double> results(bool flip) const = 0;
};

template <class T>
class TypedCollective final : public Collective {
 public:
  TypedCollective(MPI_Datatype t, Op o, int r, int p, std::uint64_t c)
      : type_(t), op_(o), rank_(r), ranks_(p), count_(c),
        send_(o == Op::reduce_scatter_block ? c * static_cast<std::uint64_t>(p) : c),
        receive_(c) {}

  std::size_t send_length() const override { return send_.size(); }

  void fill(const std::vector<double>& row) override {
    for (std::size_t e = 0; e < send_.size(); ++e) send_[e] = static_cast<T>(row[e % row.size()]);
  }

  void run() override {
    const int n = static_cast<int>(count_);
    int rc = MPI_SUCCESS;
    switch (op_) {
      case Op::reduce:
        rc = MPI_Reduce(send_.data(), receive_.data(), n, type_, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
      case Op::allreduce:
        rc = MPI_Allreduce(send_.data(), receive_.data(), n, type_, MPI_SUM, MPI_COMM_WORLD);
        break;
      case Op::reduce_scatter_block:
        rc = MPI_Reduce_scatter_block(send_.data(), receive_.data(), n, type_, MPI_SUM,
                                      MPI_COMM_WORLD);
        break;
    }
    if (rc != MPI_SUCCESS) die("the collective returned error " + std::to_string(rc));
  }

  std::vector<double> results(bool flip) const override {
    if (op_ == Op::reduce && rank_ != 0) return {};
    std::vector<double> out(receive_.begin(), receive_.end());
    if (flip && op_ == Op::allreduce && rank_ == ranks_ - 1) {
      T last = receive_.back();
      unsigned char bits[sizeof(T)];
      std::memcpy(bits, &last, sizeof(T));
      bits[0] ^= 1;  // the lowest mantissa bit (little-endian)
      std::memcpy(&last, bits, sizeof(T));
      out.back() = static_cast<double>(last);
    }
    return out;
  }

 private:
  MPI_Datatype type_;
  Op op_;
  int rank_, ranks_;
  std::uint64_t count_;
  std::vector<T> send_, receive_;
};

void respond(int fd, wire::Status status, const std::vector<double>& outputs,
             const std::string& message = "") {
  wire::Response response{};
  response.status = static_cast<std::uint32_t>(status);
  response.message_bytes = static_cast<std::uint32_t>(message.size());
  response.outputs = outputs.size();
  response.idle_yields = fprev_probe::idle_yields.load(std::memory_order_relaxed);
  write_all(fd, &response, sizeof response);
  write_all(fd, outputs.data(), outputs.size() * sizeof(double));
  write_all(fd, message.data(), message.size());
}

// The collective a configuration asks for, or why it cannot be served.
std::unique_ptr<Collective> configure(const wire::Configuration& c, int rank, int ranks,
                                      std::string& why) {
  const bool known_op = c.op == static_cast<std::uint32_t>(Op::reduce) ||
                        c.op == static_cast<std::uint32_t>(Op::allreduce) ||
                        c.op == static_cast<std::uint32_t>(Op::reduce_scatter_block);
  const std::uint64_t per_call =
      c.op == static_cast<std::uint32_t>(Op::reduce_scatter_block) ? c.count * static_cast<std::uint64_t>(ranks) : c.count;
  if (!known_op) why = "unknown op " + std::to_string(c.op);
  else if (c.count == 0 || per_call > wire::kMaxValues || c.count > static_cast<std::uint64_t>(INT32_MAX))
    why = "bad count " + std::to_string(c.count);
  if (!why.empty()) return nullptr;
  const Op op = static_cast<Op>(c.op);
  if (c.dtype == static_cast<std::uint32_t>(wire::Dtype::float64))
    return std::make_unique<TypedCollective<double>>(MPI_DOUBLE, op, rank, ranks, c.count);
  if (c.dtype == static_cast<std::uint32_t>(wire::Dtype::float32))
    return std::make_unique<TypedCollective<float>>(MPI_FLOAT, op, rank, ranks, c.count);
  why = "unknown dtype " + std::to_string(c.dtype);
  return nullptr;
}

void serve(int fd, int rank, int ranks, const std::vector<Fault>& faults) {
  std::unique_ptr<Collective> collective;
  FaultKind fault = FaultKind::none;  // of the current configuration, at the last rank
  bool first_call = false;  // the first call since the last configuration
  std::vector<double> row;
  for (;;) {
    wire::Request request{};
    // End of file without a quit request: the backend is gone, perhaps after sending this call
    // to some ranks only. Abort, so that no rank waits in the collective or in MPI_Finalize.
    if (!read_all(fd, &request, sizeof request)) die("the backend closed the connection");
    if (request.kind == static_cast<std::uint32_t>(wire::RequestKind::quit)) return;
    if (request.kind == static_cast<std::uint32_t>(wire::RequestKind::configure)) {
      wire::Configuration c{};
      if (!read_all(fd, &c, sizeof c)) die("the backend closed the connection in the middle of a request");
      std::string why;
      collective = configure(c, rank, ranks, why);
      fault = rank == ranks - 1 ? fault_for(faults, c.count) : FaultKind::none;
      first_call = true;
      respond(fd, collective ? wire::Status::ok : wire::Status::failed, {}, why);
      continue;
    }
    if (request.kind != static_cast<std::uint32_t>(wire::RequestKind::evaluate) || !collective ||
        request.width == 0 || request.width > collective->send_length())
      die("malformed request (kind " + std::to_string(request.kind) + ", width " +
          std::to_string(request.width) + (collective ? ")" : ", before a configuration)"));
    row.resize(request.width);
    if (!read_all(fd, row.data(), row.size() * sizeof(double)))
      die("the backend closed the connection in the middle of a request");
    const bool faulty = first_call;
    first_call = false;
    if (faulty && fault == FaultKind::crash) {
      // A crash that says so first, as a failing library does: the launcher forwards the line into
      // its output whatever it reports itself. MPICH 4.2's hydra sometimes loses the exit status
      // of a rank killed by a signal, exits with 0 and prints no report of its own
      // (pmodels/mpich#7057), so the rank's own line is what a test can rely on.
      std::fprintf(stderr, "fprev-mpi-probe (rank %d): aborting on purpose (crash fault)\n", rank);
      std::fflush(stderr);
      std::abort();
    }
    if (faulty && fault == FaultKind::hang)
      for (;;) pause();
    if (faulty && fault == FaultKind::print) {
      std::printf("fprev-mpi-probe (rank %d): a line on standard output, as a library may print\n", rank);
      std::fflush(stdout);
    }
    collective->fill(row);
    collective->run();
    // ranks_disagree holds for every call of the configuration: each must be caught.
    respond(fd, wire::Status::ok, collective->results(fault == FaultKind::ranks_disagree));
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Before MPI_Init: its start-up waits as well (parse_options checks the value after it).
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--idle-yield") fprev_probe::idle_yield = std::string(argv[i + 1]) == "on";
  MPI_Init(&argc, &argv);
  const Options options = parse_options(argc, argv);
  const std::vector<Fault> faults = faults_from_environment();
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  const int fd = options.socket_path.empty() ? connect_tcp(options.tcp_address)
                                             : connect_unix(options.socket_path);
  if (options.socket_path.empty()) {
    const char* token = std::getenv(wire::kTokenVariable);
    if (token == nullptr || std::strlen(token) != wire::kTokenBytes)
      die(std::string(wire::kTokenVariable) + " is not set: the launcher did not pass "
          "fprev-golden's environment on to this rank");
    write_all(fd, token, wire::kTokenBytes);
  }
  std::string library, cvars, node;
  {
    char name[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    MPI_Get_processor_name(name, &length);
    node.assign(name, static_cast<std::size_t>(length));
  }
  wire::Hello hello{};
  std::memcpy(hello.magic, wire::kMagic, sizeof hello.magic);
  hello.protocol_version = wire::kProtocolVersion;
  hello.rank = static_cast<std::uint32_t>(rank);
  hello.ranks = static_cast<std::uint32_t>(ranks);
  int version = 0, subversion = 0;
  MPI_Get_version(&version, &subversion);
  hello.mpi_version = static_cast<std::uint32_t>(version);
  hello.mpi_subversion = static_cast<std::uint32_t>(subversion);
  if (rank == 0) {
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(text, &length);
    library.assign(text, static_cast<std::size_t>(length));
    cvars = read_cvars(options.cvars);
  }
  hello.library_version_bytes = static_cast<std::uint32_t>(library.size());
  hello.cvar_bytes = static_cast<std::uint32_t>(cvars.size());
  hello.processor_name_bytes = static_cast<std::uint32_t>(node.size());
  write_all(fd, &hello, sizeof hello);
  write_all(fd, library.data(), library.size());
  write_all(fd, cvars.data(), cvars.size());
  write_all(fd, node.data(), node.size());

  serve(fd, rank, ranks, faults);
  ::close(fd);
  MPI_Finalize();
  return 0;
}
