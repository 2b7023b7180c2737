// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file iir.cuh
/// @brief SDDMM `iir` (Exploiting Online Locality and Reduction Parallelism, Yu et al., §III-B:
/// integrated interleaving reduction), for K ≤ 32.
///
/// A warp splits into 32/G groups of G = ceil(K/VEC) lanes (e.g. K = 32 floats: 8 lanes of
/// float4); each group takes 4 consecutive nonzeros, so a warp works on 4·32/G dot products at
/// once and its shuffles reduce 4 sums per step (the paper's shuffle coarsening factor rises
/// from 1/32 to 4·32/G /32). Any K runs (wider K loops over chunks of G·VEC).

#include "ops/cuda/sddmm/group_tile.cuh"

namespace spindle::detail::cuda {

template <class S, class I, class V, class T, int VEC>
__global__ void __launch_bounds__(256)
    sddmm_iir_kernel(SddmmArgs<I, V, T> a, int g_log2, bool ids_aligned) {
  sddmm_group_tile<S, I, V, T, VEC, 4, 1>(a, g_log2, ids_aligned);
}

template <class S, class I, class V, class T, int VEC>
void launch_sddmm_iir_vec(const SddmmArgs<I, V, T>& a, bool aligned, cudaStream_t stream) {
  const int G = sddmm_group_lanes(a.k, VEC);
  const std::int64_t groups = (a.nnz + 3) / 4;
  const auto grid = static_cast<unsigned>((groups * G + 255) / 256);
  sddmm_iir_kernel<S, I, V, T, VEC><<<grid, 256, 0, stream>>>(a, log2_int(G), aligned);
}

template <class S, class I, class V, class T>
void launch_sddmm_iir(const SddmmArgs<I, V, T>& a, cudaStream_t stream) {
  const bool aligned = reinterpret_cast<std::uintptr_t>(a.row_idx) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(a.col_idx) % 16 == 0;
  constexpr int kWide = static_cast<int>(16 / sizeof(T));
  if (sddmm_vec_for(a) == kWide) {
    launch_sddmm_iir_vec<S, I, V, T, kWide>(a, aligned, stream);
  } else {
    launch_sddmm_iir_vec<S, I, V, T, 1>(a, aligned, stream);
  }
}

}  // namespace spindle::detail::cuda
