# Warnings (as errors in CI) and sanitizers, applied to our own targets only.
function(fprev_strict_target target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion)
  # GCC 12 reports -Wrestrict, -Wstringop-overflow/-overread and -Warray-bounds inside libstdc++'s
  # std::string (assignment from a literal, operator+) where there is no overlap and no overflow,
  # depending on what was inlined (the optimisation level, a precompiled header): GCC bugs 105329
  # and 105651, fixed in GCC 13. Only that version is spared.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
     AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict -Wno-stringop-overflow -Wno-stringop-overread
                                             -Wno-array-bounds)
  endif()
  if(FPREV_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(FPREV_SANITIZE)
    # GCC's -Wmaybe-uninitialized reports false positives inside libstdc++ (std::regex,
    # std::function) once sanitizer instrumentation is on; the plain build keeps the warning.
    target_compile_options(${target} PRIVATE -fsanitize=${FPREV_SANITIZE} -fno-omit-frame-pointer
                                             -fno-sanitize-recover=all -Wno-maybe-uninitialized)
    target_link_options(${target} PRIVATE -fsanitize=${FPREV_SANITIZE})
  endif()
endfunction()
