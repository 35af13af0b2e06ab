// The entry point of the module fprev_backend_kahan.so, which fprev-golden loads when a suite says
// `use: kahan` (fprev/backend_module.hpp).
#include "fprev/backend_module.hpp"
#include "kahan/kahan_backend.hpp"

FPREV_BACKEND_MODULE(registry) { registry.add(kahan::make_backend()); }
