// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file group_tile.cuh
/// @brief The body shared by SDDMM `iir` and `wmt`: a group of G lanes (a power of two ≤ 32)
/// computes M consecutive dot products; each lane accumulates its K slice (VEC elements per
/// chunk, KU chunks loaded before use) for all M nonzeros, then the group reduces the M sums at
/// once with multi_reduce. Every lane of the warp reaches the shuffles: groups past the end of S
/// compute on a repeated entry and store nothing.

#include "ops/cuda/sddmm/sddmm_common.cuh"

namespace spindle::detail::cuda {

template <class S, class I, class V, class T, int VEC, int M, int KU>
__device__ __forceinline__ void sddmm_group_tile(const SddmmArgs<I, V, T>& a, int g_log2,
                                                 bool ids_aligned) {
  static_assert(M == 2 || M == 4, "two or four dot products per group");
  const int G = 1 << g_log2;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int q = lane & (G - 1);
  const std::int64_t group =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> g_log2;
  const std::int64_t e0 = group * M;
  I rows[M];
  I cols[M];
  bool vector_ids = false;
  if constexpr (M == 4) {
    if (ids_aligned && e0 + M <= a.nnz) {
      load_ids4(a.row_idx, e0, rows);
      load_ids4(a.col_idx, e0, cols);
      vector_ids = true;
    }
  }
  if (!vector_ids) {
#pragma unroll
    for (int m = 0; m < M; ++m) {
      std::int64_t e = e0 + m < a.nnz ? e0 + m : a.nnz - 1;
      rows[m] = __ldg(a.row_idx + e);
      cols[m] = __ldg(a.col_idx + e);
    }
  }
  const T* xr[M];
  const T* yr[M];
#pragma unroll
  for (int m = 0; m < M; ++m) {
    xr[m] = a.x + static_cast<std::int64_t>(rows[m]) * a.ldx;
    yr[m] = a.y + static_cast<std::int64_t>(cols[m]) * a.ldy;
  }
  T sum[M];
#pragma unroll
  for (int m = 0; m < M; ++m) sum[m] = a.identity;
  const std::int64_t step = static_cast<std::int64_t>(G) * VEC;
  for (std::int64_t k0 = static_cast<std::int64_t>(q) * VEC; k0 < a.k; k0 += step * KU) {
    Frag<T, VEC> xf[KU][M];
    Frag<T, VEC> yf[KU][M];
#pragma unroll
    for (int u = 0; u < KU; ++u) {
      const std::int64_t kk = k0 + u * step;
      if (kk < a.k) {
        // Consecutive nonzeros mostly share their row: reuse its X slice instead of loading
        // it again (a per-lane predicate, so groups of one warp never diverge on it).
        xf[u][0] = load_frag<T, VEC>(xr[0] + kk);
#pragma unroll
        for (int m = 1; m < M; ++m) {
          if (rows[m] == rows[0]) {
            xf[u][m] = xf[u][0];
          } else {
            xf[u][m] = load_frag<T, VEC>(xr[m] + kk);
          }
        }
#pragma unroll
        for (int m = 0; m < M; ++m) yf[u][m] = load_frag<T, VEC>(yr[m] + kk);
      }
    }
#pragma unroll
    for (int u = 0; u < KU; ++u) {
      if (k0 + u * step < a.k) {
#pragma unroll
        for (int m = 0; m < M; ++m) sum[m] = dot_frag<S, T, VEC>(xf[u][m], yf[u][m], sum[m]);
      }
    }
  }
  int which = 0;
  int held = 1;
  multi_reduce<S, T, M>(sum, lane, G >> 1, which, held);
  // With G ≥ M, G/M lanes end with the same sum; the lowest of them writes it.
  const bool writer = G >= M ? (q & (G / M - 1)) == 0 : true;
  if (writer) {
#pragma unroll
    for (int h = 0; h < M; ++h) {
      const std::int64_t e = e0 + which + h;
      if (h < held && e < a.nnz) sddmm_store<S>(a, e, sum[h]);
    }
  }
}

/// Lanes per dot product for width K: ceil(K / VEC) rounded up to a power of two, ≤ 32.
inline int sddmm_group_lanes(std::int64_t k, int vec) { return pow2_lanes((k + vec - 1) / vec); }

}  // namespace spindle::detail::cuda
