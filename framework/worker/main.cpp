// fprev-golden-worker: runs the targets of one backend for a supervising fprev-golden (the worker
// protocol, docs/worker-protocol.md). Started by fprev-golden with the message socket on descriptor
// 3 and the shared memory on 4; not a command for people.
#include <cstring>
#include <iostream>

#include "fprev/backend.hpp"
#include "fprev/worker.hpp"

int main(int argc, char** argv) {
  if (argc != 3 || std::strcmp(argv[1], "--backend") != 0) {
    std::cerr << "usage: fprev-golden-worker --backend NAME (started by fprev-golden; see "
                 "docs/worker-protocol.md)\n";
    return 2;
  }
  return fprev::serve_worker(fprev::builtin_backends_in_process(), argv[2]);
}
