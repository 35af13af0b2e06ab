// The names of the routines other_symbols.def counts, by index.
#pragma once

namespace fprev_trace {

const char* other_symbol_name(int index);
int other_symbol_count();

}  // namespace fprev_trace
