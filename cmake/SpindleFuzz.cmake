# SPDX-License-Identifier: Apache-2.0
# libFuzzer targets for the file readers (SPINDLE_BUILD_FUZZERS=ON, preset `fuzz`).
#
# The whole library is compiled with coverage instrumentation (-fsanitize=fuzzer-no-link) and
# ASan + UBSan, so that findings inside the loaders are seen; each target links libFuzzer's
# main. One ctest entry per target (label `fuzz`) fuzzes its seed corpus for
# SPINDLE_FUZZ_SECONDS seconds; another replays the seed corpus and the regression inputs once.

if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "SPINDLE_BUILD_FUZZERS needs clang (libFuzzer); configure with "
                      "-DCMAKE_CXX_COMPILER=clang++ or use the `fuzz` preset")
endif()

set(SPINDLE_FUZZ_SECONDS 60 CACHE STRING "Seconds each fuzz target runs in its ctest entry")
set(SPINDLE_FUZZ_RSS_MB 2048 CACHE STRING "libFuzzer -rss_limit_mb for the ctest entries")

set(_spindle_fuzz_san -fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
target_compile_options(spindle PRIVATE -fsanitize=fuzzer-no-link ${_spindle_fuzz_san})

enable_testing()
add_subdirectory(${PROJECT_SOURCE_DIR}/tests/fuzz ${PROJECT_BINARY_DIR}/tests/fuzz)
