// The wire format between the mpi backend (inside fprev-golden, which never links MPI) and its
// probe program (fprev-mpi-probe-<family>, built with that MPI's compiler wrapper and run under its
// launcher). Both sides include this header; it needs neither MPI nor the framework.
//
// The backend listens and every rank connects to it:
//   --socket PATH       a Unix stream socket in a private directory (mode 0700): the ranks run on
//                       this machine;
//   --connect HOST:PORT a TCP port on this machine (HOST is its name), when the ranks may run on
//                       other nodes. Anyone on the network can connect to it, so a rank first
//                       sends the job's token: kTokenBytes characters that the backend drew at
//                       random and gave the ranks in the environment variable kTokenVariable (the
//                       environment, unlike a command line, is not visible to other users; Open
//                       MPI forwards it with -x, MPICH's hydra forwards the whole environment).
//                       A connection with another token is closed.
// Between calls each rank sleeps in read() on its own connection: an oversubscribed MPI whose
// ranks busy-poll (MPICH) would otherwise keep every core busy while the engine thinks. Values
// travel in native byte order: the nodes of one job share it (a protocol version read with the
// other byte order does not match).
//
//   rank r -> backend  [token, over TCP] Hello; rank 0 then sends library_version_bytes of
//                      MPI_Get_library_version() and cvar_bytes of "name\tvalue\n" lines (the
//                      MPI_T control variables asked for on its command line), other ranks none;
//                      then every rank sends processor_name_bytes of MPI_Get_processor_name()
//                      (the node it runs on: the backend checks the layout the key states)
//   backend -> rank r  Request{configure}, then a Configuration: the collective the following
//                      evaluate requests run (op, dtype, count). A job serves one case after
//                      another, each beginning with its configuration (a job is started for a
//                      launch, not for a case: backends/mpi/src/job_pool.hpp)
//   rank r -> backend  Response (no outputs; `failed` with a message when the configuration
//                      cannot be served)
//   backend -> rank r  Request{evaluate}, then `width` doubles: element e of rank r's send buffer is
//                      value[e % width], converted to the case's dtype; then every rank calls the
//                      collective once. Each element is a reduction of its own, so one call
//                      carries `width` independent inputs: element p of every rank's buffer
//                      holds rank r's summand of input p (the backend's grid target places
//                      input p on element p; width 1 puts one input on every element; elements
//                      beyond the inputs repeat them, and the backend ignores their results)
//   rank r -> backend  Response, then `outputs` doubles, then message_bytes of text:
//                        reduce                rank 0: its count results; other ranks: none
//                        allreduce             every rank: its count results
//                        reduce_scatter_block  every rank: its block of count results
//   backend -> rank r  Request{quit}: every rank leaves MPI cleanly. End of file on a rank's
//                      connection (the backend is gone) makes that rank call MPI_Abort, which
//                      ends the whole job, so no job outlives the backend.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fprev::mpi::wire {

inline constexpr char kMagic[8] = {'F', 'P', 'R', 'V', 'M', 'P', 'I', '1'};
// 2: processor names in the greeting, TCP with a token. 3: the collective is configured per case
// (Request{configure}), no longer on the command line. 4: Response::idle_yields.
inline constexpr std::uint32_t kProtocolVersion = 4;

inline constexpr const char* kTokenVariable = "FPREV_MPI_TOKEN";
inline constexpr std::size_t kTokenBytes = 64;  // hexadecimal digits of 32 random bytes

struct Hello {
  char magic[8];
  std::uint32_t protocol_version;
  std::uint32_t rank;            // MPI_Comm_rank(MPI_COMM_WORLD)
  std::uint32_t ranks;           // MPI_Comm_size(MPI_COMM_WORLD)
  std::uint32_t mpi_version;     // MPI_Get_version
  std::uint32_t mpi_subversion;
  std::uint32_t library_version_bytes;
  std::uint32_t cvar_bytes;
  std::uint32_t processor_name_bytes;
};

enum class RequestKind : std::uint32_t { evaluate = 1, quit = 2, configure = 3 };

struct Request {
  std::uint32_t kind;   // RequestKind
  std::uint32_t width;  // evaluate: doubles that follow; 1 <= width <= the send buffer's length
};

enum class Op : std::uint32_t { reduce = 1, allreduce = 2, reduce_scatter_block = 3 };
enum class Dtype : std::uint32_t { float64 = 1, float32 = 2 };

// Follows Request{configure}.
struct Configuration {
  std::uint32_t op;     // Op
  std::uint32_t dtype;  // Dtype
  std::uint64_t count;  // elements per call (reduce_scatter_block: per rank's block), >= 1
};

enum class Status : std::uint32_t {
  ok = 0,
  failed = 1,  // the request could not be served; the message says why
};

struct Response {
  std::uint32_t status;  // Status
  std::uint32_t message_bytes;
  std::uint64_t outputs;  // doubles that follow
  // How often this rank has given its core up while waiting, since it started (--idle-yield on,
  // MPICH with UCX: idle_yield.hpp); 0 otherwise.
  std::uint64_t idle_yields;
};

// Upper bounds both sides check before allocating.
inline constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 24;
inline constexpr std::uint32_t kMaxText = 1u << 20;

}  // namespace fprev::mpi::wire
