// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file row_block_warp.cuh
/// @brief row_block with warp-sized blocks (plan: row_block, 256 entries): the same runs of whole
/// rows (CSR-Stream, row_block.cuh), at most 256 entries each, but every run is one warp's task
/// instead of a thread block's, on a persistent grid of one 1024-thread block per SM. A warp
/// reads its run's 256 column indices and values as one coalesced stream (8 per lane, all loads
/// in flight together), gathers u, stages the products in its own 256 entries of shared memory
/// and reduces the rows out of them with 1..32 lanes per row. While it gathers, the warp has
/// already loaded the next task's indices (one task of software pipelining; 4-byte T and I). No
/// barrier ties the warps together, so one warp's reduction overlaps the others' loads: the block
/// form stalls all of its threads at two barriers per block.
///
/// Over relabelled columns (partition.hpp's ColumnRelabel: ids by decreasing in-degree) each block
/// first copies u's hottest entries into shared memory (fp32: 40960, 160 KB; see
/// kRowBlockWarpSmemBudget); gathers of those ids are shared-memory reads (a warp's 32 random
/// reads cost about the bank-conflict degree, where L1 hits cost one wavefront per distinct line),
/// the rest go through L1, which then holds only cold lines, and are kept last in L2.
///
/// Rows longer than 64 entries get tasks of their own: whole when at most 256 entries, else cut
/// into pieces of 256 whose partials row_block's second kernel adds in order. No atomics: results
/// are bit-identical run to run.
///
/// Measured (apps/bench/experiments/mxv_variants.cu, "warp2", H200, R-MAT scale 22, relabelled,
/// fp32; cuSPARSE's best 0.482 ms): 0.372 ms with values and 0.325 ms pattern-only, against
/// 0.466 / 0.413 ms for the block form (row_block/1024) in the same harness. Without the shared
/// copy 0.384 / 0.349 ms; with 16 warps per SM instead of 32, 0.60 ms (too few loads in flight);
/// warp runs of 128 entries 0.401 / 0.367 ms. On uniform rows it matches the block form.

#include <algorithm>
#include <cstdint>

#include "engine/src/cuda/cuda_check.hpp"
#include "ops/cuda/mxv/mxv_args.cuh"
#include "ops/cuda/mxv/partition.hpp"
#include "ops/cuda/mxv/row_block.cuh"
#include "ops/cuda/mxv/row_block_warp_tasks.hpp"

namespace spindle::detail::cuda {

/// The warp form's tasks for A (build_row_block_warps), uploaded once and cached on the graph
/// (partition.cu). block_threads reports the 1024-thread blocks.
template <class I, class V>
RowBlockPartition row_block_warp_partition(const Graph<I, V>& A);

/// Shared memory the warp form takes per block over relabelled columns, staging included: the
/// rest of u's hot copy fills it. 192 KB (+ 1 KB the runtime reserves per block) keeps the SM's
/// carveout at 196 KB and leaves 60 KB of L1 for the cold gathers; one step more and the carveout
/// jumps to 228 KB, leaving 28 KB of L1. apps/bench/experiments/warp_cold.cu, H200, R-MAT scale
/// 22, fp32, the kernel alone (ms; cuSPARSE's best 0.490 values / 0.487 pattern, same process):
///   hot copy of u  | 32 K (128 KB) | 36 K   | 40 K (160 KB) | 44 K (228 KB carveout) | 48 K
///   values         | 0.3816        | 0.3748 | 0.3664        | 0.4491                 | 0.4487
///   pattern (A^T)  | 0.3290        | 0.3228 | 0.3139        | 0.3708                 | 0.3656
/// (48 K from an earlier run of the same binary; cold gathers through L1, policy 1 below). R-MAT
/// 21: 0.1798 -> 0.1778 (values), 0.1565 -> 0.1570 (pattern). With 8-byte values the staging
/// doubles and the hot copy stays at 128 KB.
inline constexpr std::int64_t kRowBlockWarpSmemBudget = 192 * 1024;

/// How the warp form gathers the columns past its shared copy of u: 0 around L1 and kept last in
/// L2 (ld_gather_cold, the row_block default), 1 through L1 and kept last in L2, 2 plain __ldg.
/// With the hot columns in shared memory L1 holds only cold lines, and letting them in was never
/// slower: warp_cold.cu as above, 40 K hot copy, ms, policies 0 / 1 / 2: values 0.3672 / 0.3664 /
/// 0.3678, pattern 0.3155 / 0.3139 / 0.3150; at 32 K 0.3889 / 0.3816 / 0.3830 and 0.3364 /
/// 0.3290 / 0.3283. (floor.cu, a kernel without rows, showed the same: 0.2977 around L1, 0.2765
/// through it.)
inline constexpr int kRowBlockWarpCold = 1;

/// Bytes of dynamic shared memory the warp form needs: the warps' staging (plus presence bytes
/// on the general path) and `hs` entries of u.
template <class T, bool kGeneral>
constexpr std::int64_t row_block_warp_smem(std::int64_t hs) {
  return static_cast<std::int64_t>(kRowBlockWarpWarps) * kRowBlockWarpEntries *
             static_cast<std::int64_t>(sizeof(T) + (kGeneral ? 1 : 0)) +
         hs * static_cast<std::int64_t>(sizeof(T));
}

/// Entries of u the warp form copies into shared memory over relabelled columns (plain calls):
/// what fits beside its staging in kRowBlockWarpSmemBudget (fp32: 40960, fp64: 16384).
template <class T>
constexpr std::int64_t row_block_warp_hot_entries() {
  return (kRowBlockWarpSmemBudget - row_block_warp_smem<T, false>(0)) /
         static_cast<std::int64_t>(sizeof(T));
}

/// One warp's loads for a task: its descriptor, and its entries' column ids and values (lane
/// `lane` holds entries lane, lane + 32, ...).
template <class T, class I, class VV>
struct WarpTaskLoads {
  static constexpr int P = kRowBlockWarpEntries / 32;
  RowBlockDesc d;
  I c[P];
  T m[P];
  __device__ __forceinline__ void load(const MxvArgs<T, I, VV>& a, const RowBlockDesc* desc,
                                       std::int64_t task, int lane) {
    d = desc[task];
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const int t = j * 32 + lane;
      const bool in = t < d.nk;
      c[j] = in ? ld_stream<kRowBlockStreamHints>(a.A.col_idx + d.k0 + t) : I(0);
      m[j] = in ? matrix_value<T, VV, kRowBlockStreamHints>(a.A.values, d.k0 + t) : T(1);
    }
  }
};

template <int kCold, class X>
__device__ __forceinline__ X ld_warp_cold(const X* p) {
  if constexpr (kCold == 0) {
    return ld_gather_cold(p);
  } else if constexpr (kCold == 1) {
    return ld_hinted<true, true>(p);
  } else {
    return __ldg(p);
  }
}

template <class S, bool kGeneral, bool kShared, class T, class I, class VV,
          int kCold = kRowBlockWarpCold>
__global__ void __launch_bounds__(kRowBlockWarpWarps * 32, 1)
    mxv_row_block_warp_kernel(const MxvArgs<T, I, VV> a, const RowBlockDesc* __restrict__ desc,
                              std::int64_t tasks, T* __restrict__ partial,
                              std::uint8_t* __restrict__ partial_has, std::int64_t hs) {
  constexpr int NB = kRowBlockWarpEntries;
  constexpr int P = NB / 32;
  constexpr bool kPrefetch = sizeof(T) == 4 && sizeof(I) == 4;
  extern __shared__ __align__(16) unsigned char row_block_warp_smem_raw[];
  T* const stage_all = reinterpret_cast<T*>(row_block_warp_smem_raw);
  T* const sx = stage_all + kRowBlockWarpWarps * NB;                   // kShared: u(0 .. hs)
  std::uint8_t* const pres_all = reinterpret_cast<std::uint8_t*>(sx);  // kGeneral (no sx then)
  if constexpr (kShared) {
    for (std::int64_t j = threadIdx.x; j < hs; j += blockDim.x) sx[j] = __ldg(a.u + j);
    __syncthreads();
  }
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  T* const stage = stage_all + warp * NB;
  std::uint8_t* const pres = pres_all + warp * NB;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kRowBlockWarpWarps;
  std::int64_t task = static_cast<std::int64_t>(blockIdx.x) * kRowBlockWarpWarps + warp;
  WarpTaskLoads<T, I, VV> cur;
  if (task < tasks) cur.load(a, desc, task, lane);
  while (task < tasks) {
    // Products of the current task (absent inputs: the identity, and no gather).
    T v[P];
    bool p[P];
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const std::int64_t col = static_cast<std::int64_t>(cur.c[j]);
      p[j] = j * 32 + lane < cur.d.nk;
      if constexpr (kGeneral) {
        p[j] = p[j] && (a.u_present == nullptr || __ldg(a.u_present + col) != 0);
      }
      T x{};
      if constexpr (kShared) {
        const T hot = sx[col < hs ? col : 0];
        if (p[j] && col >= hs) x = ld_warp_cold<kCold>(a.u + col);
        x = col < hs ? hot : x;
      } else {
        if (p[j]) x = __ldg(a.u + col);
      }
      v[j] = p[j] ? S::mul(cur.m[j], x) : a.identity;
    }
    const RowBlockDesc d = cur.d;
    // The next task's loads go out before this one's products are consumed (4-byte values and
    // indices only: with 8-byte ones the second set of registers spills under the 64 cap).
    const std::int64_t next = task + stride;
    if constexpr (kPrefetch) {
      if (next < tasks) cur.load(a, desc, next, lane);
    }
    if (d.kind != kRowBlockRows) {
      T s = a.identity;
      bool h = false;
#pragma unroll
      for (int j = 0; j < P; ++j) {
        s = S::add(s, v[j]);
        h = h || p[j];
      }
      for (int off = 16; off > 0; off >>= 1) s = S::add(s, __shfl_down_sync(0xffffffffu, s, off));
      h = __any_sync(0xffffffffu, h);
      if (lane == 0) {
        if (d.kind == kRowBlockSingle) {
          write_result<kGeneral>(a.out, d.r0, s, kGeneral ? h : true);
        } else {
          partial[d.slot] = s;
          partial_has[d.slot] = h ? 1 : 0;
        }
      }
    } else {
#pragma unroll
      for (int j = 0; j < P; ++j) {
        stage[j * 32 + lane] = v[j];
        if constexpr (kGeneral) pres[j * 32 + lane] = p[j] ? 1 : 0;
      }
      __syncwarp();
      row_block_reduce_rows<S, kGeneral>(a, d, stage, pres, 32, lane);
      __syncwarp();
    }
    task = next;
    if constexpr (!kPrefetch) {
      if (task < tasks) cur.load(a, desc, task, lane);
    }
  }
}

/// Launches the warp form and, for long rows, row_block's in-order sum of the pieces. `hot` is
/// the number of leading (relabelled) entries of u to copy into shared memory, 0 for none; it
/// shrinks to what the device's shared memory holds. `ws` as launch_row_block's.
template <class S, bool kGeneral, class T, class I, class VV, int kCold = kRowBlockWarpCold>
void launch_row_block_warp(const MxvArgs<T, I, VV>& a, std::int64_t tasks, const RowBlockDesc* desc,
                           std::int64_t n_long, const RowBlockLong* longs, std::int64_t pieces,
                           void* ws, std::int64_t hot, int sm_count,
                           std::int64_t smem_per_block_optin, cudaStream_t stream) {
  T* partial = static_cast<T*>(ws);
  auto* partial_has = reinterpret_cast<std::uint8_t*>(partial + pieces);
  if (tasks > 0) {
    const std::int64_t staging = row_block_warp_smem<T, kGeneral>(0);
    std::int64_t hs = kGeneral ? 0 : hot;
    if (staging + hs * static_cast<std::int64_t>(sizeof(T)) > smem_per_block_optin) {
      hs = std::max<std::int64_t>(
          0, (smem_per_block_optin - staging) / static_cast<std::int64_t>(sizeof(T)));
    }
    const std::int64_t warps_needed = tasks;
    const std::int64_t blocks = std::max<std::int64_t>(
        1, std::min<std::int64_t>(std::max(sm_count, 1),
                                  (warps_needed + kRowBlockWarpWarps - 1) / kRowBlockWarpWarps));
    const std::int64_t bytes = row_block_warp_smem<T, kGeneral>(hs);
    auto run = [&](auto kernel) {
      SPINDLE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(bytes)));
      kernel<<<static_cast<unsigned>(blocks), kRowBlockWarpWarps * 32,
               static_cast<std::size_t>(bytes), stream>>>(a, desc, tasks, partial, partial_has, hs);
    };
    if constexpr (kGeneral) {
      run(mxv_row_block_warp_kernel<S, true, false, T, I, VV, kCold>);
    } else if (hs > 0) {
      run(mxv_row_block_warp_kernel<S, false, true, T, I, VV, kCold>);
    } else {
      run(mxv_row_block_warp_kernel<S, false, false, T, I, VV, kCold>);
    }
  }
  if (n_long > 0) {
    mxv_row_block_long_kernel<S, kGeneral>
        <<<static_cast<unsigned>((n_long + 127) / 128), 128, 0, stream>>>(longs, n_long, partial,
                                                                          partial_has, a.out);
  }
}

}  // namespace spindle::detail::cuda
