// SPDX-License-Identifier: Apache-2.0
// Scaffolding shared by the exploration harnesses in this folder (not built by CMake): status
// checks that exit with the call site, uploads, and the two timers (events on the legacy stream;
// wall clock around batches, for code that runs on Spindle's own stream). Used by floor.cu and
// warp_cold.cu; the older harnesses keep their own copies.
#pragma once

#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)
#define CS(x)                                                              \
  do {                                                                     \
    cusparseStatus_t s_ = (x);                                             \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                   \
      fprintf(stderr, "%s:%d cusparse %d\n", __FILE__, __LINE__, (int)s_); \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

namespace harness {

inline int g_reps = 30;  // timed runs per measurement (--reps)

template <class T>
T* upload(const std::vector<T>& v) {
  T* p;
  CK(cudaMalloc(&p, std::max<size_t>(v.size(), 1) * sizeof(T)));
  CK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

// Median of g_reps event-timed runs on the legacy stream, after 3 warm-up runs.
template <class F>
double time_ms(F&& f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < g_reps; ++i) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Median over 7 batches of the wall time per call of 20 calls and one synchronize.
template <class F>
double wall_ms(F&& f) {
  for (int i = 0; i < 3; ++i) f();
  CK(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 20; ++i) f();
    CK(cudaDeviceSynchronize());
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
        20);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace harness
