// SPDX-License-Identifier: Apache-2.0
// Experiment (not built by CMake): what the first GPU BFS on a large graph pays. On R-MAT scale 22
// (pattern), times the host transpose, a first CUDA BFS (the transpose's upload, the column
// relabelling, the partitions), a second one and a CPU BFS with the transpose cached.
// ops/cuda/mxv/NOTES.md ("The rest of session 31") has what it found.
//
// Build (from the repository root, after the CUDA build in build/test):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/test/generated/include -Xcompiler -fopenmp
//     apps/bench/experiments/bfs_first_call.cu build/test/libspindle.a -lcusparse -lcublas
//     -lcublasLt -lopenblas -o bfs_first_call
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include "spindle/algorithms/bfs.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"
using namespace spindle;
using Clock = std::chrono::steady_clock;
static double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
int main() {
  auto t = Clock::now();
  auto coo = generate_rmat<std::int32_t>(22, 16, 1);
  const auto A = build_graph<std::int32_t, Pattern>(std::move(coo));
  std::printf("generate + build %.1f ms (nnz %lld)\n", ms_since(t), (long long)A.nnz());
  cudaFree(nullptr);
  for (int round = 0; round < 2; ++round) {
    BfsOptions o;
    o.device = Device::Cuda;
    t = Clock::now();
    if (round == 0) {
      (void)A.transpose();
      std::printf("host transpose %.1f ms\n", ms_since(t));
      t = Clock::now();
    }
    auto r = bfs(A, 2, o);
    cudaDeviceSynchronize();
    std::printf("round %d: CUDA bfs %.1f ms, reached %lld in %lld levels\n", round, ms_since(t),
                (long long)r.reached, (long long)r.depth);
  }
  BfsOptions c;
  c.device = Device::Cpu;
  t = Clock::now();
  auto r = bfs(A, 2, c);
  std::printf("CPU bfs (transpose cached) %.1f ms, reached %lld\n", ms_since(t),
              (long long)r.reached);
  return 0;
}
