#include "other_symbols.hpp"

namespace fprev_trace {
namespace {

#define FPREV_COUNTED(index, ret, name, params, args) #name,
const char* const kNames[] = {
#include "other_symbols.def"
};
#undef FPREV_COUNTED

}  // namespace

const char* other_symbol_name(int index) {
  return index >= 0 && index < other_symbol_count() ? kNames[index] : "?";
}
int other_symbol_count() { return static_cast<int>(sizeof(kNames) / sizeof(kNames[0])); }

}  // namespace fprev_trace
