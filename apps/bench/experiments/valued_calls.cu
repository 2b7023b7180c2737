// SPDX-License-Identifier: Apache-2.0
// Experiment (not built by CMake): repeated structure-only calls over a valued graph. R-MAT scale
// 22 with float values (seed 42, duplicates collapsed); unweighted PageRank (20 iterations, no
// stop test), power iteration and a BFS with parents, each three times on CUDA. These run over
// the graph's pattern: since session 38 a copy kept with the graph (detail::pattern_of), before
// it a fresh copy per call, whose transpose was built on the host and uploaded every time (what
// the first call still pays). Build with the command in bfs_first_call.cu's header.
// ops/cuda/mxv/NOTES.md ("Structure-only calls over a valued graph", session 38) has the results.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>

#include "spindle/algorithms.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/cuda/residency.hpp"
#include "spindle/loaders/generate.hpp"

using namespace spindle;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

template <class F>
void three(const char* what, F&& f) {
  for (int r = 0; r < 3; ++r) {
    reset_transfer_stats();
    const auto t = Clock::now();
    f();
    cudaDeviceSynchronize();
    const double ms = ms_since(t);
    const TransferStats s = transfer_stats();
    std::printf("%s call %d: %.2f ms; graph uploads %llu (%.1f MB)\n", what, r, ms,
                (unsigned long long)s.graph_uploads, s.graph_upload_bytes / 1e6);
  }
}

}  // namespace

int main() {
  cudaFree(nullptr);
  BuildOptions bo;
  bo.duplicates = DuplicatePolicy::Collapse;
  auto coo = generate_rmat<std::int32_t>(22, 16, 42);
  coo.val.assign(static_cast<std::size_t>(coo.size()), 2.0);
  const auto A = build_graph<std::int32_t, float>(std::move(coo), bo);
  std::printf("# R-MAT 22, float values: %lld vertices, %lld entries\n", (long long)A.rows(),
              (long long)A.nnz());
  PageRankOptions po;
  po.device = Device::Cuda;
  po.max_iter = 20;
  po.tol = 0.0;
  three("pagerank (20 iterations)", [&] { (void)pagerank<float>(A, po); });
  PowerIterationOptions pi;
  pi.centrality = true;
  pi.device = Device::Cuda;
  pi.max_iter = 20;
  pi.tol = 0.0;
  three("power_iteration (20 iterations)", [&] { (void)power_iteration<float>(A, pi); });
  BfsOptions b;
  b.parents = true;
  b.device = Device::Cuda;
  three("bfs with parents", [&] { (void)bfs(A, 3, b); });
  b.parents = false;
  three("bfs levels", [&] { (void)bfs(A, 3, b); });
  return 0;
}
