# Programs and libraries compiled once per MPI implementation found, each with that implementation's
# own compiler wrapper (mpicxx.openmpi, mpicxx.mpich): Debian installs Open MPI and MPICH side by
# side with different ABIs, and CMake's FindMPI finds only one of them. Used by the mpi backend's
# probe program and by distributed mode's transport plugins.
#
#   fprev_build_with_mpi_wrappers(<out-var>
#     WHAT "<what is built, for messages>"  OUTPUT <path, @family@ replaced by openmpi or mpich>
#     SOURCE <file>  DEPENDS <files...>  FLAGS <wrapper flags...>  MISSING "<what happens without it>")
#
# <out-var> receives the outputs of the families whose wrapper was found.
function(fprev_build_with_mpi_wrappers out_var)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "WHAT;OUTPUT;SOURCE;MISSING" "DEPENDS;FLAGS")
  set(outputs "")
  foreach(family openmpi mpich)
    find_program(FPREV_MPI_${family}_CXX NAMES mpicxx.${family} DOC "C++ compiler wrapper of ${family}")
    if(FPREV_MPI_${family}_CXX)
      string(REPLACE "@family@" "${family}" output "${arg_OUTPUT}")
      get_filename_component(output_dir "${output}" DIRECTORY)
      add_custom_command(OUTPUT ${output}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${output_dir}
        COMMAND ${FPREV_MPI_${family}_CXX} ${arg_FLAGS} -o ${output} ${arg_SOURCE}
        DEPENDS ${arg_SOURCE} ${arg_DEPENDS}
        COMMENT "Building ${arg_WHAT} for ${family}"
        VERBATIM)
      list(APPEND outputs ${output})
      message(STATUS "${arg_WHAT}: ${family} built with ${FPREV_MPI_${family}_CXX}")
    else()
      message(STATUS "${arg_WHAT}: no mpicxx.${family} (install the ${family} development package); "
                     "${arg_MISSING}")
    endif()
  endforeach()
  set(${out_var} ${outputs} PARENT_SCOPE)
endfunction()
