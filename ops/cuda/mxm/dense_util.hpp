// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file dense_util.hpp
/// @brief Small dense passes around the SpMM / SDDMM kernels (dense_util.cuh; instantiated for
/// float and double in dense_util.cu): an out-of-place transpose (transpose_b), the epilogue
/// applied to a finished product (cuSPARSE has none) and random operands for tuning.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "spindle/cuda/device_views.hpp"

namespace spindle::detail::cuda {

/// out (cols x rows) = in (rows x cols)ᵀ, both row-major.
template <class T>
void launch_transpose(const T* in, std::int64_t rows, std::int64_t cols, T* out,
                      cudaStream_t stream);

/// c(i, n) = accum(c(i, n), act(t(i, n) + bias[n])) elementwise over rows x n.
template <class T>
void launch_epilogue_pass(const T* t, std::int64_t rows, std::int64_t n, T* c, std::int64_t ldc,
                          const DenseEpilogue<T>& e, cudaStream_t stream);

/// Deterministic pseudo-random values in [-1, 1) (tuning operands: timing on zeros would
/// flatter some kernels).
template <class T>
void launch_fill_random(T* p, std::int64_t n, std::uint64_t seed, cudaStream_t stream);

}  // namespace spindle::detail::cuda
