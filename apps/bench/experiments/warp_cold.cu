// SPDX-License-Identifier: Apache-2.0
// Exploration harness (not built by CMake, not a benchmark of record): the library's warp form
// (ops/cuda/mxv/row_block_warp.cuh, launched through launch_row_block_warp itself) with other
// shared hot sets and other cache policies for the gathers past them.
//
// floor.cu found that a kernel doing strictly less than an SpMV (no rows) on R-MAT 22 ran faster
// with its cold gathers *through* L1 than around it (H200, values: 0.2765 against 0.2977 ms at a
// 32 K hot set) and faster with a 48 K hot set than with 32 K (0.2558 ms). The library gathers
// around L1 (kRowBlockWarpCold = 0) with a 32 K hot set (kHotBytes). This runs the library kernel
// with H in {32 K, 40 K, 48 K} and kCold in {0 around L1 + evict_last, 1 through L1 + evict_last,
// 2 plain __ldg}, on the mxv benchmark's R-MAT 22 with values (seed 42) and PageRank's A^T (seed
// 1, pattern). cuSPARSE's best in the same process; every result checked against a double host
// product with the output poisoned first. The kernel's times exclude the per-call gather of u into
// relabelled order (about 15 us); the library's own mxv call (planner's pick, gather included) is
// wall-clocked beside them, over batches of 20 calls as the kernels' "wall" column.
//
// Build (from the repository root, after a build in build/test for libspindle.a):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/test/generated/include -Xcompiler -fopenmp
//     apps/bench/experiments/warp_cold.cu build/test/libspindle.a -lcusparse -lcublas -lcublasLt
//     -o warp_cold
// Run: ./warp_cold [scale] [--reps N] [--hot H1,H2,...]
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "apps/bench/experiments/harness.cuh"
#include "ops/cuda/mxv/row_block_warp.cuh"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/ops/mxv.hpp"

using namespace spindle;
using namespace spindle::detail::cuda;

using harness::g_reps;
using harness::time_ms;
using harness::upload;
using harness::wall_ms;

std::vector<std::int64_t> g_hot = {32768, 40960, 49152};  // --hot a,b,...

template <class VV>
void run_case(const std::string& name, const Graph<std::int32_t, Pattern>& G, int sms,
              std::int64_t optin) {
  constexpr bool kVal = !std::is_same_v<VV, Pattern>;
  using S = semiring::plus_times<float>;
  const int n = static_cast<int>(G.rows());
  const long long nnz = G.nnz();
  RowBlocks rb = build_row_block_warps(G.row_ptr().data(), n);
  const std::int64_t tasks = static_cast<std::int64_t>(rb.desc.size());
  printf("\n## %s: n %d nnz %lld, %lld warp tasks, %zu long rows\n", name.c_str(), n, nnz,
         (long long)tasks, rb.longs.size());
  const harness::Case<kVal> c(G, 40);
  const std::vector<int>&rp = c.rp, &ci = c.ci;
  const std::vector<float>&val = c.val, &x = c.x;
  const std::vector<double>& ref = c.ref;
  float* const d_y = c.d_y;
  const double best = c.best;
  auto worst = [&] { return c.worst(); };
  RowBlockDesc* d_desc = upload(rb.desc);
  RowBlockLong* d_longs = upload(rb.longs);
  void* d_ws;
  CK(cudaMalloc(&d_ws, (rb.pieces + 1) * (sizeof(float) + 1) + 64));
  const MxvArgs<float, int, VV> a = c.template args<VV>();
  auto variant = [&](auto cold, std::int64_t H) {
    constexpr int kCold = decltype(cold)::value;
    auto call = [&] {
      launch_row_block_warp<S, false, float, int, VV, kCold>(
          a, tasks, d_desc, static_cast<std::int64_t>(rb.longs.size()), d_longs, rb.pieces, d_ws, H,
          sms, optin, 0);
    };
    harness::poison(d_y, n);
    call();
    CK(cudaDeviceSynchronize());
    const double err = worst();
    const double t = time_ms(call);
    const double tw = wall_ms(call);
    printf(
        "warp form H=%-6lld cold=%d %s %8.4f ms (wall %8.4f)  cus/this %.3f (+15 us gather: "
        "%.3f)  err %.1e\n",
        (long long)H, kCold,
        kCold == 0   ? "around L1"
        : kCold == 1 ? "L1+evlast"
                     : "plain ldg",
        t, tw, best / t, best / (t + 0.015), err);
    fflush(stdout);
  };
  // The library's own call (planner's pick, the gather of u into relabelled order included),
  // wall-clocked like the kernel above.
  {
    using G = std::conditional_t<kVal, Graph<std::int32_t, float>, Graph<std::int32_t, Pattern>>;
    const G L = [&] {
      if constexpr (kVal) {
        return G(n, n, std::vector<std::int32_t>(rp), std::vector<std::int32_t>(ci),
                 std::vector<float>(val));
      } else {
        return G(n, n, std::vector<std::int32_t>(rp), std::vector<std::int32_t>(ci));
      }
    }();
    Vector<float> xv(x), yv(n);
    const Descriptor dsc = Descriptor().on(Device::Cuda);
    auto call = [&] { mxv(yv, Mask{}, Accum::none(), S{}, L, xv, dsc); };
    const double tw = wall_ms(call);
    std::vector<float> yh(yv.values().begin(), yv.values().end());
    double w = 0;
    for (int i = 0; i < n; ++i)
      w = std::max(w, std::fabs(yh[i] - ref[i]) / std::max(1e-6, std::fabs(ref[i])));
    printf("library mxv (planner's pick)            (wall %8.4f)  err %.1e\n", tw, w);
  }
  for (std::int64_t H : g_hot) {
    variant(std::integral_constant<int, 0>{}, H);
    variant(std::integral_constant<int, 1>{}, H);
    variant(std::integral_constant<int, 2>{}, H);
  }
  for (void* p : {(void*)d_desc, (void*)d_longs, d_ws}) CK(cudaFree(p));
}

int main(int argc, char** argv) {
  int scale = 22;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--reps") {
      g_reps = atoi(argv[++i]);
    } else if (s == "--hot") {
      g_hot.clear();
      for (char* t = strtok(argv[++i], ","); t; t = strtok(nullptr, ",")) g_hot.push_back(atoll(t));
    } else {
      scale = atoi(argv[i]);
    }
  }
  harness::run_rmat_cases(
      scale, [](auto values, const std::string& name, const auto& G, int sms, std::int64_t optin) {
        using VV = std::conditional_t<decltype(values)::value, float, Pattern>;
        run_case<VV>(name, G, sms, optin);
      });
  return 0;
}
