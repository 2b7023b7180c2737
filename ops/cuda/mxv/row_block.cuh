// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file row_block.cuh
/// @brief mxv, one thread block per run of whole rows holding at most NB stored entries (CSR-Stream
/// of Greathouse & Daga's CSR-Adaptive; the row-block idea behind the load-balanced kernels of
/// Load-balancing SpMV Kernels on GPUs, Anzt et al.). The block first reads its NB entries as
/// one coalesced stream and multiplies each
/// with its gathered u value into shared memory: every thread has NB / BT independent column,
/// value and u loads in flight, whatever the row lengths. Then the block's rows are reduced out
/// of shared memory by groups of 1..32 lanes (chosen per block from its row count and longest
/// row), in a fixed order.
///
/// Rows longer than NB / 4 never share a block: a row of up to 8 NB entries gets a block of its
/// own (strided loads straight into registers, block-wide reduction), a longer one is cut into
/// pieces of 8 NB entries whose partial results a second kernel adds left to right. No float
/// atomics anywhere: results are bit-identical run to run.
///
/// On small, launch-bound graphs the simple path runs the kernel's Small form (RowBlockForm): a
/// block of many short rows reduces them with a segmented scan (row_block_scan_rows) instead of
/// rounds of lane groups (as20graph, 26 k entries, longest row 1459: 6.6-6.8 us instead of 8.2
/// with 1024 entries per block, H200; docs/design/mxv.md).
///
/// Gathers of u go through HotColdGather: when the columns are relabelled by in-degree
/// (partition.hpp), ids below `hot` are the most gathered entries and are read through L1, the
/// rest bypass L1 (L1::no_allocate) and are kept last in L2, so the cold gathers do not evict the
/// hot lines from L1. Without relabelling `hot` is past every column and all reads are plain.
/// In an exploration harness (H100, R-MAT scale 22, fp32)
/// the prototype ran 0.453 ms with hot = 32768 columns against 0.510 ms with every gather through
/// L1 (docs/design/mxv.md).

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

/// The forms of the block kernel (launch_row_block picks one per call):
///   Streaming: the streams as above (mxv_args.cuh's policy 1): a matrix that does not fit in L2;
///   L2Resident: plain loads for the streams too, for a matrix that fits in L2 with room to spare.
///     Leaving it first in L2 then only lets whatever else ran before evict it: on R-MAT 18 (31.5
///     MB of indices and values, H200) the streaming form took 30.3 us right after another
///     row_block call but 33.6 us after other kernels had filled L2, the plain loads 30.7 us either
///     way; R-MAT 19 (64 MB) lost 13% with plain loads (docs/design/mxv.md).
///   Small: L2Resident plus the segmented scan for blocks of many short rows (kSmall below), for
///     launch-bound graphs, simple path only.
enum class RowBlockForm { Streaming, L2Resident, Small };

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

/// A run of a segmented sum: its value and whether a row starts inside it.
template <class T>
struct SegRun {
  T v;
  int head;
};

/// left then right: right's value alone when a row starts inside right, else left + right.
template <class S, class T>
__device__ __forceinline__ SegRun<T> seg_combine(const SegRun<T>& l, const SegRun<T>& r) {
  return r.head ? r : SegRun<T>{S::add(l.v, r.v), l.head};
}

/// The rows of a block (d.rows of them, whole, products in prod[0 .. d.nk)) reduced by a
/// segmented scan instead of lane groups (simple path: every entry present). Thread t sums its
/// four consecutive entries [4t, 4t + 4) left to right, the block scans those runs (warp
/// shuffles, then the warps' totals in order), and each row reads the scanned value at its last
/// entry. The critical path is 4 + 5 + BT / 32 + 4 steps whatever the rows look like, where lane
/// groups take ceil(rows / groups) rounds, each as long as the round's longest row: on small
/// launch-bound graphs with a few hundred short rows and some of 100 entries in one block, that
/// was the kernel's critical path. `heads` holds NB bits, zeroed before the products' barrier;
/// rb / re are the block-relative offsets of rows tid, tid + BT, tid + 2 BT and tid + 3 BT
/// (loaded before the products, so their latency is hidden; a block holds at most NB = 4 BT
/// rows). Deterministic: a fixed summation tree.
template <class S, int BT, class T, class I, class VV>
__device__ __forceinline__ void row_block_scan_rows(const MxvArgs<T, I, VV>& a,
                                                    const RowBlockDesc& d, T* prod,
                                                    std::uint32_t* heads, T* warp_v,
                                                    std::uint8_t* warp_head, const int (&rb)[4],
                                                    const int (&re)[4]) {
  const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if (rb[j] < re[j]) atomicOr(heads + (rb[j] >> 5), 1u << (rb[j] & 31));
  }
  __syncthreads();
  // This thread's run over its four entries.
  const int k0 = 4 * tid;
  const int my_heads = static_cast<int>((heads[k0 >> 5] >> (k0 & 31)) & 0xFu);
  T v[4];
  SegRun<T> run{a.identity, 0};
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    // Folded from the identity like the lane groups' sums (a NaN term at a row's head is then
    // ignored by min / max as on the CPU backend, instead of entering the scan as the row's value).
    v[j] = k0 + j < d.nk ? S::add(a.identity, prod[k0 + j]) : a.identity;
    run = seg_combine<S>(run, SegRun<T>{v[j], (my_heads >> j) & 1});
  }
  // Inclusive scan of the runs within the warp, then its exclusive form.
  const int lane = tid & 31;
  const int warp = tid >> 5;
  SegRun<T> inc = run;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const SegRun<T> l{__shfl_up_sync(0xffffffffu, inc.v, off),
                      __shfl_up_sync(0xffffffffu, inc.head, off)};
    if (lane >= off) inc = seg_combine<S>(l, inc);
  }
  SegRun<T> carry{__shfl_up_sync(0xffffffffu, inc.v, 1), __shfl_up_sync(0xffffffffu, inc.head, 1)};
  if (lane == 0) carry = SegRun<T>{a.identity, 0};
  if (lane == 31) {
    warp_v[warp] = inc.v;
    warp_head[warp] = static_cast<std::uint8_t>(inc.head);
  }
  __syncthreads();
  // The earlier warps' totals, in order, in front of the warp's own carry.
  SegRun<T> before{a.identity, 0};
  for (int w = 0; w < warp; ++w)
    before = seg_combine<S>(before, SegRun<T>{warp_v[w], warp_head[w]});
  carry = seg_combine<S>(before, carry);
  // Scanned values of this thread's entries, written over its own products.
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    carry = seg_combine<S>(carry, SegRun<T>{v[j], (my_heads >> j) & 1});
    if (k0 + j < d.nk) prod[k0 + j] = carry.v;
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int rr = tid + j * BT;
    if (rr < d.rows) {
      // An empty row writes the identity as absent, as row_block_reduce_rows does.
      write_result<false>(a.out, d.r0 + rr, rb[j] < re[j] ? prod[re[j] - 1] : a.identity,
                          rb[j] < re[j]);
    }
  }
}

/// The Small form is for small, launch-bound graphs (launch_row_block), where one block's critical
/// path is the kernel's time: blocks of rows whose lane groups would need several rounds reduce
/// them with the segmented scan instead. Its first version took 40-44 registers against the
/// plain forms' 28 (ptxas, float / int32); compiled into one kernel with a run-time switch, that
/// lowered the plain form's occupancy and cost R-MAT 19 / 20 (block form, relabelled) 15-20% on
/// the H200, hence a separate instantiation.
/// Eight products in flight per thread for long rows (instead of four) were tried in this form
/// and changed nothing measurable on as20graph, so both forms keep four.
template <class S, bool kGeneral, int BT, RowBlockForm kForm, class T, class I, class VV>
__global__ void __launch_bounds__(BT)
    mxv_row_block_kernel(const MxvArgs<T, I, VV> a, const RowBlockDesc* __restrict__ desc,
                         T* __restrict__ partial, std::uint8_t* __restrict__ partial_has,
                         std::int64_t hot) {
  constexpr int NB = 4 * BT;
  constexpr bool kSmall = kForm == RowBlockForm::Small;
  constexpr int kHints = kForm == RowBlockForm::Streaming ? kRowBlockStreamHints : 0;
  __shared__ T prod[NB];
  __shared__ std::uint8_t pres[kGeneral ? NB : 1];
  __shared__ T red[BT / 32];
  __shared__ std::uint8_t red_has[BT / 32];
  __shared__ std::uint32_t heads[kSmall ? NB / 32 : 1];
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
          v[j] = entry_product<S, kGeneral, kHints>(a, d.k0 + t, p[j], gather);
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
  // Small form: the segmented scan replaces lane groups that would need several rounds
  // (block-uniform); its row offsets are loaded before the products, hiding their latency.
  const bool scan = kSmall && d.rows > (BT >> d.slot);
  int rb[4] = {0, 0, 0, 0};
  int re[4] = {0, 0, 0, 0};
  if constexpr (kSmall) {
    if (scan) {
      for (int w = static_cast<int>(threadIdx.x); w < NB / 32; w += BT) heads[w] = 0;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int rr = static_cast<int>(threadIdx.x) + j * BT;
        if (rr < d.rows) {
          const std::int64_t r = d.r0 + rr;
          rb[j] = static_cast<int>(static_cast<std::int64_t>(__ldg(a.A.row_ptr + r)) - d.k0);
          re[j] = static_cast<int>(static_cast<std::int64_t>(__ldg(a.A.row_ptr + r + 1)) - d.k0);
        }
      }
    }
  }
  // 1. Products of the block's entries, four independent loads per thread.
#pragma unroll
  for (int it = 0; it < NB / BT; ++it) {
    const int t = it * BT + static_cast<int>(threadIdx.x);
    if (t < d.nk) {
      bool p = false;
      const T v = entry_product<S, kGeneral, kHints>(a, d.k0 + t, p, gather);
      prod[t] = p ? v : a.identity;
      if constexpr (kGeneral) pres[t] = p ? 1 : 0;
    }
  }
  __syncthreads();
  // 2. Rows of up to NB / 4 entries, reduced out of shared memory.
  if constexpr (kSmall) {
    static_assert(!kGeneral, "the small form is the simple path's");
    if (scan) {
      row_block_scan_rows<S, BT>(a, d, prod, heads, red, red_has, rb, re);
      return;
    }
  }
  row_block_reduce_rows<S, kGeneral>(a, d, prod, pres, BT, static_cast<int>(threadIdx.x));
}

/// Threads per block of mxv_row_block_long_kernel (a warp per long row).
constexpr int kRowBlockLongThreads = 128;

/// Adds the pieces of each long row and writes the row: a warp per row, lane l summing pieces
/// l, l + 32, ... in order, then a fixed shuffle tree (deterministic run to run). A thread per
/// row, walking its pieces alone, made the longest row a serial tail: a power-law row of 1.95 M
/// entries is 7,626 pieces of the warp form's 256.
template <class S, bool kGeneral, class T>
__global__ void __launch_bounds__(kRowBlockLongThreads)
    mxv_row_block_long_kernel(const RowBlockLong* __restrict__ longs, std::int64_t n_long,
                              const T* __restrict__ partial,
                              const std::uint8_t* __restrict__ partial_has, const T identity,
                              const VectorResult<T> out) {
  const std::int64_t w = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x & 31);
  if (w >= n_long) return;  // the whole warp: w is the same for its 32 lanes
  const RowBlockLong l = longs[w];
  T acc = identity;
  bool has = false;
  for (std::int64_t p = lane; p < l.count; p += 32) {
    acc = S::add(acc, partial[l.first + p]);
    has = has || partial_has[l.first + p] != 0;
  }
  for (int off = 16; off > 0; off >>= 1) acc = S::add(acc, __shfl_xor_sync(0xffffffffu, acc, off));
  has = __any_sync(0xffffffffu, has);
  if (lane == 0) write_result<kGeneral>(out, l.row, acc, has);
}

/// Launches mxv_row_block_long_kernel over `n_long` long rows.
template <class S, bool kGeneral, class T, class I, class VV>
void launch_row_block_long(const MxvArgs<T, I, VV>& a, std::int64_t n_long,
                           const RowBlockLong* longs, const T* partial,
                           const std::uint8_t* partial_has, cudaStream_t stream) {
  const std::int64_t warps_per_block = kRowBlockLongThreads / 32;
  mxv_row_block_long_kernel<S, kGeneral>
      <<<static_cast<unsigned>((n_long + warps_per_block - 1) / warps_per_block),
         kRowBlockLongThreads, 0, stream>>>(longs, n_long, partial, partial_has, a.identity, a.out);
}

/// The rows kernel for BT threads in `form` (the general path has no Small form: L2Resident).
template <class S, bool kGeneral, int BT, class T, class I, class VV>
void launch_row_block_rows(const MxvArgs<T, I, VV>& a, RowBlockForm form, std::int64_t blocks,
                           const RowBlockDesc* desc, T* partial, std::uint8_t* partial_has,
                           std::int64_t hot, cudaStream_t stream) {
  const auto grid = static_cast<unsigned>(blocks);
  if constexpr (!kGeneral) {
    if (form == RowBlockForm::Small) {
      mxv_row_block_kernel<S, false, BT, RowBlockForm::Small>
          <<<grid, BT, 0, stream>>>(a, desc, partial, partial_has, hot);
      return;
    }
  }
  if (form == RowBlockForm::Streaming) {
    mxv_row_block_kernel<S, kGeneral, BT, RowBlockForm::Streaming>
        <<<grid, BT, 0, stream>>>(a, desc, partial, partial_has, hot);
  } else {
    mxv_row_block_kernel<S, kGeneral, BT, RowBlockForm::L2Resident>
        <<<grid, BT, 0, stream>>>(a, desc, partial, partial_has, hot);
  }
}

/// Launches both kernels. `block_threads` is 128 or 256 (NB = 4 x that: the partition must have
/// been built for the same NB); `ws` holds at least `pieces` partials of T plus `pieces` bytes.
/// `form`: RowBlockForm above (mxv_entry.cuh picks it from the graph's size).
template <class S, bool kGeneral, class T, class I, class VV>
void launch_row_block(const MxvArgs<T, I, VV>& a, int block_threads, std::int64_t blocks,
                      const RowBlockDesc* desc, std::int64_t n_long, const RowBlockLong* longs,
                      std::int64_t pieces, void* ws, std::int64_t hot, RowBlockForm form,
                      cudaStream_t stream) {
  T* partial = static_cast<T*>(ws);
  auto* partial_has = reinterpret_cast<std::uint8_t*>(partial + pieces);
  if (blocks > 0) {
    if (block_threads == 128) {
      launch_row_block_rows<S, kGeneral, 128>(a, form, blocks, desc, partial, partial_has, hot,
                                              stream);
    } else {
      launch_row_block_rows<S, kGeneral, 256>(a, form, blocks, desc, partial, partial_has, hot,
                                              stream);
    }
  }
  if (n_long > 0) {
    launch_row_block_long<S, kGeneral>(a, n_long, longs, partial, partial_has, stream);
  }
}

}  // namespace spindle::detail::cuda
