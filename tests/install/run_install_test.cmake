# SPDX-License-Identifier: Apache-2.0
# cmake -P script run by ctest: install the build tree, then configure, build and run the
# consumer against the installed package only (CMAKE_PREFIX_PATH = the scratch prefix).
cmake_minimum_required(VERSION 3.24)
foreach(_var SPINDLE_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "run_install_test.cmake: ${_var} is not set")
  endif()
endforeach()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()

file(REMOVE_RECURSE ${WORK_DIR})
set(_prefix ${WORK_DIR}/prefix)
set(_build ${WORK_DIR}/consumer-build)

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "install test: ${what} failed (${_rc})\n${_out}\n${_err}")
  endif()
  message(STATUS "install test: ${what}: ok")
  set(STEP_OUTPUT "${_out}" PARENT_SCOPE)
endfunction()

step("cmake --install" ${CMAKE_COMMAND} --install ${SPINDLE_BUILD_DIR} --prefix ${_prefix})

# A sanitized libspindle.a needs the same runtime in the consumer's link.
set(_flags "")
if(SANITIZE)
  set(_flags "-fsanitize=${SANITIZE}")
endif()
step("configure consumer" ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${_build} -G ${GENERATOR}
     -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
     -DCMAKE_PREFIX_PATH=${_prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
     "-DCMAKE_CXX_FLAGS=${_flags}" "-DCMAKE_EXE_LINKER_FLAGS=${_flags}"
     "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}")
step("build consumer" ${CMAKE_COMMAND} --build ${_build})
step("run consumer" ${_build}/spindle_consumer)
if(NOT STEP_OUTPUT MATCHES "spindle consumer: ok")
  message(FATAL_ERROR "install test: unexpected consumer output:\n${STEP_OUTPUT}")
endif()
# The user semiring on CUDA: built wherever nvcc and a CUDA package are, run (on the GPU when one
# is visible, else it checks its plan only).
if(CUDA_COMPILER)
  if(NOT EXISTS ${_build}/spindle_consumer_cuda)
    message(FATAL_ERROR "install test: the CUDA consumer was not built (nvcc: ${CUDA_COMPILER})")
  endif()
  step("run CUDA consumer" ${_build}/spindle_consumer_cuda)
  if(NOT STEP_OUTPUT MATCHES "spindle cuda consumer: ok")
    message(FATAL_ERROR "install test: unexpected CUDA consumer output:\n${STEP_OUTPUT}")
  endif()
endif()
# The installed CLI runs too (installed only when the apps are built).
if(WITH_CLI)
  step("run installed spindle" ${_prefix}/bin/spindle --version)
endif()
file(REMOVE_RECURSE ${WORK_DIR})
