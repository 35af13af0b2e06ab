# fprev_add_backend_module(): a backend module, a shared library that fprev-golden loads when a case
# of its backend runs (fprev/backend_module.hpp).
#
#   fprev_add_backend_module(<target>
#     NAME <backend>                  # the backend it registers; the file is fprev_backend_<backend>.so
#     SOURCES <file>...               # one of them uses FPREV_BACKEND_MODULE(registry) { ... }
#     [OUTPUT_DIRECTORY <directory>]) # default: the target's usual output directory
#
# The module links fprev::framework, the shared library the loading program uses too, and exports
# nothing but its two entry points (compiled with hidden visibility). Add further libraries with
# target_link_libraries(<target> PRIVATE ...). fprev-golden finds the module through
# FPREV_BACKEND_PATH (fprev_add_reproducibility_suites(... BACKEND_MODULES <target>) sets it for the
# tests), in <prefix>/lib/fprev-golden next to the installed framework, or next to the executable.
function(fprev_add_backend_module target)
  cmake_parse_arguments(ARG "" "NAME;OUTPUT_DIRECTORY" "SOURCES" ${ARGN})
  if(NOT ARG_NAME OR NOT ARG_SOURCES)
    message(FATAL_ERROR "fprev_add_backend_module(${target}): NAME and SOURCES are required")
  endif()
  if(NOT ARG_NAME MATCHES "^[A-Za-z0-9_-]+$")
    message(FATAL_ERROR "fprev_add_backend_module(${target}): NAME '${ARG_NAME}' may hold only "
                        "letters, digits, '_' and '-' (it is a backend name and part of a file name)")
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE fprev::framework)
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME fprev_backend_${ARG_NAME}
    SUFFIX ".so"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    FPREV_BACKEND_NAME ${ARG_NAME})
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  endif()
endfunction()
