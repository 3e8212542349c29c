# Test helpers.  Three tiers (labels):
#   unit  pure-C cmocka tests, run everywhere
#   cli   the gpuq program driven from tests/cli (exit codes, messages)
#   gpu   need a CUDA GPU; exit 77 = skipped, with a message, where none is
#
# gpuq_unit_test(<name> <sources...> [LIBS <libs...>])
function(gpuq_unit_test name)
  if(NOT GPUQ_HAVE_CMOCKA)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE gpuq_model gpuq_cmocka ${ARG_LIBS})
  target_include_directories(${name} PRIVATE "${CMAKE_SOURCE_DIR}/tests")
  target_compile_definitions(${name} PRIVATE GPUQ_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                                             GPUQ_BINARY_DIR="${CMAKE_BINARY_DIR}")
  gpuq_c_warnings(${name})
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS unit)
endfunction()

# gpuq_gpu_test(<name> COMMAND <cmd...>): a test that needs a GPU.  The
# command must exit 77 after printing why when no usable GPU is present.
# GPU tests never run at the same time: two profilers on one GPU get
# CUPTI_ERROR_HARDWARE_BUSY, and timings would disturb each other.
function(gpuq_gpu_test name)
  cmake_parse_arguments(ARG "" "" "COMMAND" ${ARGN})
  add_test(NAME ${name} COMMAND ${ARG_COMMAND} COMMAND_EXPAND_LISTS)
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 RESOURCE_LOCK gpu)
endfunction()
