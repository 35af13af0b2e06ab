# fprev_add_unit_tests(<exe> <dir> <libs...>): one GoogleTest executable from <dir>/*.cpp, each test
# registered with CTest (label "unit") through gtest_discover_tests.
if(FPREV_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()

# Test programs are most of what a build compiles (GoogleTest's headers and macros in every file):
# one precompiled header of GoogleTest and the standard library per executable, and -O1 for the
# test code itself (what it tests, in the libraries, keeps the build type's optimisation). CI's
# three builds take a third less time.
function(fprev_quick_test_build exe)
  target_precompile_headers(${exe} PRIVATE <gtest/gtest.h> <algorithm> <cstddef> <cstdint> <functional> <map>
                            <memory> <optional> <set> <sstream> <string> <string_view> <vector>)
  if(CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo)$")
    target_compile_options(${exe} PRIVATE -O1)
  endif()
endfunction()

function(fprev_add_unit_tests exe dir)
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(NOT sources)
    return()
  endif()
  add_executable(${exe} ${sources})
  target_link_libraries(${exe} PRIVATE ${ARGN} fprev_test_support GTest::gtest GTest::gtest_main)
  fprev_strict_target(${exe})
  fprev_quick_test_build(${exe})
  gtest_discover_tests(${exe} PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
endfunction()
