// SPDX-License-Identifier: Apache-2.0
// Exploration harness for SpMM launch parameters and group-form variants (not built by CMake,
// not a benchmark of record: claims come from `spindle bench mxm`). For each graph and width N
// it times cuSPARSE SpMM (best of its algorithms, same process, also the reference) and then
// each variant given with --variants, checked against cuSPARSE (relative L2 error):
//   nbg:CHUNK:TILE   the library's nnz_balanced_seq, group form, CHUNK entries per chunk, TILE
//                    columns per pass (0: all)
//   nbw:CHUNK:TILE   the same, warp form
//   nbh:BUDGET       nbg:0:0 with the L2 hints forced on for hot sets of BUDGET bytes
//                    (hot_columns.hpp); 2^40 makes every column hot: the hint code, no hint
//   rcs:TILE         row_cache_seq
//   rb:ROWS          row_block, rows longer than ROWS entries in blocks of their own (0: rule)
//   xg:U:VEC:CHUNK   a copy of the group form (plus_times, no epilogue) with U gathers in flight
//                    per lane, VEC columns per lane (G = N / VEC lanes, at most 32) and vector
//                    C stores
//   xa:CHUNK / xe:CHUNK  xg:8:2:CHUNK with the library's segment walk / the library's stores
//   xl:MINB:VEC:CHUNK  xg with U = 8 (VEC = 2) or 4 (VEC = 4) and __launch_bounds__(256, MINB)
//   xr:U:VEC:PLAIN   row_cache_seq with U gathers in flight and VEC columns per lane (the
//                    library's segment walk), stores plain (1) or through the epilogue (0)
//   xh:MODE:VEC:CHUNK  xg (U = 8 at VEC = 2, 4 at VEC = 4) with L2 hints: MODE 3 loads the
//                    column / value streams around L1 and evict-first in L2 and stores C with
//                    st.global.cs; MODE 4 only the stores
//   xw:U:VEC:CHUNK:PF  xg with the whole chunk's column ids and values staged in shared memory
//                    once per chunk (vector loads); PF = 1 also loads row_ptr a row ahead
//   xo:MINB:CHUNK    xw:8:2:CHUNK:0 compiled for MINB blocks per SM (3, 5 or 6)
//   xy:U:VEC:CHUNK   an entry walk over xw's staged chunk: U gathers in flight regardless of row
//                    ends, rows stored as their last entry is added
//   xz:VEC:CHUNK:HMODE:HOT  xy (U = 8 at VEC 2, 4 at VEC 4) with B gathers under L2 eviction
//                    policies by column: the HOT columns of largest in-degree evict_last and the
//                    rest evict_first (HMODE 0), hot evict_last only (1), cold evict_first only (2)
//   xs:P:U:B         row_cache_seq over rows of at most P entries and pieces of at most P
//                    entries of longer rows (partials added in order by a second kernel: a
//                    warp per row and column slab, or with B = 1 a block of 8 warps)
// ops/cuda/mxm/NOTES.md has what it found.
//
// Build (from the repository root, after the CUDA build in build/wt):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/wt/generated/include -Xcompiler -fopenmp
//     apps/bench/experiments/spmm_params.cu build/wt/libspindle.a -lcusparse -lcublas -o
//     spmm_params
// Run: ./spmm_params --graphs rmat20,as20graph.txt --n 32,64 --variants nbg:256:0,xg:8:1:256
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "apps/bench/mxm_bench.cuh"
#include "ops/cuda/mxm/spmm_run.cuh"
#include "ops/cuda/mxv/mxv_args.cuh"  // ld_hinted

using namespace spindle;
using namespace spindle::bench;
using namespace spindle::detail::cuda;
using S = semiring::plus_times<float>;
using Args = SpmmArgs<std::int32_t, float, float>;
using W = BalancedArgs<std::int32_t, float>;

namespace xp {

template <int VEC>
struct F {
  float v[VEC];
};

template <int VEC>
__device__ __forceinline__ F<VEC> ldv(const float* p) {
  F<VEC> f;
  if constexpr (VEC == 4) {
    const float4 x = __ldg(reinterpret_cast<const float4*>(p));
    f.v[0] = x.x, f.v[1] = x.y, f.v[2] = x.z, f.v[3] = x.w;
  } else if constexpr (VEC == 2) {
    const float2 x = __ldg(reinterpret_cast<const float2*>(p));
    f.v[0] = x.x, f.v[1] = x.y;
  } else {
    f.v[0] = __ldg(p);
  }
  return f;
}

template <int VEC>
__device__ __forceinline__ void stv(float* p, const F<VEC>& f) {
  if constexpr (VEC == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(f.v[0], f.v[1], f.v[2], f.v[3]);
  } else if constexpr (VEC == 2) {
    *reinterpret_cast<float2*>(p) = make_float2(f.v[0], f.v[1]);
  } else {
    *p = f.v[0];
  }
}

template <int VEC>
__device__ __forceinline__ void stcs(float* p, const F<VEC>& f) {
  if constexpr (VEC == 4) {
    __stcs(reinterpret_cast<float4*>(p), make_float4(f.v[0], f.v[1], f.v[2], f.v[3]));
  } else if constexpr (VEC == 2) {
    __stcs(reinterpret_cast<float2*>(p), make_float2(f.v[0], f.v[1]));
  } else {
    __stcs(p, f.v[0]);
  }
}

/// The group form with U gathers in flight per lane and VEC columns per lane (G = N / VEC lanes
/// per chunk, at most 32): VEC = 1 at N = 32 keeps a whole warp on one chunk (converged).
template <int U, int VEC, int MODE, int MINB = 1>
__global__ void __launch_bounds__(256, MINB) group(Args a, W w, int g_log2) {
  __shared__ int ccol[256];
  __shared__ float cval[256];
  __shared__ SeqCache<int, float, float> cache;
  const int G = 1 << g_log2;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int qlane = lane & (G - 1);
  const int slot0 = static_cast<int>(threadIdx.x) & ~(G - 1);
  const unsigned gmask = group_mask(lane, G);
  const std::int64_t c =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> g_log2;
  if (c >= w.nchunks) return;
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.y) * (G * VEC) + qlane * VEC;
  const bool col_ok = col < a.n;
  const std::int64_t s = c * w.chunk;
  const std::int64_t e = s + w.chunk < w.nnz ? s + w.chunk : w.nnz;
  const std::int64_t r0 = w.chunk_row[c];
  const std::int64_t r1 = w.chunk_row[c + 1];
  std::int64_t start = a.row_ptr[r0];
  auto segment = [&](std::int64_t p, std::int64_t q, F<VEC>& acc) {
    if constexpr (MODE == 1) {  // the library's segment walk
      accumulate_segment<S, int, float, float, VEC, U>(a, cache, p, q, G, qlane, slot0, gmask, col,
                                                       col_ok, acc.v);
      return;
    }
    for (std::int64_t base = p; base < q; base += G) {
      const std::int64_t k = base + qlane;
      if (k < q) {
        if constexpr (MODE == 3) {  // streams: around L1, first out of L2
          ccol[slot0 + qlane] = ld_hinted<false, false>(a.col_idx + k);
          cval[slot0 + qlane] = ld_hinted<false, false>(a.vals + k);
        } else {
          ccol[slot0 + qlane] = __ldg(a.col_idx + k);
          cval[slot0 + qlane] = __ldg(a.vals + k);
        }
      }
      __syncwarp(gmask);
      const int cnt = static_cast<int>(q - base < G ? q - base : G);
      for (int t0 = 0; t0 < cnt; t0 += U) {
        F<VEC> bf[U];
        float av[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int t = t0 + u;
          av[u] = 0.f;
          if (t < cnt) {
            av[u] = cval[slot0 + t];
            if (col_ok)
              bf[u] = ldv<VEC>(a.b + static_cast<std::int64_t>(ccol[slot0 + t]) * a.ldb + col);
          }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
          if (t0 + u < cnt && col_ok) {
#pragma unroll
            for (int v = 0; v < VEC; ++v) acc.v[v] += av[u] * bf[u].v[v];
          }
        }
      }
      __syncwarp(gmask);
    }
  };
  auto zero = [] {
    F<VEC> f;
#pragma unroll
    for (int v = 0; v < VEC; ++v) f.v[v] = 0.f;
    return f;
  };
  if (start > s) {
    F<VEC> acc = zero();
    segment(s, start < e ? start : e, acc);
    if (col_ok) stv<VEC>(w.ws_head + c * a.n + col, acc);
  }
  for (std::int64_t r = r0; r < r1; ++r) {
    const std::int64_t next = a.row_ptr[r + 1];
    F<VEC> acc = zero();
    segment(start, next < e ? next : e, acc);
    if constexpr (MODE == 2) {  // the library's stores (epilogue checks)
      if (col_ok) {
        if (next <= e) {
          store_row_frag<float, VEC>(a.epi, a.c + out_row(w, r) * a.ldc + col, col, acc.v);
        } else {
          store_partial_frag<float, VEC>(w.ws_tail + c * a.n + col, acc.v);
        }
      }
    } else if constexpr (MODE == 3 || MODE == 4) {  // streaming stores (evict first)
      if (col_ok) stcs<VEC>(next <= e ? a.c + r * a.ldc + col : w.ws_tail + c * a.n + col, acc);
    } else {
      if (col_ok) stv<VEC>(next <= e ? a.c + r * a.ldc + col : w.ws_tail + c * a.n + col, acc);
    }
    start = next;
  }
}

/// Stages [s, s + len) of A's column ids and values into a group's window (xw, xy): int4 /
/// float4 loads where the chunk is whole (s is a multiple of the chunk, a multiple of 4, so the
/// addresses are 16-byte aligned), two per lane in flight; scalar loads for the last chunk.
__device__ __forceinline__ void stage_chunk(const Args& a, int* wcol, float* wval, std::int64_t s,
                                            int len, int cw, int G, int qlane) {
  if (len == cw) {
    const int4* gc = reinterpret_cast<const int4*>(a.col_idx + s);
    const float4* gv = reinterpret_cast<const float4*>(a.vals + s);
    constexpr int kB = 2;
    for (int i0 = 0; i0 < cw / 4; i0 += kB * G) {
      int4 ci[kB];
      float4 vi[kB];
#pragma unroll
      for (int j = 0; j < kB; ++j) {
        const int i = i0 + j * G + qlane;
        if (i < cw / 4) {
          ci[j] = __ldg(gc + i);
          vi[j] = __ldg(gv + i);
        }
      }
#pragma unroll
      for (int j = 0; j < kB; ++j) {
        const int i = i0 + j * G + qlane;
        if (i < cw / 4) {
          reinterpret_cast<int4*>(wcol)[i] = ci[j];
          reinterpret_cast<float4*>(wval)[i] = vi[j];
        }
      }
    }
  } else {
    for (int i = qlane; i < len; i += G) {
      wcol[i] = __ldg(a.col_idx + s + i);
      wval[i] = __ldg(a.vals + s + i);
    }
  }
}

/// xw: the group form with the whole chunk's column ids and values staged in shared memory
/// once (vector loads, every load of the chunk in flight together) instead of G entries per
/// row batch: a row then waits only on its B gathers. PF = 1 also loads row_ptr one row ahead.
template <int U, int VEC, int PF, int MINB = 4>
__global__ void __launch_bounds__(256, MINB) wgroup(Args a, W w, int g_log2) {
  extern __shared__ __align__(16) unsigned char wsm[];
  const int G = 1 << g_log2;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int qlane = lane & (G - 1);
  const int grp = static_cast<int>(threadIdx.x) >> g_log2;
  const int ngrp = 256 >> g_log2;
  const unsigned gmask = group_mask(lane, G);
  const std::int64_t c =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> g_log2;
  if (c >= w.nchunks) return;
  const int cw = static_cast<int>(w.chunk);
  int* wcol = reinterpret_cast<int*>(wsm) + grp * cw;
  float* wval = reinterpret_cast<float*>(wsm) + ngrp * cw + grp * cw;
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.y) * (G * VEC) + qlane * VEC;
  const bool col_ok = col < a.n;
  const std::int64_t s = c * w.chunk;
  const std::int64_t e = s + w.chunk < w.nnz ? s + w.chunk : w.nnz;
  const int len = static_cast<int>(e - s);
  const std::int64_t r0 = w.chunk_row[c];
  const std::int64_t r1 = w.chunk_row[c + 1];
  std::int64_t start = a.row_ptr[r0];
  stage_chunk(a, wcol, wval, s, len, cw, G, qlane);
  __syncwarp(gmask);
  auto segment = [&](int p, int q, F<VEC>& acc) {
    for (int t0 = p; t0 < q; t0 += U) {
      F<VEC> bf[U];
      float av[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int t = t0 + u;
        av[u] = 0.f;
        if (t < q) {
          av[u] = wval[t];
          if (col_ok) bf[u] = ldv<VEC>(a.b + static_cast<std::int64_t>(wcol[t]) * a.ldb + col);
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (t0 + u < q && col_ok) {
#pragma unroll
          for (int v = 0; v < VEC; ++v) acc.v[v] += av[u] * bf[u].v[v];
        }
      }
    }
  };
  auto zero = [] {
    F<VEC> f;
#pragma unroll
    for (int v = 0; v < VEC; ++v) f.v[v] = 0.f;
    return f;
  };
  if (start > s) {
    F<VEC> acc = zero();
    segment(0, static_cast<int>((start < e ? start : e) - s), acc);
    if (col_ok) stv<VEC>(w.ws_head + c * a.n + col, acc);
  }
  std::int64_t next = r0 < r1 ? a.row_ptr[r0 + 1] : 0;
  for (std::int64_t r = r0; r < r1; ++r) {
    std::int64_t after = 0;
    if constexpr (PF == 1) {
      if (r + 1 < r1) after = a.row_ptr[r + 2];
    }
    F<VEC> acc = zero();
    segment(static_cast<int>(start - s), static_cast<int>((next < e ? next : e) - s), acc);
    if (col_ok) stv<VEC>(next <= e ? a.c + r * a.ldc + col : w.ws_tail + c * a.n + col, acc);
    start = next;
    if constexpr (PF == 1) {
      next = after;
    } else {
      if (r + 1 < r1) next = a.row_ptr[r + 2];
    }
  }
}

/// A B fragment load with an L2 eviction policy (xz): evict_last when kLast, else evict_first.
template <int VEC, bool kLast>
__device__ __forceinline__ F<VEC> ldv_pol(const float* p) {
  unsigned long long pol = kLast ? l2_policy_evict_last() : l2_policy_evict_first();
  F<VEC> f;
  if constexpr (VEC == 4) {
    asm("ld.global.nc.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
        : "=f"(f.v[0]), "=f"(f.v[1]), "=f"(f.v[2]), "=f"(f.v[3])
        : "l"(p), "l"(pol));
  } else if constexpr (VEC == 2) {
    asm("ld.global.nc.L2::cache_hint.v2.f32 {%0,%1}, [%2], %3;"
        : "=f"(f.v[0]), "=f"(f.v[1])
        : "l"(p), "l"(pol));
  } else {
    asm("ld.global.nc.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(f.v[0]) : "l"(p), "l"(pol));
  }
  return f;
}

/// The gather of B's row for a staged column id. HMODE < 0: plain. Else the id carries bit 31 for
/// the hottest columns (by in-degree; xz) and the load takes a policy by it: HMODE 0 hot
/// evict_last / cold evict_first, 1 hot evict_last / cold plain, 2 hot plain / cold evict_first.
template <int VEC, int HMODE>
__device__ __forceinline__ F<VEC> gather_b(const float* b, int jc, std::int64_t ldb,
                                           std::int64_t col) {
  if constexpr (HMODE < 0) {
    return ldv<VEC>(b + static_cast<std::int64_t>(jc) * ldb + col);
  } else {
    const bool hot = jc < 0;
    const float* p = b + static_cast<std::int64_t>(jc & 0x7fffffff) * ldb + col;
    if (hot) {
      if constexpr (HMODE == 2) return ldv<VEC>(p);
      return ldv_pol<VEC, true>(p);
    }
    if constexpr (HMODE == 1) return ldv<VEC>(p);
    return ldv_pol<VEC, false>(p);
  }
}

/// xy: an entry walk over the staged chunk (xw's window: the whole chunk in shared memory).
/// Gathers are issued U entries at a time regardless of row ends; a row is stored when its last
/// entry has been added, empty rows after it are stored as zeros, and the walk goes on in the
/// same batch. The row ends come from row_ptr (L1), loaded when a row starts.
template <int U, int VEC, int HMODE = -1>
__global__ void __launch_bounds__(256, 4) ewalk(Args a, W w, int g_log2) {
  extern __shared__ __align__(16) unsigned char wsm[];
  const int G = 1 << g_log2;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int qlane = lane & (G - 1);
  const int grp = static_cast<int>(threadIdx.x) >> g_log2;
  const int ngrp = 256 >> g_log2;
  const unsigned gmask = group_mask(lane, G);
  const std::int64_t c =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> g_log2;
  if (c >= w.nchunks) return;
  const int cw = static_cast<int>(w.chunk);
  int* wcol = reinterpret_cast<int*>(wsm) + grp * cw;
  float* wval = reinterpret_cast<float*>(wsm) + ngrp * cw + grp * cw;
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.y) * (G * VEC) + qlane * VEC;
  const bool col_ok = col < a.n;
  const std::int64_t s = c * w.chunk;
  const std::int64_t e = s + w.chunk < w.nnz ? s + w.chunk : w.nnz;
  const int len = static_cast<int>(e - s);
  const std::int64_t r0 = w.chunk_row[c];
  const std::int64_t r1 = w.chunk_row[c + 1];
  stage_chunk(a, wcol, wval, s, len, cw, G, qlane);
  __syncwarp(gmask);
  // The row being summed: r = -1 is the head (a row begun in an earlier chunk), else r0 + cur.
  // rend: offset from s where it ends (len + 1 when it runs past the chunk).
  auto end_of = [&](std::int64_t r) {  // offset of row_ptr[r] from s, clamped to len + 1
    const std::int64_t v = static_cast<std::int64_t>(a.row_ptr[r]) - s;
    return static_cast<int>(v > len ? len + 1 : v);
  };
  F<VEC> zero;
#pragma unroll
  for (int v = 0; v < VEC; ++v) zero.v[v] = 0.f;
  std::int64_t cur;
  int rend;
  const int start0 = end_of(r0);
  // Stores the empty rows from cur on; leaves cur at the first non-empty owned row (or r1).
  auto skip_empty = [&]() {
    while (cur < r1) {
      rend = end_of(cur + 1);
      if (rend > end_of(cur)) break;
      if (col_ok) stv<VEC>(a.c + cur * a.ldc + col, zero);
      ++cur;
    }
  };
  if (start0 > 0) {
    cur = r0 - 1;
    rend = start0 > len ? len + 1 : start0;
  } else {
    cur = r0;
    skip_empty();
  }
  F<VEC> acc = zero;
  for (int t0 = 0; t0 < len; t0 += U) {
    F<VEC> bf[U];
    float av[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int t = t0 + u;
      av[u] = 0.f;
      if (t < len) {
        av[u] = wval[t];
        if (col_ok) bf[u] = gather_b<VEC, HMODE>(a.b, wcol[t], a.ldb, col);
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int t = t0 + u;
      if (t < len) {
        if (col_ok) {
#pragma unroll
          for (int v = 0; v < VEC; ++v) acc.v[v] += av[u] * bf[u].v[v];
        }
        if (t + 1 == rend) {  // the row ends here
          if (col_ok) {
            stv<VEC>(cur < r0 ? w.ws_head + c * a.n + col : a.c + cur * a.ldc + col, acc);
          }
          acc = zero;
          ++cur;
          skip_empty();
        }
      }
    }
  }
  // A row running past the chunk leaves its sum as the tail; a head covering the whole chunk
  // (no owned row) as the head.
  if (rend > len && col_ok) {
    stv<VEC>(cur < r0 ? w.ws_head + c * a.n + col : w.ws_tail + c * a.n + col, acc);
  }
}

/// row_cache_seq with the gathers in flight and the fragment width as parameters.
template <int U, int VEC, bool kPlain>
__global__ void __launch_bounds__(256) rcs(Args a, int g_log2) {
  __shared__ SeqCache<int, float, float> cache;
  const int G = 1 << g_log2;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int qlane = lane & (G - 1);
  const int slot0 = static_cast<int>(threadIdx.x) & ~(G - 1);
  const unsigned gmask = group_mask(lane, G);
  const std::int64_t row =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> g_log2;
  if (row >= a.rows) return;
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.y) * (G * VEC) + qlane * VEC;
  const bool col_ok = col < a.n;
  float acc[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) acc[v] = 0.f;
  accumulate_segment<S, int, float, float, VEC, U>(a, cache, a.row_ptr[row], a.row_ptr[row + 1], G,
                                                   qlane, slot0, gmask, col, col_ok, acc);
  if (!col_ok) return;
  if constexpr (kPlain) {
    store_partial_frag<float, VEC>(a.c + row * a.ldc + col, acc);
  } else {
    store_row_frag<float, VEC>(a.epi, a.c + row * a.ldc + col, col, acc);
  }
}

// xs: row_cache_seq over rows of at most P entries plus pieces of at most P entries of the longer
// rows (pieces first in the grid), the pieces' partials added in order by split_fix.
struct Piece {
  int row, k0, k1, slot;
};

template <int U, int VEC>
__global__ void __launch_bounds__(256)
    split_rcs(Args a, const Piece* __restrict__ pieces, int npieces, float* __restrict__ partial,
              int g_log2, int plen) {
  __shared__ SeqCache<int, float, float> cache;
  const int G = 1 << g_log2;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int qlane = lane & (G - 1);
  const int slot0 = static_cast<int>(threadIdx.x) & ~(G - 1);
  const unsigned gmask = group_mask(lane, G);
  const std::int64_t item =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> g_log2;
  std::int64_t row, p, q;
  int slot = -1;
  if (item < npieces) {
    const Piece pc = pieces[item];
    row = pc.row, p = pc.k0, q = pc.k1, slot = pc.slot;
  } else {
    row = item - npieces;
    if (row >= a.rows) return;
    p = a.row_ptr[row];
    q = a.row_ptr[row + 1];
    if (q - p > plen) return;
  }
  const std::int64_t col =
      static_cast<std::int64_t>(blockIdx.y) * (static_cast<std::int64_t>(G) * VEC) + qlane * VEC;
  const bool col_ok = col < a.n;
  float acc[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) acc[v] = 0.0f;
  accumulate_segment<S, int, float, float, VEC, U>(a, cache, p, q, G, qlane, slot0, gmask, col,
                                                   col_ok, acc);
  if (!col_ok) return;
  if (slot >= 0) {
    store_partial_frag<float, VEC>(partial + static_cast<std::int64_t>(slot) * a.n + col, acc);
  } else {
    store_row_frag<float, VEC>(a.epi, a.c + row * a.ldc + col, col, acc);
  }
}

template <int VEC>
__global__ void __launch_bounds__(256) split_fix(const RowBlockLong* __restrict__ longs, int nlong,
                                                 const float* __restrict__ partial, Args a) {
  const std::int64_t slabs = (a.n + 32 * VEC - 1) / (32 * VEC);
  const std::int64_t w = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  if (w >= nlong * slabs) return;
  const RowBlockLong l = longs[w / slabs];
  const std::int64_t col = (w % slabs) * 32 * VEC + (threadIdx.x & 31) * VEC;
  if (col >= a.n) return;
  const float* src = partial + l.first * a.n + col;
  float acc[VEC];
  {
    const Frag<float, VEC> f = load_frag<float, VEC>(src);
#pragma unroll
    for (int v = 0; v < VEC; ++v) acc[v] = f.v[v];
  }
  std::int64_t p = 1;
  for (; p + 4 <= l.count; p += 4) {
    Frag<float, VEC> f[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) f[u] = load_frag<float, VEC>(src + (p + u) * a.n);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
#pragma unroll
      for (int v = 0; v < VEC; ++v) acc[v] += f[u].v[v];
    }
  }
  for (; p < l.count; ++p) {
    const Frag<float, VEC> f = load_frag<float, VEC>(src + p * a.n);
#pragma unroll
    for (int v = 0; v < VEC; ++v) acc[v] += f.v[v];
  }
  store_row_frag<float, VEC>(a.epi, a.c + l.row * a.ldc + col, col, acc);
}

// split_fix with a block per (long row, 32·VEC-column slab): warp w adds pieces w, w + 8, ... in
// order, then warp 0 adds the 8 warp sums in order.
template <int VEC>
__global__ void __launch_bounds__(256) split_fix_block(const RowBlockLong* __restrict__ longs,
                                                       const float* __restrict__ partial, Args a) {
  __shared__ Frag<float, VEC> red[8][32];
  const std::int64_t slabs = (a.n + 32 * VEC - 1) / (32 * VEC);
  const RowBlockLong l = longs[blockIdx.x / slabs];
  const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
  const std::int64_t col = (blockIdx.x % slabs) * 32 * VEC + lane * VEC;
  const bool ok = col < a.n;
  Frag<float, VEC> acc;
#pragma unroll
  for (int v = 0; v < VEC; ++v) acc.v[v] = 0.0f;
  if (ok) {
    const float* src = partial + l.first * a.n + col;
#pragma unroll 4
    for (std::int64_t p = warp; p < l.count; p += 8) {
      const Frag<float, VEC> f = load_frag<float, VEC>(src + p * a.n);
#pragma unroll
      for (int v = 0; v < VEC; ++v) acc.v[v] += f.v[v];
    }
  }
  red[warp][lane] = acc;
  __syncthreads();
  if (warp != 0 || !ok) return;
  float t[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) t[v] = red[0][lane].v[v];
  for (int w = 1; w < 8; ++w) {
#pragma unroll
    for (int v = 0; v < VEC; ++v) t[v] += red[w][lane].v[v];
  }
  store_row_frag<float, VEC>(a.epi, a.c + l.row * a.ldc + col, col, t);
}

}  // namespace xp

namespace {

struct Variant {
  std::string text;
  std::string kind;
  std::vector<long long> p;
};

Variant parse_variant(const std::string& t) {
  Variant v;
  v.text = t;
  std::vector<std::string> parts;
  std::size_t b = 0;
  while (true) {
    const std::size_t e = t.find(':', b);
    parts.push_back(t.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  v.kind = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) v.p.push_back(std::stoll(parts[i]));
  return v;
}

template <int U, int VEC, int MODE = 0, int MINB = 1>
void run_xgroup(const Args& a, const Graph<std::int32_t, float>& G, std::int64_t chunk,
                cudaStream_t s) {
  W w;
  w.nnz = G.nnz();
  const int lanes = seq_group_lanes(a.n, VEC, 0);
  w.chunk = balanced_chunk(w.nnz, a.n, sizeof(float), chunk, kBalancedWorkspaceBudget);
  w.nchunks = (w.nnz + w.chunk - 1) / w.chunk;
  w.chunk_row = cached_chunk_rows(G, a.row_ptr, a.rows, w.chunk, w.nchunks, "xp", s);
  DeviceBuffer ws(2 * static_cast<std::size_t>(w.nchunks * a.n) * sizeof(float), "xp ws");
  w.ws_head = ws.as<float>();
  w.ws_tail = w.ws_head + w.nchunks * a.n;
  const std::int64_t width = static_cast<std::int64_t>(lanes) * VEC;
  const dim3 grid(static_cast<unsigned>((w.nchunks * lanes + 255) / 256),
                  static_cast<unsigned>((a.n + width - 1) / width));
  xp::group<U, VEC, MODE, MINB><<<grid, 256, 0, s>>>(a, w, log2_int(lanes));
  if (w.nchunks > 1) {
    const std::int64_t threads = (w.nchunks - 1) * 32;
    spmm_balanced_fixup_kernel<S, std::int32_t, float>
        <<<static_cast<unsigned>((threads + 255) / 256), 256, 0, s>>>(a.row_ptr, w, a.n, a.c, a.ldc,
                                                                      a.epi);
  }
}

/// Runs a staged-chunk kernel (xw, xy: whole chunks in dynamic shared memory, VEC columns per
/// lane) and the library's fix-up.
void run_staged(void (*kernel)(Args, W, int), int vec, const Args& a,
                const Graph<std::int32_t, float>& G, std::int64_t chunk, cudaStream_t s) {
  W w;
  w.nnz = G.nnz();
  const int lanes = seq_group_lanes(a.n, vec, 0);
  w.chunk = balanced_chunk(w.nnz, a.n, sizeof(float), chunk, kBalancedWorkspaceBudget);
  if (w.chunk % 4 != 0) throw InvalidArgument("staged chunks must be a multiple of 4 entries");
  w.nchunks = (w.nnz + w.chunk - 1) / w.chunk;
  w.chunk_row = cached_chunk_rows(G, a.row_ptr, a.rows, w.chunk, w.nchunks, "xp", s);
  DeviceBuffer ws(2 * static_cast<std::size_t>(w.nchunks * a.n) * sizeof(float), "xp ws");
  w.ws_head = ws.as<float>();
  w.ws_tail = w.ws_head + w.nchunks * a.n;
  const std::int64_t width = static_cast<std::int64_t>(lanes) * vec;
  const dim3 grid(static_cast<unsigned>((w.nchunks * lanes + 255) / 256),
                  static_cast<unsigned>((a.n + width - 1) / width));
  const std::size_t smem = static_cast<std::size_t>(256 / lanes) * w.chunk * 8;
  if (smem > 227 * 1024) throw InvalidArgument("staged chunk too large for shared memory");
  static std::set<const void*> raised;  // kernels allowed 227 KB of dynamic shared memory
  if (raised.insert(reinterpret_cast<const void*>(kernel)).second) {
    SPINDLE_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
  }
  kernel<<<grid, 256, smem, s>>>(a, w, log2_int(lanes));
  SPINDLE_CUDA_CHECK(cudaGetLastError());
  if (w.nchunks > 1) {
    const std::int64_t threads = (w.nchunks - 1) * 32;
    spmm_balanced_fixup_kernel<S, std::int32_t, float>
        <<<static_cast<unsigned>((threads + 255) / 256), 256, 0, s>>>(a.row_ptr, w, a.n, a.c, a.ldc,
                                                                      a.epi);
  }
}

template <int U, int VEC, int PF, int MINB = 4>
void run_xwindow(const Args& a, const Graph<std::int32_t, float>& G, std::int64_t chunk,
                 cudaStream_t s) {
  run_staged(&xp::wgroup<U, VEC, PF, MINB>, VEC, a, G, chunk, s);
}

template <int U, int VEC>
void run_xewalk(const Args& a, const Graph<std::int32_t, float>& G, std::int64_t chunk,
                cudaStream_t s) {
  run_staged(&xp::ewalk<U, VEC>, VEC, a, G, chunk, s);
}

/// xz: A's column ids with bit 31 set on the `hot` columns of largest in-degree (cached per graph
/// and hot count), for ewalk's hinted gathers.
const std::int32_t* hot_flagged_cols(const Graph<std::int32_t, float>& G, std::int64_t hot) {
  static std::map<std::pair<const void*, std::int64_t>, DeviceBuffer> cache;
  const auto key = std::make_pair(static_cast<const void*>(G.col_idx().data()), hot);
  auto it = cache.find(key);
  if (it == cache.end()) {
    const auto& ci = G.col_idx();
    std::vector<std::int64_t> deg(static_cast<std::size_t>(G.cols()), 0);
    for (const std::int32_t j : ci) ++deg[static_cast<std::size_t>(j)];
    std::vector<std::int32_t> order(deg.size());
    for (std::size_t j = 0; j < order.size(); ++j) order[j] = static_cast<std::int32_t>(j);
    const std::int64_t h = std::min<std::int64_t>(hot, G.cols());
    std::partial_sort(order.begin(), order.begin() + h, order.end(),
                      [&](std::int32_t x, std::int32_t y) { return deg[x] > deg[y]; });
    std::vector<char> is_hot(deg.size(), 0);
    std::int64_t covered = 0;
    for (std::int64_t q = 0; q < h; ++q) {
      is_hot[order[q]] = 1;
      covered += deg[order[q]];
    }
    std::vector<std::int32_t> flagged(ci.size());
    for (std::size_t k = 0; k < ci.size(); ++k) {
      flagged[k] = is_hot[ci[k]] ? static_cast<std::int32_t>(ci[k] | 0x80000000u) : ci[k];
    }
    std::fprintf(stderr, "[xz: %lld hot columns hold %.1f%% of the entries]\n",
                 static_cast<long long>(h), 100.0 * covered / std::max<std::size_t>(ci.size(), 1));
    DeviceBuffer buf(flagged.size() * sizeof(std::int32_t), "xz cols");
    SPINDLE_CUDA_CHECK(cudaMemcpy(buf.get(), flagged.data(), buf.bytes(), cudaMemcpyHostToDevice));
    it = cache.emplace(key, std::move(buf)).first;
  }
  return it->second.as<std::int32_t>();
}

template <int U, int VEC, int HMODE>
void run_xhot(const Args& a, const Graph<std::int32_t, float>& G, std::int64_t chunk,
              std::int64_t hot, cudaStream_t s) {
  Args h = a;
  h.col_idx = hot_flagged_cols(G, hot);
  run_staged(&xp::ewalk<U, VEC, HMODE>, VEC, h, G, chunk, s);
}

template <int U, int VEC, bool kPlain>
void run_xrcs(const Args& a, cudaStream_t s) {
  const int lanes = seq_group_lanes(a.n, VEC, 0);
  const std::int64_t width = static_cast<std::int64_t>(lanes) * VEC;
  const dim3 grid(static_cast<unsigned>((a.rows * lanes + 255) / 256),
                  static_cast<unsigned>((a.n + width - 1) / width));
  xp::rcs<U, VEC, kPlain><<<grid, 256, 0, s>>>(a, log2_int(lanes));
}

struct SplitSlot : spindle::detail::ExtensionSlot {
  DeviceBuffer pieces, longs;
  int npieces = 0, nlong = 0, nslots = 0;
};

template <int U, int VEC>
void run_xsplit(const Args& a, const Graph<std::int32_t, float>& G, int plen, cudaStream_t s,
                bool block_fix = false) {
  const auto& slot = G.extension<SplitSlot>("xp.split." + std::to_string(plen), [&] {
    std::vector<xp::Piece> pc;
    std::vector<RowBlockLong> lg;
    const auto& rp = G.row_ptr();
    int nslots = 0;
    for (std::int64_t r = 0; r < G.rows(); ++r) {
      const int len = rp[r + 1] - rp[r];
      if (len <= plen) continue;
      const int count = (len + plen - 1) / plen;
      const int sz = (len + count - 1) / count;
      lg.push_back({r, nslots, count});
      for (int i = 0; i < count; ++i) {
        const int k0 = rp[r] + i * sz;
        pc.push_back({static_cast<int>(r), k0, std::min(k0 + sz, rp[r + 1]), nslots + i});
      }
      nslots += count;
    }
    auto sl = std::make_unique<SplitSlot>();
    sl->npieces = static_cast<int>(pc.size());
    sl->nlong = static_cast<int>(lg.size());
    sl->nslots = nslots;
    sl->pieces = DeviceBuffer(std::max<std::size_t>(1, pc.size()) * sizeof(xp::Piece), "pieces");
    sl->longs = DeviceBuffer(std::max<std::size_t>(1, lg.size()) * sizeof(RowBlockLong), "longs");
    if (!pc.empty())
      SPINDLE_CUDA_CHECK(cudaMemcpy(sl->pieces.get(), pc.data(), pc.size() * sizeof(xp::Piece),
                                    cudaMemcpyHostToDevice));
    if (!lg.empty())
      SPINDLE_CUDA_CHECK(cudaMemcpy(sl->longs.get(), lg.data(), lg.size() * sizeof(RowBlockLong),
                                    cudaMemcpyHostToDevice));
    return sl;
  });
  DeviceBuffer partial(
      std::max<std::size_t>(1, static_cast<std::size_t>(slot.nslots) * a.n) * sizeof(float),
      "xs partial");
  const int lanes = seq_group_lanes(a.n, VEC, 0);
  const std::int64_t width = static_cast<std::int64_t>(lanes) * VEC;
  const std::int64_t items = slot.npieces + a.rows;
  const dim3 grid(static_cast<unsigned>((items * lanes + 255) / 256),
                  static_cast<unsigned>((a.n + width - 1) / width));
  xp::split_rcs<U, VEC><<<grid, 256, 0, s>>>(a, slot.pieces.template as<const xp::Piece>(),
                                             slot.npieces, partial.template as<float>(),
                                             log2_int(lanes), plen);
  if (slot.nlong > 0 && block_fix) {
    const std::int64_t slabs = (a.n + 32 * VEC - 1) / (32 * VEC);
    xp::split_fix_block<VEC><<<static_cast<unsigned>(slot.nlong * slabs), 256, 0, s>>>(
        slot.longs.template as<const RowBlockLong>(), partial.template as<const float>(), a);
  } else if (slot.nlong > 0) {
    const std::int64_t slabs = (a.n + 32 * VEC - 1) / (32 * VEC);
    const std::int64_t threads = slot.nlong * slabs * 32;
    xp::split_fix<VEC><<<static_cast<unsigned>((threads + 255) / 256), 256, 0, s>>>(
        slot.longs.template as<const RowBlockLong>(), slot.nlong,
        partial.template as<const float>(), a);
  }
}

void run_variant(const Variant& v, const Args& a, const Graph<std::int32_t, float>& G,
                 cudaStream_t s) {
  Plan p;
  p.op = OpKind::Mxm;
  p.device = Device::Cuda;
  auto arg = [&](std::size_t i) { return i < v.p.size() ? v.p[i] : 0LL; };
  if (v.kind == "nbh") {  // nbg:0:0 with the hints' test override: nbh:BUDGET (bytes; 2^40: no
                          // column is cold, the hint code runs without effect)
    p.mxm = MxmKernel::NnzBalancedSeq;
    p.params.oversubscription = 1;
    detail::cuda::debug_spmm_gather_hints(arg(0));
    try {
      run_spmm<S>(p, a, G, s);
    } catch (...) {
      detail::cuda::debug_spmm_gather_hints(0);
      throw;
    }
    detail::cuda::debug_spmm_gather_hints(0);
    return;
  } else if (v.kind == "nbg" || v.kind == "nbw") {
    p.mxm = MxmKernel::NnzBalancedSeq;
    p.params.items_per_worker = arg(0);
    p.params.tile = static_cast<int>(arg(1));
    p.params.oversubscription = v.kind == "nbg" ? 1 : 2;
  } else if (v.kind == "rcs") {
    p.mxm = MxmKernel::RowCacheSeq;
    p.params.tile = static_cast<int>(arg(0));
  } else if (v.kind == "rb") {
    p.mxm = MxmKernel::RowBlock;
    p.params.items_per_worker = arg(0);
  } else if (v.kind == "xg") {
    const long long u = arg(0), vec = arg(1);
    if (a.n % vec != 0) throw InvalidArgument("xg needs N divisible by VEC");
    using Run =
        void (*)(const Args&, const Graph<std::int32_t, float>&, std::int64_t, cudaStream_t);
    struct Entry {
      long long u, vec;
      Run run;
    };
    static const Entry kRuns[] = {
        {4, 1, &run_xgroup<4, 1>}, {8, 1, &run_xgroup<8, 1>}, {16, 1, &run_xgroup<16, 1>},
        {4, 2, &run_xgroup<4, 2>}, {8, 2, &run_xgroup<8, 2>}, {16, 2, &run_xgroup<16, 2>},
        {4, 4, &run_xgroup<4, 4>}, {8, 4, &run_xgroup<8, 4>}, {16, 4, &run_xgroup<16, 4>},
    };
    for (const Entry& r : kRuns) {
      if (r.u == u && r.vec == vec) return r.run(a, G, arg(2), s);
    }
    throw InvalidArgument("xg: U must be 4, 8 or 16, VEC 1, 2 or 4");
  } else if (v.kind == "xl") {  // xg with U = 8 (VEC 2) or 4 (VEC 4), MINB blocks per SM
    const long long minb = arg(0), vec = arg(1);
    if (a.n % vec != 0) throw InvalidArgument("xl needs N divisible by VEC");
    using Run =
        void (*)(const Args&, const Graph<std::int32_t, float>&, std::int64_t, cudaStream_t);
    struct Entry {
      long long minb, vec;
      Run run;
    };
    static const Entry kRuns[] = {
        {4, 2, &run_xgroup<8, 2, 0, 4>}, {5, 2, &run_xgroup<8, 2, 0, 5>},
        {6, 2, &run_xgroup<8, 2, 0, 6>}, {8, 2, &run_xgroup<8, 2, 0, 8>},
        {4, 4, &run_xgroup<4, 4, 0, 4>}, {5, 4, &run_xgroup<4, 4, 0, 5>},
        {6, 4, &run_xgroup<4, 4, 0, 6>}, {8, 4, &run_xgroup<4, 4, 0, 8>},
    };
    for (const Entry& r : kRuns) {
      if (r.minb == minb && r.vec == vec) return r.run(a, G, arg(2), s);
    }
    throw InvalidArgument("xl: MINB must be 4, 5, 6 or 8, VEC 2 or 4");
  } else if (v.kind == "xr") {
    const long long u = arg(0), vec = arg(1), plain = arg(2);
    if (a.n % vec != 0) throw InvalidArgument("xr needs N divisible by VEC");
    using Run = void (*)(const Args&, cudaStream_t);
    struct Entry {
      long long u, vec, plain;
      Run run;
    };
    static const Entry kRuns[] = {
        {4, 2, 0, &run_xrcs<4, 2, false>}, {8, 2, 0, &run_xrcs<8, 2, false>},
        {4, 4, 0, &run_xrcs<4, 4, false>}, {8, 4, 0, &run_xrcs<8, 4, false>},
        {4, 2, 1, &run_xrcs<4, 2, true>},  {8, 2, 1, &run_xrcs<8, 2, true>},
        {4, 4, 1, &run_xrcs<4, 4, true>},  {8, 4, 1, &run_xrcs<8, 4, true>},
    };
    for (const Entry& r : kRuns) {
      if (r.u == u && r.vec == vec && r.plain == plain) return r.run(a, s);
    }
    throw InvalidArgument("xr: U must be 4 or 8, VEC 2 or 4, PLAIN 0 or 1");
  } else if (v.kind == "xs") {  // split rows: P entries per piece, U gathers in flight
    const int plen = static_cast<int>(arg(0));
    const long long u = arg(1) == 8 ? 8 : 4;
    const bool bf = arg(2) != 0;
    if (plen < 1) throw InvalidArgument("xs: P must be >= 1");
    if (a.n % 4 == 0) {
      return u == 8 ? run_xsplit<8, 4>(a, G, plen, s, bf) : run_xsplit<4, 4>(a, G, plen, s, bf);
    }
    if (a.n % 2 == 0) {
      return u == 8 ? run_xsplit<8, 2>(a, G, plen, s, bf) : run_xsplit<4, 2>(a, G, plen, s, bf);
    }
    return u == 8 ? run_xsplit<8, 1>(a, G, plen, s, bf) : run_xsplit<4, 1>(a, G, plen, s, bf);
  } else if (v.kind == "xw") {  // chunk staged in shared memory: xw:U:VEC:CHUNK[:PF]
    const long long u = arg(0), vec = arg(1), pf = arg(3);
    if (a.n % vec != 0) throw InvalidArgument("xw needs N divisible by VEC");
    using Run =
        void (*)(const Args&, const Graph<std::int32_t, float>&, std::int64_t, cudaStream_t);
    struct Entry {
      long long u, vec, pf;
      Run run;
    };
    static const Entry kRuns[] = {
        {4, 2, 0, &run_xwindow<4, 2, 0>}, {8, 2, 0, &run_xwindow<8, 2, 0>},
        {4, 4, 0, &run_xwindow<4, 4, 0>}, {8, 4, 0, &run_xwindow<8, 4, 0>},
        {4, 2, 1, &run_xwindow<4, 2, 1>}, {8, 2, 1, &run_xwindow<8, 2, 1>},
        {4, 4, 1, &run_xwindow<4, 4, 1>}, {8, 4, 1, &run_xwindow<8, 4, 1>},
    };
    for (const Entry& r : kRuns) {
      if (r.u == u && r.vec == vec && r.pf == pf) return r.run(a, G, arg(2), s);
    }
    throw InvalidArgument("xw: U must be 4 or 8, VEC 2 or 4, PF 0 or 1");
  } else if (v.kind == "xo") {  // xw:8:2:CHUNK:0 with __launch_bounds__(256, MINB): xo:MINB:CHUNK
    if (a.n % 2 != 0) throw InvalidArgument("xo needs even N");
    if (arg(0) == 5) return run_xwindow<8, 2, 0, 5>(a, G, arg(1), s);
    if (arg(0) == 6) return run_xwindow<8, 2, 0, 6>(a, G, arg(1), s);
    if (arg(0) == 3) return run_xwindow<8, 2, 0, 3>(a, G, arg(1), s);
    throw InvalidArgument("xo: MINB 3, 5 or 6");
  } else if (v.kind == "xy") {  // entry walk over the staged chunk: xy:U:VEC:CHUNK
    const long long u = arg(0), vec = arg(1);
    if (a.n % vec != 0) throw InvalidArgument("xy needs N divisible by VEC");
    if (u == 8 && vec == 2) return run_xewalk<8, 2>(a, G, arg(2), s);
    if (u == 4 && vec == 2) return run_xewalk<4, 2>(a, G, arg(2), s);
    if (u == 4 && vec == 4) return run_xewalk<4, 4>(a, G, arg(2), s);
    if (u == 16 && vec == 2) return run_xewalk<16, 2>(a, G, arg(2), s);
    throw InvalidArgument("xy: U:VEC 8:2, 4:2, 16:2 or 4:4");
  } else if (v.kind == "xz") {  // xy with hinted gathers: xz:VEC:CHUNK:HMODE:HOT (U 8 / 4)
    const long long vec = arg(0), mode = arg(2);
    if (a.n % vec != 0) throw InvalidArgument("xz needs N divisible by VEC");
    if (vec == 2 && mode == 0) return run_xhot<8, 2, 0>(a, G, arg(1), arg(3), s);
    if (vec == 2 && mode == 1) return run_xhot<8, 2, 1>(a, G, arg(1), arg(3), s);
    if (vec == 2 && mode == 2) return run_xhot<8, 2, 2>(a, G, arg(1), arg(3), s);
    if (vec == 4 && mode == 0) return run_xhot<4, 4, 0>(a, G, arg(1), arg(3), s);
    if (vec == 4 && mode == 1) return run_xhot<4, 4, 1>(a, G, arg(1), arg(3), s);
    if (vec == 4 && mode == 2) return run_xhot<4, 4, 2>(a, G, arg(1), arg(3), s);
    throw InvalidArgument("xz: VEC 2 or 4, HMODE 0, 1 or 2");
  } else if (v.kind == "xh") {  // xg (U = 8 at VEC 2, 4 at VEC 4) with cache hints: MODE 3
    // streams around L1 / evict-first in L2 and streaming stores, MODE 4 the stores only
    const long long mode = arg(0), vec = arg(1);
    if (a.n % vec != 0) throw InvalidArgument("xh needs N divisible by VEC");
    if (mode == 3 && vec == 2) return run_xgroup<8, 2, 3>(a, G, arg(2), s);
    if (mode == 4 && vec == 2) return run_xgroup<8, 2, 4>(a, G, arg(2), s);
    if (mode == 3 && vec == 4) return run_xgroup<4, 4, 3>(a, G, arg(2), s);
    if (mode == 4 && vec == 4) return run_xgroup<4, 4, 4>(a, G, arg(2), s);
    throw InvalidArgument("xh: MODE 3 or 4, VEC 2 or 4");
  } else if (v.kind == "xa" || v.kind == "xe") {  // U = 8, VEC = 2; library segment / stores
    if (a.n % 2 != 0) throw InvalidArgument("xa/xe need even N");
    if (v.kind == "xa") return run_xgroup<8, 2, 1>(a, G, arg(0), s);
    return run_xgroup<8, 2, 2>(a, G, arg(0), s);
  } else {
    throw InvalidArgument("unknown variant " + v.text);
  }
  run_spmm<S>(p, a, G, s);
}

}  // namespace

int main(int argc, char** argv) try {
  std::vector<std::string> rest;
  std::string variants = "nbg:256:0";
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--variants" && i + 1 < argc) {
      variants = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  std::vector<char*> av{argv[0]};
  for (auto& r : rest) av.push_back(r.data());
  const Options o = parse_options(static_cast<int>(av.size()), av.data(), {"rmat20"}, {32},
                                  "spmm_params [--graphs ...] [--n ...] --variants V,V,...");
  std::vector<Variant> vs;
  for (const auto& t : split(variants)) vs.push_back(parse_variant(t));
  const cudaStream_t s = context().stream;
  std::printf("# spmm_params on %s, median of %d\n", device_name().c_str(), o.reps);
  for (const std::string& spec : o.graphs) {
    const NamedGraph ng = make_graph(spec);
    const auto& G = ng.g;
    const GraphStats& st = G.stats();
    const auto d = device_csr<float>(G);
    for (const std::int64_t n : o.widths) {
      const std::int64_t rows_n = st.rows * n;
      DeviceBuffer B(static_cast<std::size_t>(st.cols * n) * sizeof(float), "B");
      DeviceBuffer C(static_cast<std::size_t>(rows_n) * sizeof(float), "C");
      DeviceBuffer Cref(static_cast<std::size_t>(rows_n) * sizeof(float), "Cref");
      fill_uniform(B.as<float>(), st.cols * n, 7 + static_cast<std::uint64_t>(n), s);
      double cus = -1;
      std::string cus_name;
      bool ref = false;
      for (CusparseSpmmAlg alg : kCusparseSpmmAlgs) {
        CusparseSpmm<std::int32_t, float> op(d, B.as<float>(), n, C.as<float>(), n, n, 0.0f, alg);
        if (!op.supported()) continue;
        op.run();
        if (!ref) {
          SPINDLE_CUDA_CHECK(
              cudaMemcpyAsync(Cref.get(), C.get(), C.bytes(), cudaMemcpyDeviceToDevice, s));
          ref = true;
        }
        const Timing t = time_runs([&] { op.run(); }, s, o.warmup, o.reps);
        if (cus < 0 || t.median < cus) {
          cus = t.median;
          cus_name = to_string(alg);
        }
      }
      const Args a = spmm_args(d, n, B.as<const float>(), C.as<float>());
      std::printf("%-14s N=%-4lld cusparse %-18s %8.4f ms |", ng.name.c_str(),
                  static_cast<long long>(n), cus_name.c_str(), cus);
      for (const Variant& v : vs) {
        try {
          poison(C.as<float>(), rows_n, s);
          run_variant(v, a, G, s);
          const Diff df = compare(C.as<float>(), Cref.as<float>(), rows_n, s);
          const Timing t = time_runs([&] { run_variant(v, a, G, s); }, s, o.warmup, o.reps);
          std::printf(" %s %.4f (%.2fx)%s", v.text.c_str(), t.median, cus / t.median,
                      df.ok(1e-4) ? "" : " CHECK-FAILED");
        } catch (const std::exception& e) {
          std::printf(" %s error(%s)", v.text.c_str(), e.what());
        }
        std::fflush(stdout);
      }
      std::printf("\n");
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "spmm_params: %s\n", e.what());
  return 1;
}
