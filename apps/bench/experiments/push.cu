// SPDX-License-Identifier: Apache-2.0
// vxm as a push (push_scatter) against the pull over the cached transpose, through the library's
// backend entries, to set the planner's push share (ops/core/planner_push.cpp) and to see what a
// BFS gains. Not built by CMake; see ops/cuda/mxv/NOTES.md ("vxm as a push").
//
//   push [scale] [--reps N]     (scale 22 by default)
//
// For R-MAT and uniform graphs of the scale (edge factor 16, pattern, int32):
//  1. inputs of a growing share of present entries (random vertices), any_pair under the
//     complement of the input's structure (a BFS level) and min_plus without a mask (an SSSP
//     round): wall time of one call to its end (the push's count and read-back included), push
//     and the planner's pull, and the share of A's entries the push's terms are;
//  2. the levels of a BFS from vertex 3 (levels from a host BFS): each level's call both ways.
// Every push result is compared with the pull's.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "ops/core/backend.hpp"
#include "ops/core/planner.hpp"
#include "ops/core/vxm_push.hpp"
#include "spindle/algorithms/bfs.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/executor.hpp"
#include "spindle/loaders/generate.hpp"

using namespace spindle;

namespace {

int g_reps = 20;

// Median wall time of one call and a device synchronize, after two warm-up calls.
template <class F>
double call_ms(F&& f) {
  for (int i = 0; i < 2; ++i) f();
  cudaDeviceSynchronize();
  std::vector<double> ms;
  for (int r = 0; r < g_reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    cudaDeviceSynchronize();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <class T>
bool same(const Vector<T>& a, const Vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    if (a.present(i) != b.present(i)) return false;
    if (a.present(i) && !(a[i] == b[i])) return false;
  }
  return true;
}

struct Timing {
  double push = 0, pull = 0, share = 0;
  bool planner_pushes = false, ok = false;
};

template <class S, class G>
Timing time_call(const G& A, const Vector<float>& u, const Mask& mask) {
  Timing t;
  detail::MxvInfo info;
  info.op = OpKind::Vxm;
  info.semiring = S::kind;
  info.value = ValueKind::Float;
  info.matrix_value = ValueKind::Pattern;
  info.masked = !mask.empty();
  info.mask_kind = mask.kind();
  info.mask_complemented = mask.complemented();
  info.input_full = u.is_full();
  const detail::PushInput in = detail::cuda::vxm_push_input(u, A);
  t.share = A.nnz() > 0 ? double(in.edges) / double(A.nnz()) : 0.0;
  t.planner_pushes =
      detail::plan_vxm_push_cuda(A.stats(), info, in, /*transpose_cached=*/true, Descriptor{}).push;
  const Plan pull = detail::plan_mxv(A.transpose().stats(), info, Device::Cuda, device_caps(), {});
  Plan push;
  push.op = OpKind::Vxm;
  push.device = Device::Cuda;
  push.mxv = MxvKernel::PushScatter;
  Vector<float> wp = Vector<float>::empty(A.cols()), wq = Vector<float>::empty(A.cols());
  t.push = call_ms([&] {
    const detail::PushInput c = detail::cuda::vxm_push_input(u, A);
    detail::cuda::vxm_push<S>(push, c, wp, mask, Accum::none(), u, A, true);
  });
  t.pull = call_ms([&] { detail::cuda::vxm<S>(pull, wq, mask, Accum::none(), u, A, false, true); });
  t.ok = same(wp, wq);
  return t;
}

template <class G>
void sweep(const G& A, const std::string& name) {
  const std::int64_t n = A.rows();
  printf("\n## %s: n %lld, nnz %lld\n", name.c_str(), (long long)n, (long long)A.nnz());
  printf(
      "| present | terms / nnz | any_pair, !struct(u): push | pull | min_plus: push | pull | "
      "planner | same |\n|---|---|---|---|---|---|---|---|\n");
  std::mt19937_64 rng(7);
  for (const double frac : {1e-6, 1e-5, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.2, 0.3, 0.5, 1.0}) {
    const std::int64_t k = std::max<std::int64_t>(1, static_cast<std::int64_t>(frac * n));
    Vector<float> u = Vector<float>::empty(n);
    if (k >= n) {
      u = Vector<float>(n, 1.0f);
    } else {
      for (std::int64_t c = 0; c < k; ++c) u.set(static_cast<std::int64_t>(rng() % n), 1.0f);
    }
    const Timing a = time_call<semiring::any_pair<float>>(A, u, Mask::structural(u, true));
    const Timing b = time_call<semiring::min_plus<float>>(A, u, Mask{});
    printf("| %lld | %.4f | %.4f | %.4f | %.4f | %.4f | %s / %s | %s |\n", (long long)u.nvals(),
           a.share, a.push, a.pull, b.push, b.pull, a.planner_pushes ? "push" : "pull",
           b.planner_pushes ? "push" : "pull", a.ok && b.ok ? "yes" : "NO");
    fflush(stdout);
  }
}

template <class G>
void bfs_levels(const G& A, const std::string& name, std::int64_t source) {
  const std::int64_t n = A.rows();
  std::vector<std::int64_t> level(n, -1);
  std::queue<std::int64_t> q;
  level[source] = 0;
  q.push(source);
  std::int64_t depth = 0;
  while (!q.empty()) {
    const std::int64_t v = q.front();
    q.pop();
    depth = std::max(depth, level[v]);
    for (auto k = A.row_ptr()[v]; k < A.row_ptr()[v + 1]; ++k) {
      const std::int64_t w = A.col_idx()[k];
      if (level[w] < 0) {
        level[w] = level[v] + 1;
        q.push(w);
      }
    }
  }
  printf("\n## BFS levels on %s from %lld (any_pair, mask: not visited)\n", name.c_str(),
         (long long)source);
  printf(
      "| level | frontier | terms / nnz | push ms | pull ms | planner | same |\n"
      "|---|---|---|---|---|---|---|\n");
  double sum_push = 0, sum_pull = 0, sum_plan = 0, sum_best = 0;
  for (std::int64_t d = 1; d <= depth + 1; ++d) {
    Vector<float> frontier = Vector<float>::empty(n), visited = Vector<float>::empty(n);
    for (std::int64_t v = 0; v < n; ++v) {
      if (level[v] == d - 1) frontier.set(v, 1.0f);
      if (level[v] >= 0 && level[v] < d) visited.set(v, 1.0f);
    }
    const Timing t =
        time_call<semiring::any_pair<float>>(A, frontier, Mask::structural(visited, true));
    sum_push += t.push;
    sum_pull += t.pull;
    sum_plan += t.planner_pushes ? t.push : t.pull;
    sum_best += std::min(t.push, t.pull);
    printf("| %lld | %lld | %.4f | %.4f | %.4f | %s | %s |\n", (long long)d,
           (long long)frontier.nvals(), t.share, t.push, t.pull, t.planner_pushes ? "push" : "pull",
           t.ok ? "yes" : "NO");
    fflush(stdout);
  }
  printf("| all | | | %.4f | %.4f | planner %.4f (best per level %.4f) | |\n", sum_push, sum_pull,
         sum_plan, sum_best);
}

// Whole BFS calls (parents too) from vertex 3 on fresh copies of the graph: the planner's
// choice without a transpose (every level pushes), and with A^T built first (timed apart; the
// levels then mix push and pull), each twice (the second call finds the device copies made).
template <class Make>
void whole_bfs(Make&& make, const std::string& name) {
  BfsOptions o;
  o.parents = true;
  o.device = Device::Cuda;
  auto ms_since = [](std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  printf("\n## Whole BFS on %s from 3 (parents), ms\n", name.c_str());
  {
    auto G = make();
    auto t0 = std::chrono::steady_clock::now();
    const BfsResult r1 = bfs(G, 3, o);
    const double first = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    const BfsResult r2 = bfs(G, 3, o);
    printf(
        "- fresh graph (no transpose: every level pushes): first %.2f, second %.2f; reached "
        "%lld, depth %lld, transpose built: %s\n",
        first, ms_since(t0), (long long)r1.reached, (long long)r1.depth,
        G.has_transpose() ? "yes" : "no");
    (void)r2;
  }
  {
    auto G = make();
    auto t0 = std::chrono::steady_clock::now();
    G.transpose();
    const double tr = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    const BfsResult r1 = bfs(G, 3, o);
    const double first = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    bfs(G, 3, o);
    printf("- transpose built first (%.2f ms on the host): first %.2f, second %.2f; reached %lld\n",
           tr, first, ms_since(t0), (long long)r1.reached);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int scale = 22;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--reps" && i + 1 < argc) {
      g_reps = atoi(argv[++i]);
    } else {
      scale = atoi(argv[i]);
    }
  }
  if (std::getenv("PUSH_PROFILE") != nullptr) {
    // One input (124 K present vertices, ~3% of the terms), three pushes: for ncu's kernel times.
    BuildOptions bo;
    bo.duplicates = DuplicatePolicy::Collapse;
    auto G = build_graph<std::int32_t, Pattern>(generate_rmat<std::int32_t>(scale, 16, 42), bo);
    std::mt19937_64 rng(7);
    Vector<float> u = Vector<float>::empty(G.rows());
    for (int c = 0; c < 124000; ++c) u.set(static_cast<std::int64_t>(rng() % G.rows()), 1.0f);
    Plan push;
    push.op = OpKind::Vxm;
    push.device = Device::Cuda;
    push.mxv = MxvKernel::PushScatter;
    Vector<float> w = Vector<float>::empty(G.cols());
    for (int r = 0; r < 3; ++r) {
      const detail::PushInput c = detail::cuda::vxm_push_input(u, G);
      detail::cuda::vxm_push<semiring::min_plus<float>>(push, c, w, Mask{}, Accum::none(), u, G,
                                                        true);
      cudaDeviceSynchronize();
      printf("sources %lld terms %lld\n", (long long)c.sources, (long long)c.edges);
    }
    return 0;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("# %s, %d SMs; push vs pull, ms per call (wall, to the end of the call), median of %d\n",
         prop.name, prop.multiProcessorCount, g_reps);
  BuildOptions o;
  o.duplicates = DuplicatePolicy::Collapse;
  const std::string s = std::to_string(scale);
  if (std::getenv("PUSH_WHOLE_ONLY") != nullptr) {
    for (int r = 0; r < 2; ++r) {
      whole_bfs(
          [&] {
            return build_graph<std::int32_t, Pattern>(generate_rmat<std::int32_t>(scale, 16, 42),
                                                      o);
          },
          "R-MAT " + s);
    }
    return 0;
  }
  {
    auto G = build_graph<std::int32_t, Pattern>(generate_rmat<std::int32_t>(scale, 16, 42), o);
    sweep(G, "R-MAT " + s);
    bfs_levels(G, "R-MAT " + s, 3);
  }
  whole_bfs(
      [&] {
        return build_graph<std::int32_t, Pattern>(generate_rmat<std::int32_t>(scale, 16, 42), o);
      },
      "R-MAT " + s);
  {
    auto G = build_graph<std::int32_t, Pattern>(generate_uniform<std::int32_t>(scale, 16, 42), o);
    sweep(G, "uniform " + s);
    bfs_levels(G, "uniform " + s, 3);
  }
  return 0;
}
