// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file graphblas_bench_common.hpp
/// @brief What the SuiteSparse:GraphBLAS comparisons share (benchmark only, built only where
/// libgraphblas is installed): GraphBLAS.h, its error check, the process CPU clock, the median.

// GraphBLAS.h (7.x) has no extern "C" guard of its own.
extern "C" {
#include <GraphBLAS.h>
}

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace spindle_bench {

/// Exits with the failing call's text on any GraphBLAS error (GrB_NO_VALUE is not one).
inline void grb_check(GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS && info != GrB_NO_VALUE) {
    std::fprintf(stderr, "GraphBLAS error %d in %s\n", static_cast<int>(info), what);
    std::exit(1);
  }
}

/// CPU time of the whole process (all threads), ms. On a shared machine the wall time includes
/// waiting for a core; the CPU time is the work itself (threads wait passively when
/// OMP_WAIT_POLICY=passive, so idle threads add nothing).
inline double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace spindle_bench

#define GRB_CHECK(call) spindle_bench::grb_check((call), #call)
