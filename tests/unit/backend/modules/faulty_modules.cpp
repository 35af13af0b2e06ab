// Test modules that must be refused, each compiled from this file with one FPREV_FAULT_* macro
// (tests/CMakeLists.txt): the loader's error names the file and what is wrong.
#include <memory>

#include "fprev/backend_module.hpp"

#if defined(FPREV_FAULT_NOT_A_MODULE)
// A shared library without the entry points.
extern "C" __attribute__((visibility("default"))) int fprev_test_not_a_module() { return 1; }

#elif defined(FPREV_FAULT_OTHER_VERSION)
// Built for another framework version: its ABI string differs; it must never be registered.
extern "C" __attribute__((visibility("default"))) const char* fprev_backend_module_abi_v1() {
  return "fprev-golden 0.0.1 libstdc++";
}
extern "C" __attribute__((visibility("default"))) void fprev_backend_module_register_v1(
    fprev::BackendRegistry& /*registry*/) {
  __builtin_trap();  // the loader must not call it
}

#elif defined(FPREV_FAULT_OTHER_HEADERS)
// This framework version, compiled against other public headers (another checkout, or one edited
// since): the types it shares with the program may be laid out differently; never registered.
extern "C" __attribute__((visibility("default"))) const char* fprev_backend_module_abi_v1() {
  return "fprev-golden " FPREV_VERSION_STRING " headers 0123456789abcdef " FPREV_BACKEND_MODULE_STDLIB;
}
extern "C" __attribute__((visibility("default"))) void fprev_backend_module_register_v1(
    fprev::BackendRegistry& /*registry*/) {
  __builtin_trap();  // the loader must not call it
}

#elif defined(FPREV_FAULT_UNDEFINED_SYMBOL)
// Needs a function no library defines: dlopen(RTLD_NOW) fails and dlerror() names the symbol.
extern "C" int fprev_test_symbol_nobody_defines();
FPREV_BACKEND_MODULE(/*registry*/) { (void)fprev_test_symbol_nobody_defines(); }

#elif defined(FPREV_FAULT_REGISTERS_NOTHING)
FPREV_BACKEND_MODULE(/*registry*/) {}

#elif defined(FPREV_FAULT_THROWS)
FPREV_BACKEND_MODULE(/*registry*/) { throw fprev::ConfigError("", "registration refused"); }

#else
#error "compile with one FPREV_FAULT_* macro"
#endif
