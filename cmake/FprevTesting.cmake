# fprev_add_unit_tests(<exe> <dir> <libs...>): one GoogleTest executable from <dir>/*.cpp, each test
# registered with CTest (label "unit") through gtest_discover_tests.
if(FPREV_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()

function(fprev_add_unit_tests exe dir)
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(NOT sources)
    return()
  endif()
  add_executable(${exe} ${sources})
  target_link_libraries(${exe} PRIVATE ${ARGN} fprev_test_support GTest::gtest GTest::gtest_main)
  fprev_strict_target(${exe})
  gtest_discover_tests(${exe} PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
endfunction()
