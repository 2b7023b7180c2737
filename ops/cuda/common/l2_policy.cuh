// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file l2_policy.cuh
/// @brief L2 eviction policies for loads with a cache hint (`ld.global...L2::cache_hint`), shared
/// by the mxv gathers of u (ops/cuda/mxv/mxv_args.cuh) and the SpMM gathers of B's cold rows
/// (ops/cuda/mxm/spmm_common.cuh). sm_80 and newer; 0 (no policy) before.

namespace spindle::detail::cuda {

/// A policy that lets the line leave L2 first. Non-volatile asm: the compiler hoists it out of
/// loops.
__device__ __forceinline__ unsigned long long l2_policy_evict_first() {
  unsigned long long p = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
#endif
  return p;
}

/// A policy that keeps the line in L2 longest.
__device__ __forceinline__ unsigned long long l2_policy_evict_last() {
  unsigned long long p = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
#endif
  return p;
}

}  // namespace spindle::detail::cuda
