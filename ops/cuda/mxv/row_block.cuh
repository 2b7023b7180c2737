// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file row_block.cuh
/// @brief mxv, one thread block per run of whole rows holding at most NB stored entries (CSR-Stream
/// of Greathouse & Daga's CSR-Adaptive; the row-block idea behind seed 002's load-balanced
/// kernels). The block first reads its NB entries as one coalesced stream and multiplies each
/// with its gathered u value into shared memory: every thread has NB / BT independent column,
/// value and u loads in flight, whatever the row lengths. Then the block's rows are reduced out
/// of shared memory by groups of 1..32 lanes (chosen per block from its row count and longest
/// row), in a fixed order.
///
/// Rows longer than NB / 4 never share a block: a row of up to 8 NB entries gets a block of its
/// own (strided loads straight into registers, block-wide reduction), a longer one is cut into
/// pieces of 8 NB entries whose partial results a second kernel adds left to right. No atomics
/// anywhere: results are bit-identical run to run.
///
/// Gathers of u go through HotColdGather: when the columns are relabelled by in-degree
/// (partition.hpp), ids below `hot` are the most gathered entries and are read through L1, the
/// rest bypass L1 (L1::no_allocate) and are kept last in L2, so the cold gathers do not evict the
/// hot lines from L1. Without relabelling `hot` is past every column and all reads are plain.
/// In the exploration harness (apps/bench/experiments/mxv_variants.cu; H100, R-MAT scale 22, fp32)
/// the prototype ran 0.453 ms with hot = 32768 columns against 0.510 ms with every gather through
/// L1 (ops/cuda/mxv/NOTES.md).

#include <cstdint>

#include "ops/cuda/mxv/mxv_args.cuh"
#include "ops/cuda/mxv/partition.hpp"

namespace spindle::detail::cuda {

/// Loads of u that bypass L1 and stay longest in L2 (sm_80+; plain __ldg before).
template <class X>
__device__ __forceinline__ X ld_gather_cold(const X* p) {
  return ld_hinted<false, true>(p);
}

/// u(j) through L1 for j < hot, around it otherwise.
template <class T>
struct HotColdGather {
  const T* u;
  std::int64_t hot;
  __device__ __forceinline__ T operator()(std::int64_t j) const {
    return j < hot ? __ldg(u + j) : ld_gather_cold(u + j);
  }
};

/// The column index and value streams skip L1 (and leave L2 first), so they do not push the hot
/// lines of u out of L1: with plain loads for them the hot/cold split above ran 0.51 ms instead of
/// 0.45 ms on R-MAT scale 22 (H100), no faster than reading everything through L1.
inline constexpr int kRowBlockStreamHints = 1;

template <class S, bool kGeneral, int BT, class T>
__device__ __forceinline__ void row_block_reduce_whole(T s, bool h, T* red, std::uint8_t* red_has,
                                                       T& total, bool& total_has) {
  for (int off = 16; off > 0; off >>= 1) {
    s = S::add(s, __shfl_down_sync(0xffffffffu, s, off));
    if constexpr (kGeneral) h = (__shfl_down_sync(0xffffffffu, h ? 1 : 0, off) != 0) || h;
  }
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  if ((threadIdx.x & 31) == 0) {
    red[warp] = s;
    if constexpr (kGeneral) red_has[warp] = h ? 1 : 0;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    total = red[0];
    total_has = kGeneral ? red_has[0] != 0 : true;
    for (int w = 1; w < BT / 32; ++w) {
      total = S::add(total, red[w]);
      if constexpr (kGeneral) total_has = total_has || red_has[w] != 0;
    }
  }
}

/// The rows of a run (d.r0 .. d.r0 + d.rows) whose products sit in prod[0 .. d.nk) (presence
/// bytes in pres on the general path): `1 << d.slot` lanes per row among `threads` threads
/// (this one is `tid`), lane-strided sums and a shuffle tree, in a fixed order. The block form
/// calls it with the block's threads, the warp form (row_block_warp.cuh) with one warp's lanes.
template <class S, bool kGeneral, class T, class I, class VV>
__device__ __forceinline__ void row_block_reduce_rows(const MxvArgs<T, I, VV>& a,
                                                      const RowBlockDesc& d, const T* prod,
                                                      const std::uint8_t* pres, int threads,
                                                      int tid) {
  const int lg = d.slot;
  const int lanes = 1 << lg;
  const int groups = threads >> lg;
  const int g = tid >> lg;
  const int lane = tid & (lanes - 1);
  for (int base = 0; base < d.rows; base += groups) {  // uniform across the threads
    const int rr = base + g;
    const std::int64_t r = d.r0 + rr;
    T s = a.identity;
    bool h = false;
    int b = 0, e = 0;
    if (rr < d.rows) {
      b = static_cast<int>(static_cast<std::int64_t>(__ldg(a.A.row_ptr + r)) - d.k0);
      e = static_cast<int>(static_cast<std::int64_t>(__ldg(a.A.row_ptr + r + 1)) - d.k0);
      for (int t = b + lane; t < e; t += lanes) {
        s = S::add(s, prod[t]);
        if constexpr (kGeneral) h = h || pres[t] != 0;
      }
    }
    for (int off = lanes >> 1; off > 0; off >>= 1) {
      s = S::add(s, __shfl_down_sync(0xffffffffu, s, off, lanes));
      if constexpr (kGeneral) h = (__shfl_down_sync(0xffffffffu, h ? 1 : 0, off, lanes) != 0) || h;
    }
    if (lane == 0 && rr < d.rows) write_result<kGeneral>(a.out, r, s, kGeneral ? h : e > b);
  }
}

template <class S, bool kGeneral, int BT, class T, class I, class VV>
__global__ void __launch_bounds__(BT)
    mxv_row_block_kernel(const MxvArgs<T, I, VV> a, const RowBlockDesc* __restrict__ desc,
                         T* __restrict__ partial, std::uint8_t* __restrict__ partial_has,
                         std::int64_t hot) {
  constexpr int NB = 4 * BT;
  __shared__ T prod[NB];
  __shared__ std::uint8_t pres[kGeneral ? NB : 1];
  __shared__ T red[BT / 32];
  __shared__ std::uint8_t red_has[BT / 32];
  const RowBlockDesc d = desc[blockIdx.x];
  const HotColdGather<T> gather{a.u, hot};
  if (d.kind != kRowBlockRows) {
    // A long row (or a piece of one): each thread walks its strided share, four independent
    // products in flight per round, then the block combines the threads in a fixed order.
    T s = a.identity;
    bool h = false;
    for (int base = 0; base < d.nk; base += 4 * BT) {
      T v[4];
      bool p[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int t = base + j * BT + static_cast<int>(threadIdx.x);
        p[j] = false;
        v[j] = a.identity;
        if (t < d.nk) {
          v[j] = entry_product<S, kGeneral, kRowBlockStreamHints>(a, d.k0 + t, p[j], gather);
        }
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if (p[j]) {
          s = S::add(s, v[j]);
          h = true;
        }
      }
    }
    T total{};
    bool total_has = false;
    row_block_reduce_whole<S, kGeneral, BT>(s, h, red, red_has, total, total_has);
    if (threadIdx.x == 0) {
      if (d.kind == kRowBlockSingle) {
        write_result<kGeneral>(a.out, d.r0, total, total_has);
      } else {
        partial[d.slot] = total;
        partial_has[d.slot] = total_has ? 1 : 0;
      }
    }
    return;
  }
  // 1. Products of the block's entries, four independent loads per thread.
#pragma unroll
  for (int it = 0; it < NB / BT; ++it) {
    const int t = it * BT + static_cast<int>(threadIdx.x);
    if (t < d.nk) {
      bool p = false;
      const T v = entry_product<S, kGeneral, kRowBlockStreamHints>(a, d.k0 + t, p, gather);
      prod[t] = p ? v : a.identity;
      if constexpr (kGeneral) pres[t] = p ? 1 : 0;
    }
  }
  __syncthreads();
  // 2. Rows of up to NB / 4 entries, reduced out of shared memory.
  row_block_reduce_rows<S, kGeneral>(a, d, prod, pres, BT, static_cast<int>(threadIdx.x));
}

/// Adds the pieces of each long row in order and writes the row.
template <class S, bool kGeneral, class T>
__global__ void __launch_bounds__(128)
    mxv_row_block_long_kernel(const RowBlockLong* __restrict__ longs, std::int64_t n_long,
                              const T* __restrict__ partial,
                              const std::uint8_t* __restrict__ partial_has,
                              const VectorResult<T> out) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n_long) return;
  const RowBlockLong l = longs[i];
  T acc = partial[l.first];
  bool has = partial_has[l.first] != 0;
  for (std::int64_t p = 1; p < l.count; ++p) {
    acc = S::add(acc, partial[l.first + p]);
    has = has || partial_has[l.first + p] != 0;
  }
  write_result<kGeneral>(out, l.row, acc, has);
}

/// Launches both kernels. `block_threads` is 128 or 256 (NB = 4 x that: the partition must have
/// been built for the same NB); `ws` holds at least `pieces` partials of T plus `pieces` bytes.
template <class S, bool kGeneral, class T, class I, class VV>
void launch_row_block(const MxvArgs<T, I, VV>& a, int block_threads, std::int64_t blocks,
                      const RowBlockDesc* desc, std::int64_t n_long, const RowBlockLong* longs,
                      std::int64_t pieces, void* ws, std::int64_t hot, cudaStream_t stream) {
  T* partial = static_cast<T*>(ws);
  auto* partial_has = reinterpret_cast<std::uint8_t*>(partial + pieces);
  if (blocks > 0) {
    if (block_threads == 128) {
      mxv_row_block_kernel<S, kGeneral, 128>
          <<<static_cast<unsigned>(blocks), 128, 0, stream>>>(a, desc, partial, partial_has, hot);
    } else {
      mxv_row_block_kernel<S, kGeneral, 256>
          <<<static_cast<unsigned>(blocks), 256, 0, stream>>>(a, desc, partial, partial_has, hot);
    }
  }
  if (n_long > 0) {
    mxv_row_block_long_kernel<S, kGeneral>
        <<<static_cast<unsigned>((n_long + 127) / 128), 128, 0, stream>>>(longs, n_long, partial,
                                                                          partial_has, a.out);
  }
}

}  // namespace spindle::detail::cuda
