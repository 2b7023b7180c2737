// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file wmt.cuh
/// @brief SDDMM `wmt` (Exploiting Online Locality and Reduction Parallelism, Yu et al., §III-C:
/// warp-merged tiling), for K > 32.
///
/// Each lane accumulates at least kWmtChunks chunks of K (VEC elements each, all of them loaded
/// before use) before the one reduction, so a dot product takes G = ceil(K / (2·VEC)) lanes
/// (at most a warp) instead of ceil(K / VEC): fewer lanes per dot product, more dot products
/// merged into each warp (2 per group), fewer shuffles per dot product. A dot product never
/// spans warps, so no inter-warp communication (shared memory or atomics) is needed however
/// large K is. (A first version with a whole warp per 4 dot products and 2 chunks in flight per
/// dot product needed 99 registers and ran 1.4-11x slower than iir on an H200.)

#include "ops/cuda/sddmm/group_tile.cuh"

namespace spindle::detail::cuda {

constexpr int kWmtChunks = 2;

template <class S, class I, class V, class T, int VEC>
__global__ void __launch_bounds__(256)
    sddmm_wmt_kernel(SddmmArgs<I, V, T> a, int g_log2, bool ids_aligned) {
  sddmm_group_tile<S, I, V, T, VEC, 2, kWmtChunks>(a, g_log2, ids_aligned);
}

template <class S, class I, class V, class T, int VEC>
void launch_sddmm_wmt_vec(const SddmmArgs<I, V, T>& a, bool aligned, cudaStream_t stream) {
  const int G = pow2_lanes((a.k + kWmtChunks * VEC - 1) / (kWmtChunks * VEC));
  const std::int64_t groups = (a.nnz + 1) / 2;
  const auto grid = static_cast<unsigned>((groups * G + 255) / 256);
  sddmm_wmt_kernel<S, I, V, T, VEC><<<grid, 256, 0, stream>>>(a, log2_int(G), aligned);
}

template <class S, class I, class V, class T>
void launch_sddmm_wmt(const SddmmArgs<I, V, T>& a, cudaStream_t stream) {
  const bool aligned = reinterpret_cast<std::uintptr_t>(a.row_idx) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(a.col_idx) % 16 == 0;
  constexpr int kWide = static_cast<int>(16 / sizeof(T));
  if (sddmm_vec_for(a) == kWide) {
    launch_sddmm_wmt_vec<S, I, V, T, kWide>(a, aligned, stream);
  } else {
    launch_sddmm_wmt_vec<S, I, V, T, 1>(a, aligned, stream);
  }
}

}  // namespace spindle::detail::cuda
