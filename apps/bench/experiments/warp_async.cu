// SPDX-License-Identifier: Apache-2.0
// Exploration harness (not built by CMake, not a benchmark of record): the runs kernel with its
// gathers of u issued as cp.async copies into shared memory, so that a warp's gathers for its next
// task stay in flight while it reduces the rows of the current one.
//
// warp_rows.cu put the rows' cost at 0.04-0.10 ms of latency on R-MAT 22: a warp cannot gather
// while it reduces, and holding a second task's gathers in registers spills under the 64-register
// cap. cp.async (sm_80+) writes the gathered value straight into shared memory and holds no
// register, so the stage is double-buffered instead: per iteration a warp
//   1. issues the gathers of task t+1 (hot columns: a shared read and a store; cold: cp.async 4
//      bytes into the other buffer), commits them as one group;
//   2. issues the loads (columns, values, row offsets) of task t+2 into registers;
//   3. waits for the group of task t (cp.async.wait_group 1) and reduces its rows as the runs
//      kernel does (segmented scan over 8 consecutive entries per lane).
// The stage doubles (64 KB for 32 warps), so the hot copy of u shrinks: 32 K columns keep the
// block under the 196 KB carveout, 40 K take the 228 KB one (L1 down to 28 KB).
// Every result is checked against a double host product with y poisoned first.
// H200, ms, medians of 20 (R-MAT 22 values / A^T pattern; cuSPARSE's best 0.490 / 0.487): the
// library's runs kernel (40 K hot) 0.3525 / 0.3036; these at 32 K hot 0.5163 / 0.3217 (values
// spill 148 bytes: three sets of 8 values live), + evict_last 0.5118 / 0.3233, 24 K 0.5224 /
// 0.3398, 40 K (228 KB carveout) 0.5344 / 0.3496. No gain: ops/cuda/mxv/NOTES.md ("Gathers as
// cp.async copies") has the reading.
//
// Build (from the repository root, after a build in build/test for libspindle.a):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/test/generated/include -Xcompiler -fopenmp
//     --expt-relaxed-constexpr apps/bench/experiments/warp_async.cu build/test/libspindle.a
//     -lcusparse -lcublas -lcublasLt -o warp_async
// Run: ./warp_async [scale] [--reps N]
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "apps/bench/experiments/harness.cuh"
#include "ops/cuda/mxv/mxv_entry.cuh"
#include "ops/cuda/mxv/row_block_warp.cuh"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"

using namespace spindle;
using namespace spindle::detail::cuda;

using harness::time_ms;
using harness::upload;

constexpr int NB = kRowBlockWarpEntries;  // 256
constexpr int W = kRowBlockWarpWarps;     // 32

template <int kL2>
__device__ __forceinline__ void cp_async4(float* dst, const float* src) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (kL2 == 1) {
    const unsigned long long pol = l2_policy_evict_last();
    asm volatile("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src),
                 "l"(pol)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(src) : "memory");
  }
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// What a task's reduction needs once its gathers are issued.
template <class VV>
struct Pending {
  RowBlockDesc d;
  int q0, q1;
  float m[8];
};

template <class S, class VV, int kL2>
__global__ void __launch_bounds__(W * 32, 1)
    async_runs_kernel(const MxvArgs<float, int, VV> a, const RowBlockDesc* __restrict__ desc,
                      std::int64_t tasks, float* __restrict__ partial,
                      std::uint8_t* __restrict__ partial_has, std::int64_t hs) {
  constexpr int P = NB / 32;
  constexpr bool kVal = !is_pattern_v<VV>;
  extern __shared__ __align__(16) unsigned char async_smem_raw[];
  float* const stage_all = reinterpret_cast<float*>(async_smem_raw);
  auto* const ends_all = reinterpret_cast<std::uint32_t*>(stage_all + W * 2 * NB);
  float* const sx = reinterpret_cast<float*>(ends_all + W * kRowBlockWarpEndWords);
  copy_hot_columns<true>(sx, a.u, hs);
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  float* const bufs = stage_all + warp * 2 * NB;
  std::uint32_t* const ends = ends_all + warp * kRowBlockWarpEndWords;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * W;
  std::int64_t task = static_cast<std::int64_t>(blockIdx.x) * W + warp;
  if (task >= tasks) return;
  auto put = [&](std::int64_t row, float value, bool has) {
    a.out.w[row] = has ? value : a.out.identity;
  };
  WarpRunLoads<float, int, VV> cur;
  // Gathers of cur's task into st (entries past the task: the identity, no gather), one group.
  auto issue = [&](float* st) {
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const int t = j * 32 + lane;
      const int col = cur.c[j];
      if (t >= cur.d.nk) {
        st[t] = a.identity;
      } else if (col < hs) {
        st[t] = sx[col];
      } else {
        cp_async4<kL2>(st + t, a.u + col);
      }
    }
    cp_async_commit();
  };
  auto take = [&](Pending<VV>& p) {
    p.d = cur.d;
    p.q0 = cur.o0;
    p.q1 = cur.o1;
    if constexpr (kVal) {
#pragma unroll
      for (int j = 0; j < P; ++j) p.m[j] = cur.m[j];
    }
  };
  cur.load(a, desc, task, lane);
  int b = 0;
  issue(bufs);
  Pending<VV> pend;
  take(pend);
  std::int64_t next = task + stride;
  if (next < tasks) cur.load(a, desc, next, lane);
  while (true) {
    float* const st = bufs + b * NB;
    const bool more = next < tasks;
    Pending<VV> pnext;
    if (more) {
      issue(bufs + (b ^ 1) * NB);
      take(pnext);
    } else {
      cp_async_commit();  // an empty group: wait_group 1 below still means "task t's group"
    }
    const std::int64_t next2 = next + stride;
    if (more && next2 < tasks) cur.load(a, desc, next2, lane);
    cp_async_wait<1>();
    __syncwarp();
    const RowBlockDesc& d = pend.d;
    if constexpr (kVal) {
      // Products in place (each lane its own strided entries).
#pragma unroll
      for (int j = 0; j < P; ++j) {
        const int t = j * 32 + lane;
        st[t] = t < d.nk ? S::mul(pend.m[j], st[t]) : a.identity;
      }
      __syncwarp();
    }
    if (d.kind != kRowBlockRows) {
      float v[P];
#pragma unroll
      for (int j = 0; j < P; ++j) v[j] = st[j * 32 + lane];
      const float s = warp_sum<S>(v, a.identity);
      if (lane == 0) {
        if (d.kind == kRowBlockSingle) {
          put(d.r0, s, true);
        } else {
          partial[d.slot] = s;
          partial_has[d.slot] = 1;
        }
      }
    } else {
      reduce_warp_run<S>(a, d, pend.q0, pend.q1, st, ends, lane, put);
    }
    __syncwarp();  // this buffer takes task t+2's gathers next
    if (!more) break;
    pend = pnext;
    b ^= 1;
    next = next2;
  }
  cp_async_wait<0>();
}

template <class VV>
void run_case(const std::string& name, const Graph<std::int32_t, Pattern>& G, int sms,
              std::int64_t optin) {
  using S = semiring::plus_times<float>;
  const int n = static_cast<int>(G.rows());
  printf("\n## %s: n %d nnz %lld\n", name.c_str(), n, static_cast<long long>(G.nnz()));
  const harness::Case<!std::is_same_v<VV, Pattern>> c(G, 52, true);
  const double best = c.best;
  const MxvArgs<float, int, VV> a = c.template args<VV>();
  float* const d_y = c.d_y;
  auto worst = [&] { return c.worst(); };
  auto report = [&](const char* label, auto&& call) {
    harness::poison(d_y, n);
    call();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    const double err = worst();
    const double t = time_ms(call);
    printf("%-52s %8.4f ms  cus/this %.3f (+15 us gather %.3f)  err %.1e\n", label, t, best / t,
           best / (t + 0.015), err);
    fflush(stdout);
  };
  const RowBlocks pk = build_row_block_warp_runs(c.rp.data(), n);
  RowBlockDesc* d_pk = upload(pk.desc);
  RowBlockLong* d_plong = upload(pk.longs);
  const std::int64_t tasks = static_cast<std::int64_t>(pk.desc.size());
  void* d_pws;
  CK(cudaMalloc(&d_pws, (pk.pieces + 1) * (sizeof(float) + 1) + 64));
  auto lib = [&](const char* label) {
    report(label, [&] {
      launch_row_block_warp_runs<S, float, int, VV, 1>(a, tasks, d_pk,
                                                       std::int64_t(pk.longs.size()), d_plong,
                                                       pk.pieces, d_pws, 40960, sms, optin, 0);
    });
  };
  auto async = [&](auto l2, std::int64_t hot, const char* label) {
    constexpr int kL2 = decltype(l2)::value;
    const std::int64_t hs = std::min<std::int64_t>(hot, n);
    const std::int64_t bytes = std::int64_t{W} * (2 * NB * 4 + kRowBlockWarpEndWords * 4) + hs * 4;
    if (bytes > optin) {
      printf("%-52s (needs %lld B of shared memory)\n", label, (long long)bytes);
      return;
    }
    auto kern = async_runs_kernel<S, VV, kL2>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    const std::int64_t blocks = std::min<std::int64_t>(sms, (tasks + W - 1) / W);
    char full[128];
    snprintf(full, sizeof full, "%s (%lld KB)", label, (long long)(bytes >> 10));
    report(full, [&] {
      kern<<<unsigned(blocks), W * 32, size_t(bytes)>>>(
          a, d_pk, tasks, static_cast<float*>(d_pws),
          reinterpret_cast<std::uint8_t*>(static_cast<float*>(d_pws) + pk.pieces), hs);
      if (!pk.longs.empty()) {
        mxv_row_block_long_kernel<S, false><<<unsigned((pk.longs.size() + 127) / 128), 128>>>(
            d_plong, std::int64_t(pk.longs.size()), static_cast<float*>(d_pws),
            reinterpret_cast<std::uint8_t*>(static_cast<float*>(d_pws) + pk.pieces), a.out);
      }
    });
  };
  using L0 = std::integral_constant<int, 0>;
  using L1 = std::integral_constant<int, 1>;
  for (int rep = 0; rep < 2; ++rep) {
    lib("library runs kernel (40 K hot)");
    async(L0{}, 32768, "async gathers, 32 K hot");
    async(L1{}, 32768, "async gathers + evict_last, 32 K hot");
    async(L0{}, 24576, "async gathers, 24 K hot");
    async(L0{}, 40960, "async gathers, 40 K hot");
    async(L1{}, 40960, "async gathers + evict_last, 40 K hot");
  }
  for (void* p : {(void*)d_pk, (void*)d_plong, d_pws}) CK(cudaFree(p));
}

int main(int argc, char** argv) {
  return harness::rmat_main(
      argc, argv,
      [](auto values, const std::string& name, const auto& G, int sms, std::int64_t optin) {
        run_case<std::conditional_t<decltype(values)::value, float, Pattern>>(name, G, sms, optin);
      });
}
