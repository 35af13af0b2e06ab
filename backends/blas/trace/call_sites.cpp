#include "call_sites.hpp"

#include <dlfcn.h>
#include <execinfo.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

namespace fprev_trace {
namespace {

// The Python C API, looked up in the process (Debian's python3 exports it); absent elsewhere.
struct PythonApi {
  void* (*this_thread_state)() = nullptr;  // PyGILState_GetThisThreadState
  int (*ensure)() = nullptr;               // PyGILState_Ensure
  void (*release)(int) = nullptr;          // PyGILState_Release
  int (*initialized)() = nullptr;          // Py_IsInitialized
  void* (*current_frame)() = nullptr;      // PyEval_GetFrame: borrowed
  void* (*frame_back)(void*) = nullptr;    // PyFrame_GetBack: new reference
  void* (*frame_code)(void*) = nullptr;    // PyFrame_GetCode: new reference
  int (*frame_line)(void*) = nullptr;      // PyFrame_GetLineNumber
  void* (*attribute)(void*, const char*) = nullptr;  // PyObject_GetAttrString: new reference
  const char* (*utf8)(void*) = nullptr;    // PyUnicode_AsUTF8
  void (*decref)(void*) = nullptr;         // Py_DecRef
  void (*clear_error)() = nullptr;         // PyErr_Clear
  bool usable = false;
};

template <typename F>
void look_up(F& function, const char* name, bool& all) {
  function = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
  all = all && function != nullptr;
}

const PythonApi& python_api() {
  static const PythonApi api = [] {
    PythonApi a;
    const char* wanted = std::getenv("FPREV_BLAS_TRACE_PYTHON");
    if (wanted != nullptr && std::strcmp(wanted, "0") == 0) return a;
    bool all = true;
    look_up(a.this_thread_state, "PyGILState_GetThisThreadState", all);
    look_up(a.ensure, "PyGILState_Ensure", all);
    look_up(a.release, "PyGILState_Release", all);
    look_up(a.initialized, "Py_IsInitialized", all);
    look_up(a.current_frame, "PyEval_GetFrame", all);
    look_up(a.frame_back, "PyFrame_GetBack", all);
    look_up(a.frame_code, "PyFrame_GetCode", all);
    look_up(a.frame_line, "PyFrame_GetLineNumber", all);
    look_up(a.attribute, "PyObject_GetAttrString", all);
    look_up(a.utf8, "PyUnicode_AsUTF8", all);
    look_up(a.decref, "Py_DecRef", all);
    look_up(a.clear_error, "PyErr_Clear", all);
    a.usable = all;
    return a;
  }();
  return api;
}

void append(char* text, std::size_t size, const char* piece) {
  const std::size_t used = std::strlen(text);
  if (used + 1 >= size) return;
  std::strncat(text, piece, size - used - 1);
}

std::string_view base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}

// "example.py:7 in <module> <- runner.py:3 in main": the innermost Python frames of this thread.
void capture_python(CallSite& site) {
  const PythonApi& py = python_api();
  if (!py.usable || py.initialized() == 0 || py.this_thread_state() == nullptr) return;
  // NumPy releases the GIL around its BLAS calls; the thread's frames stay as they are meanwhile.
  // Taking the GIL back makes reading them safe (and does nothing when the thread holds it).
  const int state = py.ensure();
  void* owned = nullptr;  // the frame this loop holds a reference to
  void* frame = py.current_frame();
  for (int depth = 0; frame != nullptr && depth < 3; ++depth) {
    char piece[160] = {};
    if (void* code = py.frame_code(frame)) {
      void* file = py.attribute(code, "co_filename");
      void* name = py.attribute(code, "co_name");
      const char* file_text = file != nullptr ? py.utf8(file) : nullptr;
      const char* name_text = name != nullptr ? py.utf8(name) : nullptr;
      std::snprintf(piece, sizeof piece, "%s%s:%d in %s", depth == 0 ? "" : " <- ",
                    file_text != nullptr ? file_text : "?", py.frame_line(frame),
                    name_text != nullptr ? name_text : "?");
      if (file != nullptr) py.decref(file);
      if (name != nullptr) py.decref(name);
      py.decref(code);
      if (file_text == nullptr || name_text == nullptr) py.clear_error();
    }
    for (char& c : piece)  // a file name may hold anything; a trace file holds one record a line
      if (static_cast<unsigned char>(c) < 0x20 && c != '\0') c = '?';
    append(site.python, sizeof site.python, piece);
    void* back = py.frame_back(frame);
    if (owned != nullptr) py.decref(owned);
    owned = frame = back;
  }
  if (owned != nullptr) py.decref(owned);
  py.release(state);
}

bool in_interposer(void* address) {
  static const char anchor = 0;
  Dl_info self{}, info{};
  return dladdr(&anchor, &self) != 0 && dladdr(address, &info) != 0 && self.dli_fbase == info.dli_fbase;
}

}  // namespace

bool CallSite::same_as(const CallSite& other) const {
  if (frame_count != other.frame_count || std::strcmp(python, other.python) != 0) return false;
  for (int i = 0; i < frame_count; ++i)
    if (frames[i] != other.frames[i]) return false;
  return true;
}

void capture_call_site(CallSite& site) {
  void* stack[16];
  const int depth = backtrace(stack, 16);
  for (int i = 0; i < depth && site.frame_count < CallSite::kFrames; ++i) {
    if (site.frame_count == 0 && in_interposer(stack[i])) continue;  // the interposer's own frames
    site.frames[site.frame_count++] = stack[i];
  }
  capture_python(site);
}

void write_call_site(std::FILE* out, const CallSite& site) {
  for (int i = 0; i < site.frame_count; ++i) {
    // A return address points after the call: look up the byte before it.
    void* address = static_cast<char*>(site.frames[i]) - 1;
    Dl_info info{};
    if (i != 0) std::fputs(" <- ", out);
    if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) {
      std::fprintf(out, "%p", site.frames[i]);
      continue;
    }
    const std::string_view file = base_name(info.dli_fname);
    const auto offset = [&](void* base) {
      return static_cast<unsigned long>(static_cast<char*>(site.frames[i]) - static_cast<char*>(base));
    };
    if (info.dli_sname != nullptr && info.dli_saddr != nullptr)
      std::fprintf(out, "%.*s(%s+0x%lx)", static_cast<int>(file.size()), file.data(), info.dli_sname,
                   offset(info.dli_saddr));
    else
      std::fprintf(out, "%.*s(+0x%lx)", static_cast<int>(file.size()), file.data(), offset(info.dli_fbase));
  }
  if (site.python[0] != '\0') std::fprintf(out, "%s%s", site.frame_count != 0 ? " <- " : "", site.python);
}

void prepare_call_sites() {
  void* stack[2];
  backtrace(stack, 2);
}

}  // namespace fprev_trace
