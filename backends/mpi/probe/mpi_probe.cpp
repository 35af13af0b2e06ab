// fprev-mpi-probe: the program the mpi backend runs under an MPI launcher, one process per rank.
// It is built once per MPI implementation with that implementation's compiler wrapper; nothing
// else of fprev-golden links MPI.
//
//   fprev-mpi-probe --socket PATH | --connect HOST:PORT
//                   --op reduce|allreduce|reduce_scatter_block
//                   --dtype float64|float32 --count N [--cvar NAME]...
//
// Every rank connects to the backend (a Unix socket, or over TCP with the token from
// $FPREV_MPI_TOKEN when the ranks may run on other nodes) and serves requests (see wire.hpp):
// fill the send buffer, call the collective once on MPI_COMM_WORLD with MPI_SUM (root 0 for
// reduce), send the result back. No other MPI communication happens, so the collective under test
// is the only one the library sees. Rank 0 also reports MPI_Get_library_version() and the MPI_T
// control variables named by --cvar (the effective algorithm settings); every rank reports its
// processor name (the node it runs on).
//
// FPREV_MPI_PROBE_TEST_FAULT (tests only) makes the job misbehave on purpose:
//   ranks_disagree   the last rank flips the lowest bit of its last allreduce result
//   crash            the last rank aborts on the first request
//   hang             the last rank never answers the first request
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

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "wire.hpp"

namespace {

namespace wire = fprev::mpi::wire;

enum class Op { reduce, allreduce, reduce_scatter_block };
enum class Fault { none, ranks_disagree, crash, hang };

struct Options {
  std::string socket_path;
  std::string tcp_address;  // HOST:PORT
  Op op = Op::allreduce;
  bool float32 = false;
  std::uint64_t count = 0;
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
    } else if (arg == "--op") {
      if (value == "reduce") o.op = Op::reduce;
      else if (value == "allreduce") o.op = Op::allreduce;
      else if (value == "reduce_scatter_block") o.op = Op::reduce_scatter_block;
      else die("unknown --op " + value);
    } else if (arg == "--dtype") {
      if (value != "float64" && value != "float32") die("unknown --dtype " + value);
      o.float32 = value == "float32";
    } else if (arg == "--count") {
      char* end = nullptr;
      o.count = std::strtoull(value.c_str(), &end, 10);
      if (end == value.c_str() || *end != '\0' || o.count == 0 || o.count > wire::kMaxValues)
        die("bad --count " + value);
    } else if (arg == "--cvar") {
      o.cvars.push_back(value);
    } else {
      die("unknown option " + arg);
    }
  }
  if (o.socket_path.empty() == o.tcp_address.empty() || o.count == 0)
    die("one of --socket and --connect, and --count are required");
  return o;
}

Fault fault_from_environment() {
  const char* value = std::getenv("FPREV_MPI_PROBE_TEST_FAULT");
  if (value == nullptr || *value == '\0') return Fault::none;
  const std::string v = value;
  if (v == "ranks_disagree") return Fault::ranks_disagree;
  if (v == "crash") return Fault::crash;
  if (v == "hang") return Fault::hang;
  die("unknown FPREV_MPI_PROBE_TEST_FAULT " + v);
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

template <class T>
struct Collective {
  MPI_Datatype type;
  Op op;
  int rank, ranks;
  std::uint64_t count;
  std::vector<T> send, receive;

  Collective(MPI_Datatype t, Op o, int r, int p, std::uint64_t c)
      : type(t), op(o), rank(r), ranks(p), count(c),
        send(o == Op::reduce_scatter_block ? c * static_cast<std::uint64_t>(p) : c),
        receive(c) {}

  void fill(const std::vector<double>& row) {
    for (std::size_t e = 0; e < send.size(); ++e) send[e] = static_cast<T>(row[e % row.size()]);
  }

  void run() {
    const int n = static_cast<int>(count);
    int rc = MPI_SUCCESS;
    switch (op) {
      case Op::reduce:
        rc = MPI_Reduce(send.data(), receive.data(), n, type, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
      case Op::allreduce:
        rc = MPI_Allreduce(send.data(), receive.data(), n, type, MPI_SUM, MPI_COMM_WORLD);
        break;
      case Op::reduce_scatter_block:
        rc = MPI_Reduce_scatter_block(send.data(), receive.data(), n, type, MPI_SUM,
                                      MPI_COMM_WORLD);
        break;
    }
    if (rc != MPI_SUCCESS) die("the collective returned error " + std::to_string(rc));
  }

  // What this rank reports (see wire.hpp).
  std::vector<double> results(Fault fault) const {
    if (op == Op::reduce && rank != 0) return {};
    std::vector<double> out(receive.begin(), receive.end());
    if (fault == Fault::ranks_disagree && op == Op::allreduce && rank == ranks - 1) {
      T last = receive.back();
      unsigned char bits[sizeof(T)];
      std::memcpy(bits, &last, sizeof(T));
      bits[0] ^= 1;  // the lowest mantissa bit (little-endian)
      std::memcpy(&last, bits, sizeof(T));
      out.back() = static_cast<double>(last);
    }
    return out;
  }
};

template <class T>
void serve(int fd, const Options& o, MPI_Datatype type, int rank, int ranks, Fault fault) {
  Collective<T> collective(type, o.op, rank, ranks, o.count);
  std::vector<double> row;
  for (bool first = true;; first = false) {
    wire::Request request{};
    // End of file without a quit request: the backend is gone, perhaps after sending this call
    // to some ranks only. Abort, so that no rank waits in the collective or in MPI_Finalize.
    if (!read_all(fd, &request, sizeof request)) die("the backend closed the connection");
    if (request.kind == static_cast<std::uint32_t>(wire::RequestKind::quit)) return;
    if (request.kind != static_cast<std::uint32_t>(wire::RequestKind::evaluate) ||
        request.width == 0 || request.width > collective.send.size())
      die("malformed request (kind " + std::to_string(request.kind) + ", width " +
          std::to_string(request.width) + ")");
    row.resize(request.width);
    if (!read_all(fd, row.data(), row.size() * sizeof(double)))
      die("the backend closed the connection in the middle of a request");
    if (first && rank == ranks - 1 && fault == Fault::crash) std::abort();
    if (first && rank == ranks - 1 && fault == Fault::hang)
      for (;;) pause();
    collective.fill(row);
    collective.run();
    const std::vector<double> out = collective.results(fault);
    wire::Response response{};
    response.status = static_cast<std::uint32_t>(wire::Status::ok);
    response.outputs = out.size();
    write_all(fd, &response, sizeof response);
    write_all(fd, out.data(), out.size() * sizeof(double));
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const Options options = parse_options(argc, argv);
  const Fault fault = fault_from_environment();
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

  if (options.float32)
    serve<float>(fd, options, MPI_FLOAT, rank, ranks, fault);
  else
    serve<double>(fd, options, MPI_DOUBLE, rank, ranks, fault);
  ::close(fd);
  MPI_Finalize();
  return 0;
}
