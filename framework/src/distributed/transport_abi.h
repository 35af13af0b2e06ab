/* The C interface of the MPI transport plugins (libfprev-mpi-transport-<mpi>.so), version 1.
 *
 * fprev-golden never links MPI: a plain `--version` or a CPU reveal must map no MPI library, and
 * Open MPI and MPICH (which Debian installs side by side) have different ABIs. Each plugin is
 * compiled with its implementation's own compiler wrapper (mpicxx.openmpi, mpicxx.mpich) and is
 * loaded with dlopen only in distributed mode, when fprev-golden finds itself started by that
 * implementation's launcher (or is told with --mpi).
 *
 * Every call is made by one thread at a time (MPI_THREAD_SERIALIZED): the framework's MpiLink
 * serialises them. Nothing here blocks except init, finalize and a receive of a message that a
 * probe has already matched. */
#ifndef FPREV_MPI_TRANSPORT_ABI_H
#define FPREV_MPI_TRANSPORT_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FPREV_MPI_TRANSPORT_ABI_VERSION 1

struct fprev_mpi_transport {
  int abi_version; /* FPREV_MPI_TRANSPORT_ABI_VERSION */
  const char* implementation; /* "Open MPI 4.1.4", "MPICH 4.0.2" (MPI_Get_library_version, first line) */
  /* MPI_Init_thread(MPI_THREAD_SERIALIZED). 0 on success; otherwise a message in `error`. */
  int (*init)(int* rank, int* size, char* host, size_t host_bytes, char* error, size_t error_bytes);
  /* Starts sending `bytes` bytes to `dest` with `tag`; the data must live until send_done says 1.
   * Returns a handle (>= 0), or -1 (message in error). */
  int (*send_start)(int dest, int tag, const void* data, size_t bytes, char* error, size_t error_bytes);
  /* 1 when the send of `handle` has completed (the handle is then free), 0 if not yet, -1 on error. */
  int (*send_done)(int handle);
  /* Looks for a message from `source` (-1: any) with `tag` (-1: any) without waiting. 1: one was
   * matched (its source, tag and size are set, and the next receive_matched takes it), 0: none. */
  int (*probe)(int source, int tag, int* out_source, int* out_tag, size_t* out_bytes);
  /* Receives the message the last successful probe matched into `data` (out_bytes long). 0: ok. */
  int (*receive_matched)(void* data);
  void (*finalize)(void);
  void (*abort_job)(int status);
};

/* The entry point each plugin exports. */
typedef const struct fprev_mpi_transport* (*fprev_mpi_transport_entry)(void);
const struct fprev_mpi_transport* fprev_mpi_transport_v1(void);

#ifdef __cplusplus
}
#endif

#endif
