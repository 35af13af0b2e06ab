// Where the program makes a call: a few native frames (return addresses, symbolised when the trace
// is written) and, in a Python program, the innermost Python frames (file, line, function).
#pragma once

#include <cstddef>
#include <cstdio>

namespace fprev_trace {

struct CallSite {
  static constexpr int kFrames = 4;
  static constexpr std::size_t kPythonText = 240;
  void* frames[kFrames] = {};
  int frame_count = 0;
  char python[kPythonText] = {};

  bool same_as(const CallSite& other) const;
};

// Captures the site of the call being recorded. Runs outside the table's lock: reading Python
// frames takes the GIL.
void capture_call_site(CallSite& site);
// "a.out(main+0x4c) <- libc.so.6(+0x2724a) <- example.py:7 in <module>", innermost first.
void write_call_site(std::FILE* out, const CallSite& site);
// Loads what backtrace() needs before the program runs (its first call may allocate and dlopen).
void prepare_call_sites();

}  // namespace fprev_trace
