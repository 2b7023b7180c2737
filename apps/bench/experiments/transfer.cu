// SPDX-License-Identifier: Apache-2.0
// Experiment (not built by CMake): host <-> device copies of pageable memory, straight
// (cudaMemcpyAsync) against staged through two pinned buffers (engine/src/cuda/transfer.hpp),
// for sizes from a vector to a large graph's column indices. Every round trip is checked.
// Build (after libspindle.a in build/test):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Ibuild/test/generated/include
//     -Xcompiler -fopenmp apps/bench/experiments/transfer.cu build/test/libspindle.a -lcusparse
//     -lcublas -o transfer
// Run: ./transfer
// NVIDIA H200 box (16 cores, OMP_NUM_THREADS=16), best of 5, ms (GB/s):
//      MB | H2D straight    staged        | D2H straight    staged
//       4 |  0.41 (10.3)    0.27 (15.8)   |  0.45 ( 9.4)    0.25 (16.9)
//      16 |  1.89 ( 8.9)    0.58 (29.1)   |  1.98 ( 8.5)    0.48 (34.9)
//      64 | 11.53 ( 5.8)    1.74 (38.5)   | 11.50 ( 5.8)    1.84 (36.5)
//     277 | 49.15 ( 5.9)    7.74 (37.5)   | 29.02 (10.0)    8.73 (33.3)
//    1024 |132.50 ( 8.1)   27.09 (39.6)   | 95.87 (11.2)   37.76 (28.4)
// With 4 threads: 277 MB up 42.74 -> 16.99, down 23.74 -> 12.33; 1 GB up 160.4 -> 38.2.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "engine/src/cuda/transfer.hpp"

using Clock = std::chrono::steady_clock;

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

template <class F>
double best_ms(F&& f) {
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return best;
}

int main() {
  namespace sc = spindle::detail::cuda;
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s; best of 5, ms (GB/s)\n", prop.name);
  std::printf("%10s | %18s %18s | %18s %18s | check\n", "MB", "H2D straight", "H2D staged",
              "D2H straight", "D2H staged");
  for (std::size_t mb : {4, 16, 64, 277, 1024}) {
    const std::size_t bytes = mb << 20;
    std::vector<std::uint32_t> src(bytes / 4), back(bytes / 4);
    for (std::size_t i = 0; i < src.size(); ++i)
      src[i] = static_cast<std::uint32_t>(i * 2654435761u);
    void* d;
    CK(cudaMalloc(&d, bytes));
    auto gbs = [&](double ms) { return double(bytes) / ms / 1e6; };
    const double h1 = best_ms([&] {
      cudaMemcpyAsync(d, src.data(), bytes, cudaMemcpyHostToDevice, st);
      cudaStreamSynchronize(st);
    });
    const double h2 = best_ms([&] {
      sc::copy_to_device(d, src.data(), bytes, st);
      cudaStreamSynchronize(st);
    });
    std::memset(back.data(), 0, bytes);
    const double d1 = best_ms([&] {
      cudaMemcpyAsync(back.data(), d, bytes, cudaMemcpyDeviceToHost, st);
      cudaStreamSynchronize(st);
    });
    std::memset(back.data(), 0, bytes);
    const double d2 = best_ms([&] { sc::copy_to_host(back.data(), d, bytes, st); });
    const bool ok = back == src;
    std::printf("%10zu | %8.2f (%6.1f) %8.2f (%6.1f) | %8.2f (%6.1f) %8.2f (%6.1f) | %s\n", mb, h1,
                gbs(h1), h2, gbs(h2), d1, gbs(d1), d2, gbs(d2), ok ? "ok" : "MISMATCH");
    CK(cudaFree(d));
    CK(cudaGetLastError());
  }
  return 0;
}
