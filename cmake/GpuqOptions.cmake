# Compiler flags, CUDA detection and dependency lookup shared by every target.

# Warnings are errors for C; sanitizers apply to C code only (the CUDA runtime
# and ASan do not mix well, and the sanitizer build is configured without CUDA).
set(GPUQ_C_WARNINGS -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter)
add_compile_definitions(_POSIX_C_SOURCE=200809L _DEFAULT_SOURCE GPUQ_VERSION="${PROJECT_VERSION}")

if(GPUQ_SANITIZE)
  add_compile_options($<$<COMPILE_LANGUAGE:C>:-fsanitize=address,undefined>
                      $<$<COMPILE_LANGUAGE:C>:-fno-sanitize-recover=all>
                      $<$<COMPILE_LANGUAGE:C>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=address,undefined)
endif()

# Applies gpuq's C warning flags to a target's C sources.
function(gpuq_c_warnings target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:${GPUQ_C_WARNINGS}>)
endfunction()

# gpuq_suite_gpu_sources(<paper> [KERNELS <*.cu>...] [KERNELS_SM90A <*.cu>...] CUDA <*_cuda.c>...
#                        NOCUDA <*_nocuda.c>...)
# The one way a suite builds without CUDA.  A suite's code that needs CUDA is
# its kernels (*.cu) and the C that calls the CUDA API (*_cuda.c); each
# *_cuda.c (or the launchers of a *.cu) has a twin *_nocuda.c defining the
# same functions, every one answering GM_ERR_UNSUPPORTED ("built without
# CUDA").  Everything else, the suite's row included, is the same in both
# builds.  KERNELS become the object library gpuq_<paper>_kernels (so that the
# SASS tests can run cuobjdump on it), linked into gpuq_bench.  KERNELS_SM90A
# are kernels of Hopper's arch-specific instructions (wgmma, setmaxnreg):
# the object library gpuq_<paper>_kernels_sm90a, compiled for sm_90a alone
# (no other GPU runs that code; their launchers get "no kernel image"
# there), its launchers' nocuda twins among NOCUDA.
function(gpuq_suite_gpu_sources paper)
  cmake_parse_arguments(ARG "" "" "KERNELS;KERNELS_SM90A;CUDA;NOCUDA" ${ARGN})
  if(NOT ARG_NOCUDA)
    message(FATAL_ERROR "gpuq_suite_gpu_sources(${paper}): NOCUDA twins missing")
  endif()
  if(GPUQ_HAVE_CUDA)
    if(ARG_KERNELS)
      add_library(gpuq_${paper}_kernels OBJECT ${ARG_KERNELS})
      target_include_directories(gpuq_${paper}_kernels PRIVATE "${CMAKE_SOURCE_DIR}/include"
                                 "${CMAKE_SOURCE_DIR}/src")
      target_compile_options(gpuq_${paper}_kernels PRIVATE
                             $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-warn-spills>)
      target_sources(gpuq_bench PRIVATE $<TARGET_OBJECTS:gpuq_${paper}_kernels>)
    endif()
    if(ARG_KERNELS_SM90A)
      add_library(gpuq_${paper}_kernels_sm90a OBJECT ${ARG_KERNELS_SM90A})
      target_include_directories(gpuq_${paper}_kernels_sm90a PRIVATE
                                 "${CMAKE_SOURCE_DIR}/include" "${CMAKE_SOURCE_DIR}/src")
      # no CMAKE_CUDA_ARCHITECTURES here: this code is for sm_90a only
      set_target_properties(gpuq_${paper}_kernels_sm90a PROPERTIES CUDA_ARCHITECTURES OFF)
      target_compile_options(gpuq_${paper}_kernels_sm90a PRIVATE
                             $<$<COMPILE_LANGUAGE:CUDA>:-gencode=arch=compute_90a,code=sm_90a>
                             $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-warn-spills>)
      target_sources(gpuq_bench PRIVATE $<TARGET_OBJECTS:gpuq_${paper}_kernels_sm90a>)
    endif()
    target_sources(gpuq_bench PRIVATE ${ARG_CUDA})
    target_link_libraries(gpuq_bench PUBLIC CUDA::cudart)
  else()
    target_sources(gpuq_bench PRIVATE ${ARG_NOCUDA})
  endif()
endfunction()

set(GPUQ_HAVE_CUDA OFF)
if(GPUQ_WITH_CUDA STREQUAL "AUTO" OR GPUQ_WITH_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # Hopper first (sm_90 machine code), Ampere machine code, and sm_90 PTX
      # that newer GPUs compile at load time.
      set(CMAKE_CUDA_ARCHITECTURES "80-real;90-real;90-virtual")
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(GPUQ_HAVE_CUDA ON)
  elseif(GPUQ_WITH_CUDA AND NOT GPUQ_WITH_CUDA STREQUAL "AUTO")
    message(FATAL_ERROR "GPUQ_WITH_CUDA=ON but no CUDA compiler was found (is nvcc on PATH?)")
  else()
    message(STATUS "gpuq: no CUDA compiler found: building the pure-C parts only "
                   "(calibrate and profile will say so when run)")
  endif()
endif()

set(GPUQ_HAVE_CUPTI OFF)
if(GPUQ_HAVE_CUDA)
  find_package(CUDAToolkit REQUIRED)
  if(TARGET CUDA::cupti)
    set(GPUQ_HAVE_CUPTI ON)
  else()
    message(STATUS "gpuq: CUPTI not found in the CUDA toolkit: the profile collector is not built")
  endif()
endif()

# cmocka for the unit tests (Debian: libcmocka-dev).  Also looked for under
# GPUQ_DEPS_PREFIX, where .deb files can be unpacked on machines without apt.
# GPUQ_REQUIRE_UNIT_TESTS=ON (CI) makes a missing cmocka a configure error;
# GPUQ_PRETEND_NO_CMOCKA=ON behaves as on a machine without it (to test that).
option(GPUQ_REQUIRE_UNIT_TESTS "fail to configure when cmocka (the unit tests) is missing" OFF)
option(GPUQ_PRETEND_NO_CMOCKA "behave as if cmocka were not installed" OFF)
find_path(CMOCKA_INCLUDE_DIR cmocka.h HINTS "${GPUQ_DEPS_PREFIX}/usr/include")
find_library(CMOCKA_LIBRARY cmocka HINTS "${GPUQ_DEPS_PREFIX}/usr/lib/x86_64-linux-gnu")
if(CMOCKA_INCLUDE_DIR AND CMOCKA_LIBRARY AND NOT GPUQ_PRETEND_NO_CMOCKA)
  set(GPUQ_HAVE_CMOCKA ON)
  add_library(gpuq_cmocka INTERFACE)
  target_include_directories(gpuq_cmocka INTERFACE "${CMOCKA_INCLUDE_DIR}")
  target_link_libraries(gpuq_cmocka INTERFACE "${CMOCKA_LIBRARY}")
else()
  set(GPUQ_HAVE_CMOCKA OFF)
  if(GPUQ_REQUIRE_UNIT_TESTS)
    message(FATAL_ERROR "cmocka not found and GPUQ_REQUIRE_UNIT_TESTS=ON: apt-get install libcmocka-dev")
  endif()
  message(WARNING "cmocka not found: the unit tests are not built (apt-get install libcmocka-dev)")
endif()

# Fuzzing (docs/fuzzing.md): clang's libFuzzer; every C file gets coverage
# instrumentation, and the sanitizers come with it.
option(GPUQ_FUZZ "build the libFuzzer harnesses in tests/fuzz (clang; implies GPUQ_SANITIZE)" OFF)
if(GPUQ_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GPUQ_FUZZ=ON needs clang (CC=clang; Debian: apt-get install clang)")
  endif()
  add_compile_options($<$<COMPILE_LANGUAGE:C>:-fsanitize=fuzzer-no-link>)
  if(NOT GPUQ_SANITIZE)
    add_compile_options($<$<COMPILE_LANGUAGE:C>:-fsanitize=address,undefined>
                        $<$<COMPILE_LANGUAGE:C>:-fno-sanitize-recover=all>
                        $<$<COMPILE_LANGUAGE:C>:-fno-omit-frame-pointer>)
    add_link_options(-fsanitize=address,undefined)
  endif()
endif()
