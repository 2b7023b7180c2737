// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file wmt.cuh
/// @brief SDDMM `wmt` (seed 003 §III-C, warp-merged tiling), for K > 32.
///
/// A whole warp takes 4 consecutive nonzeros; each lane accumulates several K chunks of VEC
/// elements (two chunks loaded before use) for all 4 dot products, and the warp reduces the 4
/// sums once at the end with the interleaved reduction. A dot product never spans warps, so no
/// inter-warp communication (shared memory or atomics) is needed however large K is.

#include "ops/cuda/sddmm/group_tile.cuh"

namespace spindle::detail::cuda {

template <class S, class I, class V, class T, int VEC>
__global__ void __launch_bounds__(256) sddmm_wmt_kernel(SddmmArgs<I, V, T> a, bool ids_aligned) {
  sddmm_group_tile<S, I, V, T, VEC, 4, 2>(a, 5, ids_aligned);
}

template <class S, class I, class V, class T>
void launch_sddmm_wmt(const SddmmArgs<I, V, T>& a, cudaStream_t stream) {
  const bool aligned = reinterpret_cast<std::uintptr_t>(a.row_idx) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(a.col_idx) % 16 == 0;
  const std::int64_t warps = (a.nnz + 3) / 4;
  const auto grid = static_cast<unsigned>((warps * 32 + 255) / 256);
  constexpr int kWide = static_cast<int>(16 / sizeof(T));
  if (sddmm_vec_for(a) == kWide) {
    sddmm_wmt_kernel<S, I, V, T, kWide><<<grid, 256, 0, stream>>>(a, aligned);
  } else {
    sddmm_wmt_kernel<S, I, V, T, 1><<<grid, 256, 0, stream>>>(a, aligned);
  }
}

}  // namespace spindle::detail::cuda
