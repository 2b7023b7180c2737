// SPDX-License-Identifier: Apache-2.0
// Experiment (not built by CMake): where a GPU BFS level goes. BFS's loop (levels only) on R-MAT
// scale 22 with the transpose cached, each call followed by a device synchronize: the set-up of
// the vectors, each level's masked vxm, reduce and assign, and reading the levels back, twice.
// ops/cuda/mxv/NOTES.md ("The rest of session 31") has what it found.
//
// Build: as bfs_first_call.cu, with apps/bench/experiments/bfs_parts.cu.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/ops/assign.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/reduce.hpp"
using namespace spindle;
using Clock = std::chrono::steady_clock;
static double lap(Clock::time_point& t) {
  cudaDeviceSynchronize();
  const auto now = Clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - t).count();
  t = now;
  return ms;
}
int main() {
  auto coo = generate_rmat<std::int32_t>(22, 16, 1);
  const auto A = build_graph<std::int32_t, Pattern>(std::move(coo));
  (void)A.transpose();
  cudaFree(nullptr);
  using Id = double;
  const std::int64_t n = A.rows();
  Descriptor desc;
  desc.device = Device::Cuda;
  Descriptor replace = desc;
  replace.replace = true;
  for (int round = 0; round < 2; ++round) {
    auto t = Clock::now();
    Vector<Id> level = Vector<Id>::empty(n);
    level.set(2, 0);
    Vector<Id> frontier = Vector<Id>::empty(n);
    Vector<Id> next = Vector<Id>::empty(n);
    frontier.set(2, Id(1));
    std::printf("round %d setup %.2f ms\n", round, lap(t));
    for (std::int64_t d = 1; d < n; ++d) {
      const Mask unvisited = Mask::structural(level, true);
      vxm(next, unvisited, Accum::none(), semiring::any_pair<Id>{}, frontier, A, replace);
      const double t_vxm = lap(t);
      const double mx = reduce(MonoidKind::Max, next, desc);
      const double t_red = lap(t);
      if (!(mx > 0)) break;
      assign(level, Mask::structural(next), Accum::none(), Id(d), desc);
      const double t_asg = lap(t);
      std::swap(frontier, next);
      std::printf("  level %lld: vxm %.2f reduce %.2f assign %.2f ms\n", (long long)d, t_vxm, t_red,
                  t_asg);
    }
    std::int64_t reached = 0;
    for (std::int64_t v = 0; v < n; ++v) reached += level.present(v) ? 1 : 0;
    std::printf("  packaging %.2f ms, reached %lld\n", lap(t), (long long)reached);
  }
  return 0;
}
