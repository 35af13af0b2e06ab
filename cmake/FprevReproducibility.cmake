# fprev_add_reproducibility_suites(): one CTest test per suite case.
#
#   fprev_add_reproducibility_suites(
#     SUITES <file-or-directory>...     # YAML suites (a directory contributes its *.yaml)
#     GOLDEN_DIR <directory>            # where goldens are read (and written by `update`)
#     [BACKEND_MODULES <target>...]     # backend modules of this project the suites use
#                                       # (fprev_add_backend_module), found through FPREV_BACKEND_PATH
#     [EXECUTABLE <target or path>]     # default: fprev::fprev-golden (installed or in this build)
#     [STRICT])                         # missing goldens fail instead of being skipped; also
#                                       # -DFPREV_STRICT=ON, or FPREV_STRICT=1 when ctest runs
#
# The cases are discovered when ctest runs (in the spirit of gtest_discover_tests): ctest asks
# `fprev-golden list --cmake-tests` for the current suites, so adding a case to a YAML file needs
# no CMake edit and no rebuild. Each test is named reproducibility/<suite>/<backend>/<case> and
# labelled reproducibility, <suite> and <backend>. A missing golden or an unusable backend is a
# CTest skip (exit code 77) whose output gives the `fprev-golden update` command of the case and of
# the whole suite. A suite with no golden at all (a new project) says so when ctest starts, with
# the command that records it, and its test reproducibility/<suite>/goldens-missing fails: a first
# ctest never reads "100% tests passed" having compared nothing. The tests run the real executable with absolute paths, so a command they print
# works when pasted into a shell.
#
# A suite file that cannot be read (invalid, or using a backend whose module is not found) never
# empties a filtered run: it becomes a failing test reproducibility/<suite>/(invalid suite file)
# labelled reproducibility, <suite> and every backend instance and case label that could still be
# read, plus a failing test under the name and labels of each case that could still be read. So
# `ctest -L <suite>`, `ctest -L <backend>` and `ctest -R <case>` fail instead of finding no test.
#
# GOLDEN_DIR is created when the project is configured (and again when ctest runs, should it have
# been removed): the first ctest of a new project skips every case, saying how to record it, rather
# than failing on a folder nobody made yet. (A --golden DIR typed by hand that does not exist stays
# an error of `check`.)
#
# The target fprev-update records (or re-baselines) the goldens of every suite registered here:
#   cmake --build <build> --target fprev-update
# It runs `fprev-golden update` with the same suites, golden folder and backend modules as the
# tests; review the change (git diff) before committing it.
function(fprev_add_reproducibility_suites)
  cmake_parse_arguments(ARG "STRICT" "GOLDEN_DIR;EXECUTABLE" "SUITES;BACKEND_MODULES" ${ARGN})
  if(NOT ARG_SUITES OR NOT ARG_GOLDEN_DIR)
    message(FATAL_ERROR "fprev_add_reproducibility_suites: SUITES and GOLDEN_DIR are required")
  endif()
  if(NOT ARG_EXECUTABLE)
    if(TARGET fprev::fprev-golden)
      set(ARG_EXECUTABLE fprev::fprev-golden)
    else()
      message(FATAL_ERROR "fprev_add_reproducibility_suites: no fprev::fprev-golden target; call "
                          "find_package(fprev_golden CONFIG REQUIRED) first, or pass EXECUTABLE")
    endif()
  endif()
  if(TARGET ${ARG_EXECUTABLE})
    set(exe "$<TARGET_FILE:${ARG_EXECUTABLE}>")
  elseif(ARG_EXECUTABLE MATCHES "/")
    get_filename_component(exe "${ARG_EXECUTABLE}" ABSOLUTE)
  else()  # a bare name: the program of that name on PATH, as an absolute path
    find_program(exe_${ARG_EXECUTABLE} NAMES ${ARG_EXECUTABLE} REQUIRED)
    set(exe "${exe_${ARG_EXECUTABLE}}")
  endif()
  set(suite_args "")
  foreach(s IN LISTS ARG_SUITES)
    get_filename_component(s "${s}" ABSOLUTE)
    list(APPEND suite_args --suites "${s}")
  endforeach()
  get_filename_component(golden "${ARG_GOLDEN_DIR}" ABSOLUTE)
  file(MAKE_DIRECTORY "${golden}")
  set(strict "")
  if(ARG_STRICT OR FPREV_STRICT)
    set(strict "--strict")
  endif()

  # The directories of this project's backend modules go in front of FPREV_BACKEND_PATH for the
  # discovery, and `list --cmake-tests` gives every test the path it ran with.
  set(module_dirs "")
  foreach(module IN LISTS ARG_BACKEND_MODULES)
    if(NOT TARGET ${module})
      message(FATAL_ERROR "fprev_add_reproducibility_suites: BACKEND_MODULES '${module}' is not a "
                          "target (create it with fprev_add_backend_module)")
    endif()
    list(APPEND module_dirs "$<TARGET_FILE_DIR:${module}>")
  endforeach()
  list(JOIN module_dirs ":" module_dirs)

  string(SHA1 key "${suite_args};${golden}")
  string(SUBSTRING "${key}" 0 10 key)
  set(script "${CMAKE_CURRENT_BINARY_DIR}/fprev_reproducibility_${key}.cmake")
  set(generated "${CMAKE_CURRENT_BINARY_DIR}/fprev_reproducibility_${key}_tests.cmake")
  set(quoted_suites "")
  foreach(a IN LISTS suite_args)
    string(APPEND quoted_suites " [==[${a}]==]")
  endforeach()
  set(quoted_suite_paths "")
  foreach(s IN LISTS ARG_SUITES)
    get_filename_component(s "${s}" ABSOLUTE)
    string(APPEND quoted_suite_paths " [==[${s}]==]")
  endforeach()
  file(GENERATE OUTPUT "${script}" CONTENT "# Generated by fprev_add_reproducibility_suites: discovers the suite cases when ctest runs.
set(fprev_module_dirs [==[${module_dirs}]==])
set(fprev_cmake_command [==[${CMAKE_COMMAND}]==])  # reproducibility/<suite>/goldens-missing runs cmake -E echo
set(fprev_saved_path \"\$ENV{FPREV_BACKEND_PATH}\")
if(fprev_module_dirs AND fprev_saved_path)
  set(ENV{FPREV_BACKEND_PATH} \"\${fprev_module_dirs}:\${fprev_saved_path}\")
elseif(fprev_module_dirs)
  set(ENV{FPREV_BACKEND_PATH} \"\${fprev_module_dirs}\")
endif()
set(fprev_discovery_path \"\$ENV{FPREV_BACKEND_PATH}\")
file(MAKE_DIRECTORY [==[${golden}]==])
execute_process(
  COMMAND [==[${exe}]==] list ${quoted_suites} --golden [==[${golden}]==] ${strict} --cmake-tests [==[${exe}]==]
  OUTPUT_VARIABLE fprev_tests ERROR_VARIABLE fprev_error RESULT_VARIABLE fprev_status)
set(ENV{FPREV_BACKEND_PATH} \"\${fprev_saved_path}\")
if(NOT fprev_status EQUAL 0)
  # The discovery itself failed (an invalid suite file is a failing test of its own, from list
  # --cmake-tests): one failing test shows why, labelled with every suite file's name as well, so
  # that `ctest -L <suite>` fails too instead of finding no test.
  set(fprev_labels reproducibility)
  foreach(fprev_path IN ITEMS ${quoted_suite_paths})
    if(IS_DIRECTORY \"\${fprev_path}\")
      file(GLOB fprev_files \"\${fprev_path}/*.yaml\" \"\${fprev_path}/*.yml\")
    else()
      set(fprev_files \"\${fprev_path}\")
    endif()
    foreach(fprev_file IN LISTS fprev_files)
      get_filename_component(fprev_stem \"\${fprev_file}\" NAME_WE)
      list(APPEND fprev_labels \"\${fprev_stem}\")
    endforeach()
  endforeach()
  add_test([==[reproducibility/suites]==] [==[${exe}]==] list ${quoted_suites})
  set_tests_properties([==[reproducibility/suites]==] PROPERTIES LABELS \"\${fprev_labels}\")
  if(fprev_discovery_path)
    set_tests_properties([==[reproducibility/suites]==] PROPERTIES
                         ENVIRONMENT \"FPREV_BACKEND_PATH=\${fprev_discovery_path}\")
  endif()
else()
  file(WRITE [==[${generated}]==] \"\${fprev_tests}\")
  include([==[${generated}]==])
endif()
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${script}")

  # fprev-update: one fprev-update-<key> per call, all run by fprev-update.
  set(update_command "${exe}" update ${suite_args} --golden "${golden}")
  if(module_dirs)
    set(update_command ${CMAKE_COMMAND} -E env "FPREV_BACKEND_PATH=${module_dirs}" ${update_command})
  endif()
  add_custom_target(fprev-update-${key}
    COMMAND ${update_command}
    COMMENT "fprev-golden update: recording the goldens of ${ARG_SUITES} in ${golden}"
    USES_TERMINAL VERBATIM)
  if(ARG_BACKEND_MODULES)
    add_dependencies(fprev-update-${key} ${ARG_BACKEND_MODULES})
  endif()
  if(NOT TARGET fprev-update)
    add_custom_target(fprev-update)
  endif()
  add_dependencies(fprev-update fprev-update-${key})
endfunction()
