# Warnings (as errors in CI) and sanitizers, applied to our own targets only.
function(fprev_strict_target target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion)
  if(FPREV_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(FPREV_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${FPREV_SANITIZE} -fno-omit-frame-pointer
                                             -fno-sanitize-recover=all)
    target_link_options(${target} PRIVATE -fsanitize=${FPREV_SANITIZE})
  endif()
endfunction()
