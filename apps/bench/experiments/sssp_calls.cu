// SPDX-License-Identifier: Apache-2.0
// Experiment (not built by CMake): whole GPU SSSP calls on R-MAT scale 22 (seed 42, duplicates
// collapsed, float weights 1..8 from a hash of the entry, so that many rounds run), four calls in
// one process with their transfer counters, and the same on uniform 22. Built against two
// libraries (before and after session 38's device-born vectors) to see what the host side cost.
// Build with the command in bfs_first_call.cu's header. ops/cuda/mxv/NOTES.md ("A BFS's host
// side", session 38) has what it found.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "spindle/algorithms/sssp.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/cuda/residency.hpp"
#include "spindle/loaders/generate.hpp"

using namespace spindle;
using Clock = std::chrono::steady_clock;

namespace {

template <class Coo>
void run(Coo coo, const std::string& name) {
  for (std::size_t k = 0; k < coo.row.size(); ++k) {
    const std::uint64_t h = (static_cast<std::uint64_t>(coo.row[k]) * 0x9E3779B97F4A7C15ull) ^
                            static_cast<std::uint64_t>(coo.col[k]);
    coo.val.push_back(1.0 + static_cast<double>((h >> 29) % 8));
  }
  BuildOptions bo;
  bo.duplicates = DuplicatePolicy::KeepFirst;
  const auto A = build_graph<std::int32_t, float>(std::move(coo), bo);
  SsspOptions o;
  o.device = Device::Cuda;
  for (int r = 0; r < 4; ++r) {
    reset_transfer_stats();
    const auto t = Clock::now();
    const auto res = sssp<float>(A, 3, o);
    cudaDeviceSynchronize();
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    const TransferStats s = transfer_stats();
    std::printf(
        "%s sssp call %d: %.2f ms, %lld rounds, reached %lld; up %llu (%.1f MB), down %llu, "
        "scalars %llu, graph uploads %llu\n",
        name.c_str(), r, ms, (long long)res.rounds, (long long)res.reached,
        (unsigned long long)s.uploads, s.upload_bytes / 1e6, (unsigned long long)s.downloads,
        (unsigned long long)s.scalar_reads, (unsigned long long)s.graph_uploads);
  }
}

}  // namespace

int main() {
  cudaFree(nullptr);
  run(generate_rmat<std::int32_t>(22, 16, 42), "R-MAT 22");
  run(generate_uniform<std::int32_t>(22, 16, 42), "uniform 22");
  return 0;
}
