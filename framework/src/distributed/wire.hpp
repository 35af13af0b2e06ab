// What ranks say to each other in distributed mode (fprev/distributed.hpp): the worker protocol's
// requests and replies wrapped with what the serving rank needs to supervise the worker itself.
//
//   tag 0 (heartbeat), both ways: {}                                  a few times a second (liveness.hpp)
//   tag 1 (control), rank r -> 0: {"op": "hello", "host": ...}       once, when the rank is up
//   tag 1 (control), rank 0 -> r: {"op": "shutdown"}                 the end of the session
//   tag W (a worker, W >= 2), rank 0 -> r:
//     {"op": "spawn", "argv": [...], "environment": [[name, value]...], "subject": ..., "limits": {...}}
//     {"op": "call", "request": {...}, "in_flight": {...}, "deadline": {"left", "budget"} | null,
//      "shm": bytes} + the first `shm` bytes of the shared memory
//     {"op": "close"}                                                  (no reply)
//   tag W, rank r -> 0: {"ok": true} | {"reply": {...}, "shm": bytes} + the shared memory back
//     | {"fault": {"name", "message", "cause"}} | {"error": <protocol error_to_json>}
#pragma once

namespace fprev::distributed {

constexpr int kHeartbeatTag = 0;
constexpr int kControlTag = 1;
constexpr int kFirstWorkerTag = 2;
// MPI guarantees tags up to 32767 (MPI_TAG_UB is at least that).
constexpr int kLastWorkerTag = 32767;

}  // namespace fprev::distributed
