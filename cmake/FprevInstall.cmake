# Installation and the CMake package: `cmake --install build --prefix <prefix>`, then in another
# project `find_package(fprev_golden CONFIG REQUIRED)` gives
#   fprev::framework                    the shared framework library and its public headers
#   fprev::fprev-golden                 the executable (imported)
#   fprev_add_reproducibility_suites()  CTest tests from suites, running the installed executable
#   fprev_add_backend_module()          a backend module of the downstream project
#   fprev_golden_MODULE_DIR             <prefix>/lib/fprev-golden, where installed modules are found
include(CMakePackageConfigHelpers)

# The executable finds the framework, and the modules find it too, relative to themselves, so the
# installed tree can be moved.
file(RELATIVE_PATH fprev_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
set_target_properties(fprev-golden PROPERTIES INSTALL_RPATH "$ORIGIN/${fprev_bin_to_lib}")

# CMAKE_NO_BUILTIN_CHRPATH (top-level CMakeLists.txt) installs relinked copies of the binaries
# (their build-tree RUNPATH then needs no padding, whose empty entry would mean the current
# directory). `cmake --install` alone does not make those copies: the first install step does, so
# that `cmake --build build && cmake --install build --prefix P` works as documented.
if(CMAKE_GENERATOR MATCHES "Makefiles")
  set(fprev_relink_target "preinstall/fast")  # relinks the installed targets only, builds nothing else
else()
  set(fprev_relink_target "preinstall")
endif()
install(CODE "
  execute_process(COMMAND \"${CMAKE_COMMAND}\" --build \"${PROJECT_BINARY_DIR}\" --target ${fprev_relink_target}
                  RESULT_VARIABLE fprev_relinked OUTPUT_QUIET)
  if(NOT fprev_relinked EQUAL 0)
    message(FATAL_ERROR \"could not relink the binaries for installation (cmake --build ${PROJECT_BINARY_DIR} --target ${fprev_relink_target})\")
  endif()")
install(TARGETS fprev_framework fprev-golden EXPORT fprev_goldenTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The worker foreign backends run in (fprev/worker.hpp), where the framework looks for it.
install(TARGETS fprev-golden-worker RUNTIME DESTINATION ${FPREV_INSTALL_MODULEDIR})
# Distributed mode's MPI transports (framework/mpi_transport), loaded from beside the worker.
if(FPREV_MPI_TRANSPORTS)
  install(PROGRAMS ${FPREV_MPI_TRANSPORTS} DESTINATION ${FPREV_INSTALL_MODULEDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/framework/include/fprev ${FPREV_GENERATED_INCLUDE_DIR}/fprev
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Backend modules of this build (the CUDA part of cuBLAS), where the installed framework looks.
get_property(FPREV_INSTALLED_MODULES GLOBAL PROPERTY FPREV_SHIPPED_BACKEND_MODULES)
if(FPREV_INSTALLED_MODULES)
  set_target_properties(${FPREV_INSTALLED_MODULES} PROPERTIES
    INSTALL_RPATH "$ORIGIN/.."
    INSTALL_RPATH_USE_LINK_PATH ON)  # keeps e.g. the CUDA toolkit's library directory
  install(TARGETS ${FPREV_INSTALLED_MODULES} LIBRARY DESTINATION ${FPREV_INSTALL_MODULEDIR})
endif()

# The documentation the help and the error messages point to, under <prefix>/share/doc/fprev-golden,
# laid out as in the repository so that the README's links into docs/ and backends/ work there too:
# README.md and SECURITY.md, docs/ (the guide: docs/json.md, the suite format, ...) and each
# backend's README.
set(FPREV_INSTALL_DOCDIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/fprev-golden)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${FPREV_INSTALL_DOCDIR}/docs)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/SECURITY.md DESTINATION ${FPREV_INSTALL_DOCDIR})
file(GLOB FPREV_BACKEND_READMES RELATIVE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/backends/*/README.md)
foreach(readme IN LISTS FPREV_BACKEND_READMES)
  get_filename_component(readme_dir ${readme} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${readme} DESTINATION ${FPREV_INSTALL_DOCDIR}/${readme_dir})
endforeach()

install(EXPORT fprev_goldenTargets NAMESPACE fprev:: DESTINATION ${FPREV_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/fprev_goldenConfig.cmake.in
  ${PROJECT_BINARY_DIR}/fprev_goldenConfig.cmake
  INSTALL_DESTINATION ${FPREV_INSTALL_CMAKEDIR}
  PATH_VARS FPREV_INSTALL_MODULEDIR)
# Same major version, and not older than asked. The framework's C++ interface has no ABI promise,
# but a 0.x minor version bump may change it: modules are checked at load time (backend_module.hpp).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/fprev_goldenConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/fprev_goldenConfig.cmake
              ${PROJECT_BINARY_DIR}/fprev_goldenConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FprevReproducibility.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FprevBackendModule.cmake
        DESTINATION ${FPREV_INSTALL_CMAKEDIR})

# Everything `cmake --install` needs, and nothing else (no tests, no benchmarks): what
# scripts/test-package builds with the plain default options before installing.
add_custom_target(fprev_installable DEPENDS fprev_framework fprev-golden fprev-golden-worker ${FPREV_INSTALLED_MODULES})
if(TARGET fprev_python_worker)
  add_dependencies(fprev_installable fprev_python_worker)  # the python backend's worker script
endif()
