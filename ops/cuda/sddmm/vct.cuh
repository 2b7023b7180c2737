// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file vct.cuh
/// @brief SDDMM `vct` (Exploiting Online Locality and Reduction Parallelism, Yu et al., §III-A:
/// vectorized coarse 1-D tiling).
///
/// Each block of 4 warps takes T_s = 16 consecutive nonzeros, with no preprocessing of S beyond
/// the COO row array: consecutive nonzeros mostly share their row, so the block re-reads the
/// same X row out of L1 instead of DRAM. Warp w takes nonzeros 4w..4w+3 of the tile and loads
/// their row and column ids with one 16-byte access each (scalar loads for the residue at the
/// end of S); its lanes split K with VEC-wide loads and each of the 4 sums is reduced by a full
/// butterfly (the baseline reduction that IIR and WMT improve on).

#include "ops/cuda/sddmm/sddmm_common.cuh"

namespace spindle::detail::cuda {

// T_s, nonzeros per block: the choice of Exploiting Online Locality and Reduction Parallelism
// (Yu et al., §IV-B).
constexpr int kVctTile = 16;

template <class S, class I, class V, class T, int VEC>
__global__ void __launch_bounds__(128) sddmm_vct_kernel(SddmmArgs<I, V, T> a, bool ids_aligned) {
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const std::int64_t e0 = static_cast<std::int64_t>(blockIdx.x) * kVctTile + warp * 4;
  if (e0 >= a.nnz) return;  // whole warps leave together
  I rows[4];
  I cols[4];
  if (ids_aligned && e0 + 4 <= a.nnz) {
    load_ids4(a.row_idx, e0, rows);
    load_ids4(a.col_idx, e0, cols);
  } else {
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      const std::int64_t e = e0 + m < a.nnz ? e0 + m : a.nnz - 1;  // residue: repeat the last
      rows[m] = __ldg(a.row_idx + e);
      cols[m] = __ldg(a.col_idx + e);
    }
  }
  T sum[4];
#pragma unroll
  for (int m = 0; m < 4; ++m) sum[m] = a.identity;
  for (std::int64_t kk = static_cast<std::int64_t>(lane) * VEC; kk < a.k; kk += 32 * VEC) {
    Frag<T, VEC> xf[4];
    Frag<T, VEC> yf[4];
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      xf[m] = load_frag<T, VEC>(a.x + static_cast<std::int64_t>(rows[m]) * a.ldx + kk);
      yf[m] = load_frag<T, VEC>(a.y + static_cast<std::int64_t>(cols[m]) * a.ldy + kk);
    }
#pragma unroll
    for (int m = 0; m < 4; ++m) sum[m] = dot_frag<S, T, VEC>(xf[m], yf[m], sum[m]);
  }
#pragma unroll
  for (int m = 0; m < 4; ++m) sum[m] = group_reduce<S>(sum[m], 32);
  if (lane == 0) {
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      if (e0 + m < a.nnz) sddmm_store<S>(a, e0 + m, sum[m]);
    }
  }
}

template <class S, class I, class V, class T>
void launch_sddmm_vct(const SddmmArgs<I, V, T>& a, cudaStream_t stream) {
  const auto grid = static_cast<unsigned>((a.nnz + kVctTile - 1) / kVctTile);
  const bool aligned = reinterpret_cast<std::uintptr_t>(a.row_idx) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(a.col_idx) % 16 == 0;
  constexpr int kWide = static_cast<int>(16 / sizeof(T));
  if (sddmm_vec_for(a) == kWide) {
    sddmm_vct_kernel<S, I, V, T, kWide><<<grid, 128, 0, stream>>>(a, aligned);
  } else {
    sddmm_vct_kernel<S, I, V, T, 1><<<grid, 128, 0, stream>>>(a, aligned);
  }
}

}  // namespace spindle::detail::cuda
