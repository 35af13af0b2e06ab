// An MPI transport plugin (transport_abi.h): the few MPI calls distributed mode needs, compiled
// with one implementation's compiler wrapper into libfprev-mpi-transport-<mpi>.so.
//
// Sends are non-blocking (MPI_Isend, completed by polling) and receives use matched probes
// (MPI_Improbe / MPI_Mrecv, MPI-3), so that the caller can wait without spinning inside MPI: an
// oversubscribed job (more ranks than cores) must leave the cores to the targets.
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "transport_abi.h"

namespace {

char implementation[256] = "MPI";
std::vector<MPI_Request> sends;  // by handle; MPI_REQUEST_NULL: free
MPI_Message matched = MPI_MESSAGE_NULL;
int matched_count = 0;

void say(char* error, size_t bytes, const char* text, int code) {
  if (error == nullptr || bytes == 0) return;
  char mpi_text[MPI_MAX_ERROR_STRING] = "";
  int length = 0;
  if (code != MPI_SUCCESS) MPI_Error_string(code, mpi_text, &length);
  std::snprintf(error, bytes, "%s%s%s", text, length > 0 ? ": " : "", mpi_text);
}

// FPREV_MPI_TRANSPORT_TEST_PRINT (tests only): print a line on standard output after MPI_Init and
// before MPI_Finalize, as MPI libraries do (MPICH's UCX logs there at MPI_Finalize).
void print_as_a_library_does(const char* when) {
  if (std::getenv("FPREV_MPI_TRANSPORT_TEST_PRINT") == nullptr) return;
  std::printf("[a line an MPI library printed on standard output %s]\n", when);
  std::fflush(stdout);
}

int init(int* rank, int* size, char* host, size_t host_bytes, char* error, size_t error_bytes) {
  int argc = 0;
  char** argv = nullptr;
  int provided = 0;
  int code = MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  if (code != MPI_SUCCESS) {
    say(error, error_bytes, "MPI_Init_thread failed", code);
    return 1;
  }
  if (provided < MPI_THREAD_SERIALIZED) {
    say(error, error_bytes, "this MPI provides no MPI_THREAD_SERIALIZED (the gate calls MPI from several threads, one at a time)", MPI_SUCCESS);
    return 1;
  }
  print_as_a_library_does("after MPI_Init");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  char name[MPI_MAX_PROCESSOR_NAME] = "";
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::snprintf(host, host_bytes, "%s", name);
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  MPI_Get_library_version(version, &length);
  std::snprintf(implementation, sizeof implementation, "%.*s", static_cast<int>(std::strcspn(version, "\n,")), version);
  return 0;
}

int send_start(int dest, int tag, const void* data, size_t bytes, char* error, size_t error_bytes) {
  if (bytes > static_cast<size_t>(INT_MAX)) {
    say(error, error_bytes, "a message over 2 GiB", MPI_SUCCESS);
    return -1;
  }
  std::size_t handle = 0;
  while (handle < sends.size() && sends[handle] != MPI_REQUEST_NULL) ++handle;
  if (handle == sends.size()) sends.push_back(MPI_REQUEST_NULL);
  const int code = MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE, dest, tag, MPI_COMM_WORLD, &sends[handle]);
  if (code != MPI_SUCCESS) {
    sends[handle] = MPI_REQUEST_NULL;
    say(error, error_bytes, "MPI_Isend failed", code);
    return -1;
  }
  return static_cast<int>(handle);
}

int send_done(int handle) {
  if (handle < 0 || static_cast<std::size_t>(handle) >= sends.size()) return -1;
  if (sends[static_cast<std::size_t>(handle)] == MPI_REQUEST_NULL) return 1;
  int done = 0;
  if (MPI_Test(&sends[static_cast<std::size_t>(handle)], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
  return done != 0 ? 1 : 0;
}

int probe(int source, int tag, int* out_source, int* out_tag, size_t* out_bytes) {
  int found = 0;
  MPI_Status status;
  if (MPI_Improbe(source < 0 ? MPI_ANY_SOURCE : source, tag < 0 ? MPI_ANY_TAG : tag, MPI_COMM_WORLD, &found,
                  &matched, &status) != MPI_SUCCESS)
    return -1;
  if (found == 0) return 0;
  MPI_Get_count(&status, MPI_BYTE, &matched_count);
  *out_source = status.MPI_SOURCE;
  *out_tag = status.MPI_TAG;
  *out_bytes = static_cast<size_t>(matched_count);
  return 1;
}

int receive_matched(void* data) {
  if (matched == MPI_MESSAGE_NULL) return 1;
  const int code = MPI_Mrecv(data, matched_count, MPI_BYTE, &matched, MPI_STATUS_IGNORE);
  matched = MPI_MESSAGE_NULL;
  return code == MPI_SUCCESS ? 0 : 1;
}

void finalize() {
  print_as_a_library_does("before MPI_Finalize");
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
}

void abort_job(int status) { MPI_Abort(MPI_COMM_WORLD, status); }

fprev_mpi_transport table = {FPREV_MPI_TRANSPORT_ABI_VERSION, implementation, init, send_start, send_done,
                             probe, receive_matched, finalize, abort_job};

}  // namespace

extern "C" const fprev_mpi_transport* fprev_mpi_transport_v1(void) { return &table; }
