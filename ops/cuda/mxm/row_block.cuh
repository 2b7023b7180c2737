// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file row_block.cuh
/// @brief SpMM `row_block` for narrow N: mxv's CSR-Stream kernel (ops/cuda/mxv/row_block.cuh,
/// from CSR-Adaptive) with a W-column slice of B per entry instead of one value of u.
///
/// A thread block takes a run of whole rows holding at most NB = 4·BT entries (the partition
/// of mxv's row_block, built once per graph and cached). Each thread multiplies four of the
/// block's entries with their W-wide slices of B (one 32-byte sector: 8 floats or 4 doubles,
/// as float4/double2 loads when N allows) and stores the products in shared memory; then
/// groups of W·L threads reduce each row, the W columns in consecutive threads (conflict-free
/// reads) and L lanes per column walking the row in a fixed order. A row longer than BT entries
/// gets a block of its own whose threads keep their sums in registers; rows longer than NB are
/// cut into pieces whose partials a second kernel adds in order. No atomics: the result is
/// bit-identical run to run, for every semiring.
///
/// Why: on skewed graphs at N <= 8 a B-row gather is one sector, as in SpMV, and what costs is
/// keeping enough independent gathers in flight with coalesced index/value streams. The nnz
/// kernels walk an entry at a time per group of lanes; here a block issues 4·BT independent
/// gathers at once. Wider N runs in column passes of W (A is read once per pass), which is why
/// the planner keeps it to narrow widths.

#include <cstdint>

#include "ops/cuda/mxm/spmm_common.cuh"
#include "ops/cuda/mxv/mxv_args.cuh"
#include "ops/cuda/mxv/partition.hpp"

namespace spindle::detail::cuda {

/// Columns of one pass: one 32-byte sector of a B row.
template <class T>
constexpr int row_block_width() {
  return static_cast<int>(32 / sizeof(T));
}

/// The columns of one pass for width N: all of N up to a sector, rounded up to a power of two
/// (the shuffle groups of the reduction are powers of two; padded columns are idle).
inline int spmm_row_block_cols(std::int64_t n, int width) {
  int w = 1;
  while (w < width && w < n) w *= 2;
  return w;
}

/// grid.x: partition blocks; grid.y: column passes of WP columns, from pass `pass0` on. VEC divides
/// the columns a pass loads (1, 2 or 4 floats / 1 or 2 doubles), WP is the power-of-two pass width.
template <class S, class I, class V, class T, int BT, int WP, int VEC>
__global__ void __launch_bounds__(BT)
    spmm_row_block_kernel(SpmmArgs<I, V, T> a, const RowBlockDesc* __restrict__ desc,
                          T* __restrict__ partial, std::int64_t pass0) {
  constexpr int NB = 4 * BT;
  constexpr int F = WP / VEC;  // fragments per entry
  __shared__ Frag<T, VEC> prod[NB * F];
  __shared__ T red[BT / 32][WP];
  // The block's row offsets relative to k0 (at most NB rows): the reduction below runs up to
  // NB·WP/BT rounds of row groups (32 at WP = 8), and reading each round's offsets from global
  // memory made every round wait for a load (as20graph: 250 rows per block). 4 KB: within the
  // occupancy prod already sets (6 blocks per SM at WP = 8 floats).
  __shared__ int rp_s[NB + 1];
  const RowBlockDesc d = desc[blockIdx.x];
  const std::int64_t col0 = (pass0 + static_cast<std::int64_t>(blockIdx.y)) * WP;
  const int tid = static_cast<int>(threadIdx.x);

  // Product of entry k with fragment f of its B row slice (identity past N).
  auto product = [&](std::int64_t k, T(&out)[WP]) {
    const std::int64_t j = static_cast<std::int64_t>(ld_stream<1>(a.col_idx + k));
    T av = T(1);
    if constexpr (!is_pattern_v<V>) av = static_cast<T>(ld_stream<1>(a.vals + k));
    const T* brow = a.b + j * a.ldb + col0;
#pragma unroll
    for (int f = 0; f < F; ++f) {
      if (col0 + f * VEC < a.n) {
        const Frag<T, VEC> x = load_frag<T, VEC>(brow + f * VEC);
#pragma unroll
        for (int v = 0; v < VEC; ++v) out[f * VEC + v] = S::mul(av, x.v[v]);
      } else {
#pragma unroll
        for (int v = 0; v < VEC; ++v) out[f * VEC + v] = a.identity;
      }
    }
  };

  if (d.kind != kRowBlockRows) {
    // One long row (or a piece of one): every thread sums its strided share in registers, four
    // products in flight per round, then the warps are combined in a fixed order.
    T s[WP];
#pragma unroll
    for (int c = 0; c < WP; ++c) s[c] = a.identity;
    for (int base = 0; base < d.nk; base += NB) {
      T p[4][WP];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const int t = base + u * BT + tid;
        if (t < d.nk) {
          product(d.k0 + t, p[u]);
        } else {
#pragma unroll
          for (int c = 0; c < WP; ++c) p[u][c] = a.identity;
        }
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) {
#pragma unroll
        for (int c = 0; c < WP; ++c) s[c] = S::add(s[c], p[u][c]);
      }
    }
#pragma unroll
    for (int c = 0; c < WP; ++c) {
      for (int off = 16; off > 0; off >>= 1)
        s[c] = S::add(s[c], __shfl_down_sync(kFullMask, s[c], off));
    }
    if ((tid & 31) == 0) {
#pragma unroll
      for (int c = 0; c < WP; ++c) red[tid >> 5][c] = s[c];
    }
    __syncthreads();
    if (tid < WP) {
      T total = red[0][tid];
      for (int w = 1; w < BT / 32; ++w) total = S::add(total, red[w][tid]);
      const std::int64_t col = col0 + tid;
      if (col < a.n) {
        if (d.kind == kRowBlockSingle) {
          store_finished(a.epi, a.c + d.r0 * a.ldc + col, total, col);
        } else {
          partial[static_cast<std::int64_t>(d.slot) * a.n + col] = total;
        }
      }
    }
    return;
  }

  // 0. The row offsets: loads issued now, stored to shared memory after the gathers' loads.
  constexpr int kOffsetRounds = NB / BT + 1;
  I off[kOffsetRounds];
#pragma unroll
  for (int u = 0; u < kOffsetRounds; ++u) {
    const int i = u * BT + tid;
    off[u] = i <= d.rows ? __ldg(a.row_ptr + d.r0 + i) : I(0);
  }
  // 1. Products of the block's entries, four entries (4·F independent loads) per thread.
  {
    T p[4][WP];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int t = u * BT + tid;
      if (t < d.nk) product(d.k0 + t, p[u]);
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int t = u * BT + tid;
      if (t < d.nk) {
#pragma unroll
        for (int f = 0; f < F; ++f) {
          Frag<T, VEC> x;
#pragma unroll
          for (int v = 0; v < VEC; ++v) x.v[v] = p[u][f * VEC + v];
          prod[t * F + f] = x;
        }
      }
    }
  }
#pragma unroll
  for (int u = 0; u < kOffsetRounds; ++u) {
    const int i = u * BT + tid;
    if (i <= d.rows) rp_s[i] = static_cast<int>(static_cast<std::int64_t>(off[u]) - d.k0);
  }
  __syncthreads();
  const T* prod_t = reinterpret_cast<const T*>(prod);  // entry t, column c at t·WP + c
  // 2. Rows: WP consecutive threads per lane (one per column), L lanes per row, lane-strided
  //    sums and a shuffle tree over the lanes: a fixed order.
  constexpr int kMaxLanes = 32 / WP;
  const int L = (1 << d.slot) < kMaxLanes ? (1 << d.slot) : kMaxLanes;
  const int per_row = WP * L;
  const int c = tid & (WP - 1);
  const int lane = (tid / WP) & (L - 1);
  const int g = tid / per_row;
  const int groups = BT / per_row;
  const std::int64_t col = col0 + c;
  for (int base = 0; base < d.rows; base += groups) {  // uniform across the block
    const int rr = base + g;
    const std::int64_t r = d.r0 + rr;
    T s = a.identity;
    if (rr < d.rows) {
      const int b = rp_s[rr];
      const int e = rp_s[rr + 1];
      for (int t = b + lane; t < e; t += L) s = S::add(s, prod_t[t * WP + c]);
    }
    for (int off = L >> 1; off > 0; off >>= 1) {
      s = S::add(s, __shfl_down_sync(kFullMask, s, off * WP, per_row));
    }
    if (lane == 0 && rr < d.rows && col < a.n) store_finished(a.epi, a.c + r * a.ldc + col, s, col);
  }
}

/// Adds the pieces of each long row in order and writes it: one warp per long row.
template <class S, class T>
__global__ void __launch_bounds__(128)
    spmm_row_block_long_kernel(const RowBlockLong* __restrict__ longs, std::int64_t n_long,
                               const T* __restrict__ partial, std::int64_t n, T* __restrict__ c_out,
                               std::int64_t ldc, DenseEpilogue<T> epi) {
  const std::int64_t i = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if (i >= n_long) return;
  const RowBlockLong l = longs[i];
  for (std::int64_t col = lane; col < n; col += 32) {
    T acc = partial[l.first * n + col];
    for (std::int64_t p = 1; p < l.count; ++p) acc = S::add(acc, partial[(l.first + p) * n + col]);
    store_finished(epi, c_out + l.row * ldc + col, acc, col);
  }
}

template <class S, class I, class V, class T, int BT, int WP>
void launch_spmm_row_block_wp(const SpmmArgs<I, V, T>& a, const RowBlockPartition& part, T* partial,
                              cudaStream_t stream) {
  constexpr int kWide =
      WP < static_cast<int>(16 / sizeof(T)) ? WP : static_cast<int>(16 / sizeof(T));
  // VEC-wide loads need every slice start aligned: N a multiple of the vector (and B aligned).
  const int vec = [&] {
    int v = max_vec_for(a.b, a.ldb);
    while (v > 1 && (v > kWide || a.n % v != 0)) v /= 2;
    return v;
  }();
  // grid.y is at most 65535: very wide N (more than 65535 passes) takes several launches.
  const std::int64_t passes = (a.n + WP - 1) / WP;
  constexpr std::int64_t kMaxGridY = 65535;
  for (std::int64_t p0 = 0; p0 < passes; p0 += kMaxGridY) {
    const dim3 grid(static_cast<unsigned>(part.blocks),
                    static_cast<unsigned>(passes - p0 < kMaxGridY ? passes - p0 : kMaxGridY));
    if (vec >= kWide) {
      spmm_row_block_kernel<S, I, V, T, BT, WP, kWide>
          <<<grid, BT, 0, stream>>>(a, part.desc, partial, p0);
    } else if (vec >= 2 && kWide >= 2) {
      spmm_row_block_kernel<S, I, V, T, BT, WP, (kWide >= 2 ? 2 : 1)>
          <<<grid, BT, 0, stream>>>(a, part.desc, partial, p0);
    } else {
      spmm_row_block_kernel<S, I, V, T, BT, WP, 1>
          <<<grid, BT, 0, stream>>>(a, part.desc, partial, p0);
    }
  }
}

/// Launches both kernels over a partition built for BT = 256 threads (NB = 1024). `partial`
/// holds part.pieces · N values.
template <class S, class I, class V, class T>
void launch_spmm_row_block(const SpmmArgs<I, V, T>& a, const RowBlockPartition& part, T* partial,
                           cudaStream_t stream) {
  if (part.blocks > 0) {
    switch (spmm_row_block_cols(a.n, row_block_width<T>())) {
      case 1:
        launch_spmm_row_block_wp<S, I, V, T, 256, 1>(a, part, partial, stream);
        break;
      case 2:
        launch_spmm_row_block_wp<S, I, V, T, 256, 2>(a, part, partial, stream);
        break;
      case 4:
        launch_spmm_row_block_wp<S, I, V, T, 256, 4>(a, part, partial, stream);
        break;
      default:
        if constexpr (row_block_width<T>() >= 8) {
          launch_spmm_row_block_wp<S, I, V, T, 256, 8>(a, part, partial, stream);
        }
        break;
    }
  }
  if (part.n_long > 0) {
    spmm_row_block_long_kernel<S, T>
        <<<static_cast<unsigned>((part.n_long * 32 + 127) / 128), 128, 0, stream>>>(
            part.longs, part.n_long, partial, a.n, a.c, a.ldc, a.epi);
  }
}

}  // namespace spindle::detail::cuda
