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
/// Over relabelled columns (partition.hpp's ColumnRelabel: the hottest ids first, by decreasing
/// in-degree) each block first copies u's hottest entries into shared memory (fp32: 40960, 160
/// KB; see kRowBlockWarpSmemBudget); gathers of those ids are shared-memory reads (a warp's 32
/// random reads cost about the bank-conflict degree, where L1 hits cost one wavefront per distinct
/// line), the rest go through L1, which then holds only cold lines, and are kept last in L2.
///
/// Rows longer than 64 entries get tasks of their own: whole when at most 256 entries, else cut
/// into pieces of 256 whose partials row_block's second kernel adds (a warp per long row, fixed
/// order). No atomics: results are bit-identical run to run.
///
/// That is the general path's form (masks, accumulators, absent inputs). Plain calls run
/// mxv_row_block_warp_runs_kernel (below): the same loads and gathers over fuller tasks (runs of
/// whole rows up to 256 entries whatever the rows' lengths) reduced by a segmented scan instead of
/// lane groups; 6-10% faster on R-MAT 21-22.
///
/// Measured in an exploration harness (H200, R-MAT scale 22, relabelled,
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

/// How the warp form gathers the columns past its shared copy of u: 0 around L1 and kept last in
/// L2 (ld_gather_cold, the row_block default), 1 through L1 and kept last in L2, 2 plain __ldg.
/// With the hot columns in shared memory L1 holds only cold lines, and letting them in was never
/// slower: that harness as above, 40 K hot copy, ms, policies 0 / 1 / 2: values 0.3672 / 0.3664 /
/// 0.3678, pattern 0.3155 / 0.3139 / 0.3150; at 32 K 0.3889 / 0.3816 / 0.3830 and 0.3364 /
/// 0.3290 / 0.3283. (A floor kernel without rows showed the same: 0.2977 around L1, 0.2765
/// through it.)
inline constexpr int kRowBlockWarpCold = 1;

/// The warp form's tasks for A (build_row_block_warps), uploaded once and cached on the graph
/// (partition.cu). block_threads reports the 1024-thread blocks.
template <class I, class V>
RowBlockPartition row_block_warp_partition(const Graph<I, V>& A);

/// The simple path's runs (build_row_block_warp_runs), uploaded once and cached on the graph.
template <class I, class V>
RowBlockPartition row_block_warp_run_partition(const Graph<I, V>& A);

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

/// Each block's copy of u(0 .. hs) in shared memory (kShared), before any warp reads it.
template <bool kShared, class T>
__device__ __forceinline__ void copy_hot_columns(T* sx, const T* u, std::int64_t hs) {
  if constexpr (kShared) {
    for (std::int64_t j = threadIdx.x; j < hs; j += blockDim.x) sx[j] = __ldg(u + j);
    __syncthreads();
  }
}

/// The products of the loaded task's entries (lane `lane` holds entries lane, lane + 32, ...), and
/// whether each has a term: absent inputs (past the task's entries; on the general path also u's
/// absent entries) give the identity and gather nothing. Columns below hs come from the shared
/// copy of u (kShared), the rest by the cold policy.
template <class S, bool kGeneral, bool kShared, int kCold, class T, class I, class VV, int P>
__device__ __forceinline__ void warp_task_products(const MxvArgs<T, I, VV>& a,
                                                   const WarpTaskLoads<T, I, VV>& cur, const T* sx,
                                                   std::int64_t hs, int lane, T (&v)[P],
                                                   bool (&p)[P]) {
#pragma unroll
  for (int j = 0; j < P; ++j) {
    const std::int64_t col = static_cast<std::int64_t>(cur.c[j]);
    p[j] = j * 32 + lane < cur.d.nk;
    if constexpr (kGeneral) {
      p[j] = p[j] && (a.u_present == nullptr || __ldg(a.u_present + col) != 0);
    }
    // Entries past the task have column 0 (a valid read): only absent inputs skip the gather.
    const bool gather = kGeneral ? p[j] : true;
    T x{};
    if constexpr (kShared) {
      const T hot = sx[col < hs ? col : 0];
      if (gather && col >= hs) x = ld_warp_cold<kCold>(a.u + col);
      x = col < hs ? hot : x;
    } else {
      if (gather) x = __ldg(a.u + col);
    }
    v[j] = p[j] ? S::mul(cur.m[j], x) : a.identity;
  }
}

/// The warp's sum of its lanes' P values (every lane adds its own in order, then a shuffle tree;
/// lane 0 holds the result): a piece of a long row, or a single row, in both warp kernels.
template <class S, class T, int P>
__device__ __forceinline__ T warp_sum(const T (&v)[P], T identity) {
  T s = identity;
#pragma unroll
  for (int j = 0; j < P; ++j) s = S::add(s, v[j]);
  for (int off = 16; off > 0; off >>= 1) s = S::add(s, __shfl_down_sync(0xffffffffu, s, off));
  return s;
}

/// A warp-form launch: one block of kRowBlockWarpWarps warps per SM (fewer blocks when there are
/// fewer tasks), `staging` bytes of shared memory per block plus a hot copy of `hot` entries of u
/// clamped to what the device's shared memory holds beside the staging.
struct WarpFormLaunch {
  std::int64_t hs = 0;      ///< entries of u copied into shared memory
  std::int64_t blocks = 1;  ///< grid size
  std::int64_t bytes = 0;   ///< dynamic shared memory per block

  template <class T>
  static WarpFormLaunch make(std::int64_t tasks, std::int64_t staging, std::int64_t hot,
                             int sm_count, std::int64_t smem_per_block_optin) {
    WarpFormLaunch l;
    l.hs = hot;
    if (staging + l.hs * static_cast<std::int64_t>(sizeof(T)) > smem_per_block_optin) {
      l.hs = std::max<std::int64_t>(
          0, (smem_per_block_optin - staging) / static_cast<std::int64_t>(sizeof(T)));
    }
    l.blocks = std::max<std::int64_t>(
        1, std::min<std::int64_t>(std::max(sm_count, 1),
                                  (tasks + kRowBlockWarpWarps - 1) / kRowBlockWarpWarps));
    l.bytes = staging + l.hs * static_cast<std::int64_t>(sizeof(T));
    return l;
  }

  /// Launches `kernel` with this shape on `stream` (raising its shared-memory limit first).
  template <class Kernel, class... Args>
  void launch(Kernel kernel, cudaStream_t stream, const Args&... args) const {
    SPINDLE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(bytes)));
    kernel<<<static_cast<unsigned>(blocks), kRowBlockWarpWarps * 32,
             static_cast<std::size_t>(bytes), stream>>>(args...);
    SPINDLE_CUDA_CHECK_LAUNCH("row_block warp form");
  }
};

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
  copy_hot_columns<kShared>(sx, a.u, hs);
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
    warp_task_products<S, kGeneral, kShared, kCold>(a, cur, sx, hs, lane, v, p);
    const RowBlockDesc d = cur.d;
    // The next task's loads go out before this one's products are consumed (4-byte values and
    // indices only: with 8-byte ones the second set of registers spills under the 64 cap).
    const std::int64_t next = task + stride;
    if constexpr (kPrefetch) {
      if (next < tasks) cur.load(a, desc, next, lane);
    }
    if (d.kind != kRowBlockRows) {
      const T s = warp_sum<S>(v, a.identity);
      bool h = false;
#pragma unroll
      for (int j = 0; j < P; ++j) h = h || p[j];
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

/// Launches the warp form and, for long rows, row_block's sum of the pieces. `hot` is
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
    const auto l = WarpFormLaunch::make<T>(tasks, row_block_warp_smem<T, kGeneral>(0),
                                           kGeneral ? 0 : hot, sm_count, smem_per_block_optin);
    auto run = [&](auto kernel) {
      l.launch(kernel, stream, a, desc, tasks, partial, partial_has, l.hs);
    };
    if constexpr (kGeneral) {
      run(mxv_row_block_warp_kernel<S, true, false, T, I, VV, kCold>);
    } else if (l.hs > 0) {
      run(mxv_row_block_warp_kernel<S, false, true, T, I, VV, kCold>);
    } else {
      run(mxv_row_block_warp_kernel<S, false, false, T, I, VV, kCold>);
    }
  }
  if (n_long > 0) {
    launch_row_block_long<S, kGeneral>(a, n_long, longs, partial, partial_has, stream);
  }
}

/// The simple path's warp form over runs (build_row_block_warp_runs): whole rows, at most 256
/// entries per run whatever the rows' lengths, and pieces of rows longer than 256. Loads and
/// gathers as mxv_row_block_warp_kernel (one task ahead, hot columns of u in shared memory); a
/// run's row offsets come with its loads (rows 0..63 of the run in two registers per lane, the rest
/// read when needed). The rows are reduced by a segmented scan:
///   1. the products are staged and each lane takes 8 consecutive ones into registers;
///   2. each row's last entry gets a bit in the warp's 256-bit end mask, and the row's place in the
///      run is left in the (now free) stage at that entry; empty rows are written here;
///   3. each lane sums its 8 products left to right, writing every row that ends in it after its
///      first end, and keeps the part before its first end (pre) and after its last (tail);
///   4. a 5-step shuffle scan of the tails, cut at lanes with an end (flags from one ballot), gives
///      each lane the sum of the row still open where it starts: that row ends at the lane's first
///      end, with value carry + pre.
/// Every row's sum is formed in a fixed order (bit-identical run to run); the cost does not depend
/// on the rows' lengths, where row_block_reduce_rows takes as long as a run's longest row. Runs are
/// whole rows: no carries between tasks; pieces go through row_block's long-row kernel.
/// Measured in an exploration harness (H200, fp32, 40 K hot columns, the kernel
/// alone): R-MAT 22 0.3432 ms with values and 0.2963 pattern-only (A^T) against
/// 0.3662 / 0.3138 for mxv_row_block_warp_kernel, R-MAT 21 0.1620 / 0.1429 against 0.1768 / 0.1584.
template <class T, class I, class VV>
struct WarpRunLoads : WarpTaskLoads<T, I, VV> {
  I o0, o1;  // row_ptr[r0 + lane], row_ptr[r0 + 32 + lane] (within the run's rows + 1)
  __device__ __forceinline__ void load(const MxvArgs<T, I, VV>& a, const RowBlockDesc* desc,
                                       std::int64_t task, int lane) {
    WarpTaskLoads<T, I, VV>::load(a, desc, task, lane);
    const RowBlockDesc& d = this->d;
    const bool rows = d.kind == kRowBlockRows;
    o0 = rows && lane <= d.rows ? __ldg(a.A.row_ptr + d.r0 + lane) : I(0);
    o1 = rows && lane + 32 <= d.rows ? __ldg(a.A.row_ptr + d.r0 + 32 + lane) : I(0);
  }
};

/// This lane's 8 consecutive staged values (16-byte shared loads where T allows).
template <class T>
__device__ __forceinline__ void read_eight(const T* stage, int lane, T (&x)[8]) {
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    const uint4* p = reinterpret_cast<const uint4*>(stage + 8 * lane);
    constexpr int kPer = 16 / static_cast<int>(sizeof(T));
#pragma unroll
    for (int q = 0; q < 8 / kPer; ++q) {
      const uint4 w = p[q];
      memcpy(x + q * kPer, &w, 16);
    }
  } else {
#pragma unroll
    for (int i = 0; i < 8; ++i) x[i] = stage[8 * lane + i];
  }
}

/// The runs kernel's reduction (below) for one run of whole rows from the point where the warp
/// has staged the run's products (entry t at stage[t]) and synchronized: every lane takes its 8
/// consecutive products (the rest of step 1), then steps 2-4; every row's sum goes out
/// through put(row, value, has), empty rows as put(row, identity, false). q0 / q1 hold
/// row_ptr[r0 + lane] / row_ptr[r0 + 32 + lane]; `ends` is the warp's kRowBlockWarpEndWords words
/// of row-end bits. The stage is reused for the rows' places; the caller synchronizes the warp
/// before staging again.
template <class S, class T, class I, class VV, class Put>
__device__ __forceinline__ void reduce_warp_run(const MxvArgs<T, I, VV>& a, const RowBlockDesc& d,
                                                I q0, I q1, T* stage, std::uint32_t* ends, int lane,
                                                Put&& put) {
  constexpr unsigned kFull = 0xffffffffu;
  int* const stage_row = reinterpret_cast<int*>(stage);  // a row's place in its run
  T x[8];
  read_eight(stage, lane, x);
  if (lane < kRowBlockWarpEndWords) ends[lane] = 0u;
  __syncwarp();  // the stage is free: it takes the rows' places at their last entries
  const I k0 = static_cast<I>(d.k0);
  const I r0 = static_cast<I>(d.r0);  // in I: 32-bit row arithmetic for int32 graphs
  // row_ptr[r0 + i]: registers for i < 64 (the shuffles run on every lane), else a load.
  auto offset = [&](int i) -> I {
    const I lo = __shfl_sync(kFull, q0, i & 31), hi = __shfl_sync(kFull, q1, i & 31);
    return i < 32 ? lo : hi;
  };
  for (int base = 0; base < d.rows; base += 32) {  // uniform across the warp
    const int rr = base + lane;
    I b = offset(rr), e = offset(rr + 1);
    if (rr < d.rows) {
      if (rr >= 64) b = __ldg(a.A.row_ptr + r0 + rr);
      if (rr + 1 >= 64) e = __ldg(a.A.row_ptr + r0 + rr + 1);
      if (e > b) {
        const int q = static_cast<int>(e - 1 - k0);
        atomicOr(ends + (q >> 5), 1u << (q & 31));
        stage_row[q] = rr;
      } else {
        put(r0 + rr, a.identity, false);
      }
    }
  }
  __syncwarp();
  const unsigned em = (ends[lane >> 2] >> ((lane & 3) * 8)) & 0xffu;
  const unsigned lanes_with_end = __ballot_sync(kFull, em != 0u);
  T acc = a.identity, pre = a.identity;
  bool closed = false;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    acc = S::add(acc, x[i]);
    if ((em >> i) & 1u) {
      if (closed) {
        put(r0 + stage_row[8 * lane + i], acc, true);
      } else {
        pre = acc;
      }
      acc = a.identity;
      closed = true;
    }
  }
  // Inclusive scan of the open tails, restarting at each lane with an end: in step `off` a
  // lane adds the value `off` lanes up unless one of the lanes (lane - off, lane] has an end.
  T sv = acc;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const T up = __shfl_up_sync(kFull, sv, off);
    if (lane >= off && ((lanes_with_end >> (lane - off + 1)) & ((1u << off) - 1u)) == 0u) {
      sv = S::add(up, sv);
    }
  }
  T carry = __shfl_up_sync(kFull, sv, 1);
  if (lane == 0) carry = a.identity;
  if (closed) {
    put(r0 + stage_row[8 * lane + (__ffs(em) - 1)], S::add(carry, pre), true);
  }
}

template <class S, bool kShared, class T, class I, class VV, int kCold = kRowBlockWarpCold>
__global__ void __launch_bounds__(kRowBlockWarpWarps * 32, 1)
    mxv_row_block_warp_runs_kernel(const MxvArgs<T, I, VV> a, const RowBlockDesc* __restrict__ desc,
                                   std::int64_t tasks, T* __restrict__ partial,
                                   std::uint8_t* __restrict__ partial_has, std::int64_t hs) {
  constexpr int NB = kRowBlockWarpEntries;
  constexpr int P = NB / 32;
  constexpr bool kPrefetch = sizeof(T) == 4 && sizeof(I) == 4;
  static_assert(NB == 256, "a lane takes 8 consecutive entries of a run");
  extern __shared__ __align__(16) unsigned char row_block_warp_runs_smem_raw[];
  T* const stage_all = reinterpret_cast<T*>(row_block_warp_runs_smem_raw);
  auto* const ends_all = reinterpret_cast<std::uint32_t*>(stage_all + kRowBlockWarpWarps * NB);
  T* const sx = reinterpret_cast<T*>(ends_all + kRowBlockWarpWarps * kRowBlockWarpEndWords);
  copy_hot_columns<kShared>(sx, a.u, hs);
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  T* const stage = stage_all + warp * NB;
  std::uint32_t* const ends = ends_all + warp * kRowBlockWarpEndWords;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kRowBlockWarpWarps;
  std::int64_t task = static_cast<std::int64_t>(blockIdx.x) * kRowBlockWarpWarps + warp;
  // write_result<false> without the presence bytes: the caller writes those (a row has a term
  // exactly when it has entries on the simple path) with one coalesced pass over the row offsets;
  // scattered here beside y they cost R-MAT 22 0.022 ms (6%, H200).
  auto put = [&](std::int64_t row, T value, bool has) {
    a.out.w[row] = has ? value : a.out.identity;
  };
  WarpRunLoads<T, I, VV> cur;
  if (task < tasks) cur.load(a, desc, task, lane);
  while (task < tasks) {
    T v[P];
    bool in[P];
    warp_task_products<S, false, kShared, kCold>(a, cur, sx, hs, lane, v, in);
    const RowBlockDesc d = cur.d;
    const I q0 = cur.o0, q1 = cur.o1;
    const std::int64_t next = task + stride;
    if constexpr (kPrefetch) {
      if (next < tasks) cur.load(a, desc, next, lane);
    }
    if (d.kind != kRowBlockRows) {
      // A piece of a long row (or, from other partitions, a single row): one warp sum.
      const T s = warp_sum<S>(v, a.identity);
      if (lane == 0) {
        if (d.kind == kRowBlockSingle) {
          put(d.r0, s, true);
        } else {
          partial[d.slot] = s;
          partial_has[d.slot] = 1;
        }
      }
    } else {
#pragma unroll
      for (int j = 0; j < P; ++j) stage[j * 32 + lane] = v[j];
      __syncwarp();
      reduce_warp_run<S>(a, d, q0, q1, stage, ends, lane, put);
      __syncwarp();
    }
    task = next;
    if constexpr (!kPrefetch) {
      if (task < tasks) cur.load(a, desc, task, lane);
    }
  }
}

/// Launches the runs kernel (simple path) and, for long rows, row_block's sum of the
/// pieces. Arguments as launch_row_block_warp's; y's presence bytes are not written (the caller
/// writes them from the row offsets: mxv_entry.cuh).
template <class S, class T, class I, class VV, int kCold = kRowBlockWarpCold>
void launch_row_block_warp_runs(const MxvArgs<T, I, VV>& a, std::int64_t tasks,
                                const RowBlockDesc* desc, std::int64_t n_long,
                                const RowBlockLong* longs, std::int64_t pieces, void* ws,
                                std::int64_t hot, int sm_count, std::int64_t smem_per_block_optin,
                                cudaStream_t stream) {
  T* partial = static_cast<T*>(ws);
  auto* partial_has = reinterpret_cast<std::uint8_t*>(partial + pieces);
  if (tasks > 0) {
    const auto l = WarpFormLaunch::make<T>(tasks, row_block_warp_runs_smem<T>(0), hot, sm_count,
                                           smem_per_block_optin);
    auto run = [&](auto kernel) {
      l.launch(kernel, stream, a, desc, tasks, partial, partial_has, l.hs);
    };
    if (l.hs > 0) {
      run(mxv_row_block_warp_runs_kernel<S, true, T, I, VV, kCold>);
    } else {
      run(mxv_row_block_warp_runs_kernel<S, false, T, I, VV, kCold>);
    }
  }
  if (n_long > 0) {
    launch_row_block_long<S, false>(a, n_long, longs, partial, partial_has, stream);
  }
}

/// The warp form of a plain call: the runs kernel where kRowBlockWarpRuns<T, I>, the lane-group
/// kernel otherwise (one explicit instantiation per semiring and types, ops/cuda/mxv/families.hpp).
template <class S, class T, class I, class VV>
void launch_row_block_warp_dispatch(const MxvArgs<T, I, VV>& a, std::int64_t tasks,
                                    const RowBlockDesc* desc, std::int64_t n_long,
                                    const RowBlockLong* longs, std::int64_t pieces, void* ws,
                                    std::int64_t hot, int sm_count,
                                    std::int64_t smem_per_block_optin, cudaStream_t stream) {
  if constexpr (kRowBlockWarpRuns<T, I>) {
    launch_row_block_warp_runs<S>(a, tasks, desc, n_long, longs, pieces, ws, hot, sm_count,
                                  smem_per_block_optin, stream);
  } else {
    launch_row_block_warp<S, false>(a, tasks, desc, n_long, longs, pieces, ws, hot, sm_count,
                                    smem_per_block_optin, stream);
  }
}

}  // namespace spindle::detail::cuda
