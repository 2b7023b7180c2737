// SPDX-License-Identifier: Apache-2.0
// Experiment (not built by CMake): where a first GPU PageRank goes in a fresh process, the way
// `spindle pagerank big.mtx --device cuda` runs it. Each once-per-graph step is timed on its own,
// in the order the first vxm meets them, then the whole pagerank() call (now warm).
// Run: ./first_pagerank [scale]
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "engine/src/cuda/graph_device.hpp"
#include "ops/cuda/mxv/partition.hpp"
#include "ops/cuda/mxv/row_block_warp.cuh"
#include "spindle/algorithms/pagerank.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"

using namespace spindle;
using Clock = std::chrono::steady_clock;

template <class F>
double ms(F&& f) {
  const auto t0 = Clock::now();
  f();
  cudaDeviceSynchronize();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int main(int argc, char** argv) {
  const int scale = argc > 1 ? std::atoi(argv[1]) : 22;
  auto A = build_graph<std::int32_t, Pattern>(generate_rmat<std::int32_t>(scale, 16, 1));
  std::printf("rmat%d: n %lld nnz %lld\n", scale, (long long)A.rows(), (long long)A.nnz());
  std::printf("cuda context (cudaFree(0))     %9.2f ms\n", ms([] { cudaFree(nullptr); }));
  std::printf("transpose (host)               %9.2f ms\n", ms([&] { (void)A.transpose(); }));
  const auto& T = A.transpose();
  std::printf("stats of A^T                   %9.2f ms\n", ms([&] { (void)T.stats(); }));
  std::printf("out-degrees of A               %9.2f ms\n", ms([&] { (void)A.out_degrees(); }));
  std::printf("upload A^T structure           %9.2f ms\n",
              ms([&] { (void)detail::cuda::device_pattern(T); }));
  std::printf("column relabel of A^T          %9.2f ms\n",
              ms([&] { (void)detail::cuda::column_relabel(T); }));
  std::printf("warp-form runs of A^T          %9.2f ms\n",
              ms([&] { (void)detail::cuda::row_block_warp_run_partition(T); }));
  PageRankOptions po;
  po.device = Device::Cuda;
  po.tol = 1e-6;
  std::printf("pagerank, the rest warm        %9.2f ms\n",
              ms([&] { (void)pagerank<float>(A, po); }));
  std::printf("pagerank again                 %9.2f ms\n",
              ms([&] { (void)pagerank<float>(A, po); }));
  // A fresh graph object (no caches) in the same process: what a second file costs.
  auto B = build_graph<std::int32_t, Pattern>(generate_rmat<std::int32_t>(scale, 16, 2));
  std::printf("pagerank on a new graph        %9.2f ms\n",
              ms([&] { (void)pagerank<float>(B, po); }));
  return 0;
}
