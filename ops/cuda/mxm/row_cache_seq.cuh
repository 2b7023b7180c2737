// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file row_cache_seq.cuh
/// @brief SpMM `row_cache_seq` (Adaptive Workload-Balancing and Parallel-Reduction, Huang et al.,
/// §2.1.3: coalesced sparse-row caching, CSC; GE-SpMM).
///
/// A group of G lanes owns one row of A and G·VEC consecutive output columns (VEC per lane).
/// It loads G nonzeros of its row (column ids and values) with one coalesced access into shared
/// memory, then every lane walks the cached entries sequentially, gathering its VEC columns of
/// the B rows with vector loads (kUnroll gathers in flight) and accumulating in registers. G = 32
/// is the paper's warp per row; for narrow N the planner takes G = ceil(N/VEC) so a warp serves
/// 32/G rows instead of leaving lanes without columns. Results are summed in column order.
/// The segment walk is shared with nnz_balanced_seq (accumulate_segment below).
///
/// Split form (row_pieces.hpp): rows longer than P entries are cut into pieces of at most P,
/// each walked by its own group into a partial result, and a second kernel adds each row's
/// partials in piece order (no atomics: the same result on every run). It keeps the row kernel's
/// one pass over A at wide N on small graphs whose longest row would otherwise decide the time.

#include <cstdint>
#include <limits>

#include "ops/cuda/mxm/row_pieces.hpp"
#include "ops/cuda/mxm/spmm_common.cuh"

namespace spindle::detail::cuda {

constexpr int kSpmmBlock = 256;  // threads per block of the sequential SpMM kernels
constexpr int kSpmmUnroll = 4;   // B-row gathers in flight per lane

/// Shared-memory cache of the sequential kernels: one slot per thread, so a group of G lanes
/// owns the G slots at its own thread indices.
template <class I, class V, class T>
struct SeqCache {
  I col[kSpmmBlock];
  T val[is_pattern_v<V> ? 1 : kSpmmBlock];
};

/// acc ⊕= A(row, k) ⊗ B(k, col..col+VEC) for k in [p, q): entries cached G at a time by the
/// group (gmask: its lanes; slot0: its first thread index; qlane: lane within the group), U
/// B-row gathers in flight per lane. Lanes whose columns lie beyond N (col_ok false) still help
/// to cache. With estride > 1 the lanes of one column set split the cached entries: this lane
/// takes entries efirst, efirst + estride, ... of each batch (the caller adds the estride
/// partial sums); the default walks every entry.
template <class S, class I, class V, class T, int VEC, int U = kSpmmUnroll>
__device__ __forceinline__ void accumulate_segment(const SpmmArgs<I, V, T>& a,
                                                   SeqCache<I, V, T>& cache, std::int64_t p,
                                                   std::int64_t q, int G, int qlane, int slot0,
                                                   unsigned gmask, std::int64_t col, bool col_ok,
                                                   T (&acc)[VEC], int estride = 1, int efirst = 0) {
  for (std::int64_t base = p; base < q; base += G) {
    const std::int64_t k = base + qlane;
    if (k < q) {
      cache.col[slot0 + qlane] = __ldg(a.col_idx + k);
      if constexpr (!is_pattern_v<V>) cache.val[slot0 + qlane] = a_value<T, V>(a.vals, k);
    }
    __syncwarp(gmask);
    const int cnt = static_cast<int>(q - base < G ? q - base : G);
    for (int t0 = efirst; t0 < cnt; t0 += U * estride) {
      Frag<T, VEC> bf[U];
      T av[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int t = t0 + u * estride;
        if (t < cnt) {
          const std::int64_t j = static_cast<std::int64_t>(cache.col[slot0 + t]);
          if constexpr (is_pattern_v<V>) {
            av[u] = T(1);
          } else {
            av[u] = cache.val[slot0 + t];
          }
          if (col_ok) bf[u] = load_frag<T, VEC>(a.b + j * a.ldb + col);
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (t0 + u * estride < cnt && col_ok) {
#pragma unroll
          for (int v = 0; v < VEC; ++v) acc[v] = S::add(acc[v], S::mul(av[u], bf[u].v[v]));
        }
      }
    }
    __syncwarp(gmask);  // the next batch overwrites the slots
  }
}

/// Lane mask of the group of G lanes (power of two) that `lane` belongs to.
__device__ __forceinline__ unsigned group_mask(int lane, int G) {
  if (G >= 32) return kFullMask;
  return ((1u << G) - 1u) << (lane & ~(G - 1));
}

/// Writes VEC finished values of one output row through store_frag (c aligned to VEC values).
template <class T, int VEC>
__device__ __forceinline__ void store_row_frag(const DenseEpilogue<T>& e, T* c, std::int64_t col,
                                               const T (&acc)[VEC]) {
  Frag<T, VEC> out;
  if (e.accum.enabled) {
    const Frag<T, VEC> old = *reinterpret_cast<const Frag<T, VEC>*>(c);
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      out.v[v] = apply_binary(e.accum.op, old.v[v], finish_value(e, acc[v], col + v));
    }
  } else {
#pragma unroll
    for (int v = 0; v < VEC; ++v) out.v[v] = finish_value(e, acc[v], col + v);
  }
  store_frag<T, VEC>(c, out);
}

/// Writes VEC unfinished partials (no epilogue) through store_frag.
template <class T, int VEC>
__device__ __forceinline__ void store_partial_frag(T* p, const T (&acc)[VEC]) {
  Frag<T, VEC> out;
#pragma unroll
  for (int v = 0; v < VEC; ++v) out.v[v] = acc[v];
  store_frag<T, VEC>(p, out);
}

/// store_row_frag with the epilogue's kind known at compile time (EpiKind): Plain stores the
/// sums, Bias and BiasRelu add bias[col + v] (and apply Relu) as finish_value does, Generic is
/// store_row_frag.
template <EpiKind K, class T, int VEC>
__device__ __forceinline__ void store_row_frag_as(const DenseEpilogue<T>& e, T* c, std::int64_t col,
                                                  const T (&acc)[VEC]) {
  if constexpr (K == EpiKind::Generic) {
    store_row_frag<T, VEC>(e, c, col, acc);
  } else if constexpr (K == EpiKind::Plain) {
    store_partial_frag<T, VEC>(c, acc);
  } else {
    Frag<T, VEC> out;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      out.v[v] = acc[v] + __ldg(e.bias + col + v);
      if constexpr (K == EpiKind::BiasRelu) {
        out.v[v] = apply_unary(UnaryOp::Relu, out.v[v], T(0));
      }
    }
    store_frag<T, VEC>(c, out);
  }
}

/// row_cache_seq: a group of R = G·E lanes per row (E = 1 << e_log2), grid.x: (npieces +
/// rows)·R threads in blocks of 256, grid.y: column tiles of G·VEC (VEC divides N). The G lanes
/// of one entry set own the tile's columns; with E > 1 the E entry sets split the cached entries
/// (set e takes every E-th) and add their sums with a butterfly over the group, a fixed order.
/// E > 1 serves graphs with too few rows to fill the GPU at G lanes per row. Whole rows: no
/// pieces, max_piece past every row. Split form: groups [0, npieces) walk the long rows' pieces
/// into `partial` (slot·N, no epilogue); group npieces + r walks row r whole when it has at most
/// `max_piece` entries and leaves it to its pieces otherwise. Pieces come first in the grid so
/// the longest work starts first.
template <class S, class I, class V, class T, int VEC>
__global__ void __launch_bounds__(kSpmmBlock)
    spmm_row_cache_seq_kernel(SpmmArgs<I, V, T> a, const RowPiece* __restrict__ pieces,
                              std::int64_t npieces, std::int64_t max_piece, T* __restrict__ partial,
                              int g_log2, int e_log2) {
  __shared__ SeqCache<I, V, T> cache;
  const int G = 1 << g_log2;
  const int r_log2 = g_log2 + e_log2;
  const int R = 1 << r_log2;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int rlane = lane & (R - 1);
  const int qlane = rlane & (G - 1);
  const int eset = rlane >> g_log2;
  const int slot0 = static_cast<int>(threadIdx.x) & ~(R - 1);
  const unsigned gmask = group_mask(lane, R);
  const std::int64_t item =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> r_log2;
  std::int64_t row, p, q;
  std::int64_t slot = -1;
  // Whole groups leave together below; no warp-wide sync follows.
  if (item < npieces) {
    const RowPiece pc = pieces[item];
    row = pc.row;
    p = pc.k0;
    q = pc.k1;
    slot = pc.slot;
  } else {
    row = item - npieces;
    if (row >= a.rows) return;
    p = static_cast<std::int64_t>(a.row_ptr[row]);
    q = static_cast<std::int64_t>(a.row_ptr[row + 1]);
    if (q - p > max_piece) return;  // its pieces have it
  }
  const std::int64_t col =
      static_cast<std::int64_t>(blockIdx.y) * (static_cast<std::int64_t>(G) * VEC) + qlane * VEC;
  const bool col_ok = col < a.n;
  T acc[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) acc[v] = a.identity;
  accumulate_segment<S, I, V, T, VEC>(a, cache, p, q, R, rlane, slot0, gmask, col, col_ok, acc,
                                      1 << e_log2, eset);
  // Every lane of the group is here (lanes past N included): add the E entry sets' sums.
  for (int off = G; off < R; off <<= 1) {
#pragma unroll
    for (int v = 0; v < VEC; ++v) acc[v] = S::add(acc[v], __shfl_xor_sync(gmask, acc[v], off));
  }
  if (!col_ok || eset != 0) return;
  if (slot >= 0) {
    store_partial_frag<T, VEC>(partial + slot * a.n + col, acc);
  } else {
    store_row_frag<T, VEC>(a.epi, a.c + row * a.ldc + col, col, acc);
  }
}

/// The split form's second kernel: a block per (long row, slab of 32·VEC columns). Warp w adds
/// pieces w, w + 8, ... in order, then warp 0 adds the 8 warp sums in warp order and writes the
/// row through the epilogue: a fixed order, so the result is the same on every run. (One warp
/// per row walking all its pieces made the longest row's fix-up the critical path: as20graph at
/// N = 256, 0.0217 against 0.0198 ms.)
template <class S, class T, int VEC>
__global__ void __launch_bounds__(kSpmmBlock)
    spmm_row_split_fixup_kernel(const RowBlockLong* __restrict__ longs,
                                const T* __restrict__ partial, std::int64_t n, std::int64_t slabs,
                                T* __restrict__ c, std::int64_t ldc, DenseEpilogue<T> epi,
                                T identity) {
  constexpr int kWarps = kSpmmBlock / kWarp;
  __shared__ Frag<T, VEC> red[kWarps][kWarp];
  const RowBlockLong l = longs[blockIdx.x / slabs];
  const int warp = static_cast<int>(threadIdx.x) / kWarp;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const std::int64_t col =
      static_cast<std::int64_t>(blockIdx.x % slabs) * (kWarp * VEC) + lane * VEC;
  const bool ok = col < n;
  Frag<T, VEC> acc;
#pragma unroll
  for (int v = 0; v < VEC; ++v) acc.v[v] = identity;
  if (ok) {
    const T* src = partial + l.first * n + col;
#pragma unroll 4
    for (std::int64_t p = warp; p < l.count; p += kWarps) {
      const Frag<T, VEC> f = load_frag<T, VEC>(src + p * n);
#pragma unroll
      for (int v = 0; v < VEC; ++v) acc.v[v] = S::add(acc.v[v], f.v[v]);
    }
  }
  red[warp][lane] = acc;
  __syncthreads();
  if (warp != 0 || !ok) return;
  T total[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) total[v] = red[0][lane].v[v];
  for (int w = 1; w < kWarps; ++w) {
#pragma unroll
    for (int v = 0; v < VEC; ++v) total[v] = S::add(total[v], red[w][lane].v[v]);
  }
  store_row_frag<T, VEC>(epi, c + l.row * ldc + col, col, total);
}

/// Lanes per row for width N with VEC columns per lane: ceil(min(N, tile) / VEC) rounded up to
/// a power of two, at most 32. `tile` (columns per pass, 0 = all of N up to 32·VEC) trades
/// re-reading A per column tile against a smaller working set of B rows per pass, which keeps
/// more of B's hot rows in L2 on graphs with poor locality.
inline int seq_group_lanes(std::int64_t n, int vec, std::int64_t tile = 0) {
  const std::int64_t w = tile > 0 && tile < n ? tile : n;
  return pow2_lanes((w + vec - 1) / vec);
}

/// The vector width used by the sequential kernels: the widest that divides N and keeps B and C
/// rows aligned.
template <class I, class V, class T>
int seq_vec_for(const SpmmArgs<I, V, T>& a) {
  const int vb = max_vec_for(a.b, a.ldb);
  const int vc = max_vec_for(static_cast<const T*>(a.c), a.ldc);
  int v = vb < vc ? vb : vc;
  while (v > 1 && a.n % v != 0) v /= 2;
  return v;
}

/// The split form's device view: the cached pieces (row_pieces.hpp) and a partial buffer of
/// `slots`·N values. The default is whole rows.
template <class T>
struct RowSplitArgs {
  const RowPiece* pieces = nullptr;
  std::int64_t npieces = 0;
  std::int64_t max_piece = std::numeric_limits<std::int64_t>::max();
  const RowBlockLong* longs = nullptr;
  std::int64_t nlong = 0;
  T* partial = nullptr;
};

/// Entry sets per row for `lanes` lanes per row (0: one set) and G column lanes: lanes / G
/// rounded down to a power of two, at least 1 (G·E <= 32).
inline int seq_entry_sets(int lanes, int G) {
  int e = 1;
  while (G * e * 2 <= 32 && G * e * 2 <= lanes) e *= 2;
  return e;
}

template <class S, class I, class V, class T, int VEC>
void launch_row_cache_seq_vec(const SpmmArgs<I, V, T>& a, std::int64_t tile, int lanes,
                              const RowSplitArgs<T>& w, cudaStream_t stream) {
  const int G = seq_group_lanes(a.n, VEC, tile);
  const int E = seq_entry_sets(lanes, G);
  const std::int64_t width = static_cast<std::int64_t>(G) * VEC;
  const std::int64_t items = w.npieces + a.rows;
  const std::int64_t threads = items * G * E;
  const dim3 grid(static_cast<unsigned>((threads + kSpmmBlock - 1) / kSpmmBlock),
                  static_cast<unsigned>((a.n + width - 1) / width));
  spmm_row_cache_seq_kernel<S, I, V, T, VEC><<<grid, kSpmmBlock, 0, stream>>>(
      a, w.pieces, w.npieces, w.max_piece, w.partial, log2_int(G), log2_int(E));
  if (w.nlong > 0) {
    const std::int64_t slabs = (a.n + kWarp * VEC - 1) / (kWarp * VEC);
    spmm_row_split_fixup_kernel<S, T, VEC>
        <<<static_cast<unsigned>(w.nlong * slabs), kSpmmBlock, 0, stream>>>(
            w.longs, w.partial, a.n, slabs, a.c, a.ldc, a.epi, a.identity);
  }
}

/// Launches row_cache_seq with the widest vector width the shapes allow (16-byte loads when
/// N is a multiple of 4 floats / 2 doubles, scalar otherwise); `tile` as in seq_group_lanes;
/// `lanes`: lanes per row (0: the columns' G; more split each row's entries, seq_entry_sets);
/// `w`: the split form's pieces (default: whole rows).
template <class S, class I, class V, class T>
void launch_spmm_row_cache_seq(const SpmmArgs<I, V, T>& a, std::int64_t tile, int lanes,
                               cudaStream_t stream, const RowSplitArgs<T>& w = {}) {
  constexpr int kWide = static_cast<int>(16 / sizeof(T));
  if (seq_vec_for(a) == kWide) {
    launch_row_cache_seq_vec<S, I, V, T, kWide>(a, tile, lanes, w, stream);
  } else {
    launch_row_cache_seq_vec<S, I, V, T, 1>(a, tile, lanes, w, stream);
  }
}

}  // namespace spindle::detail::cuda
