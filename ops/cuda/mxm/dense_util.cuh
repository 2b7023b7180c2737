// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file dense_util.cuh
/// @brief The definitions of dense_util.hpp's passes (included by dense_util.cu only).

#include "ops/cuda/mxm/dense_util.hpp"
#include "spindle/cuda/kernels/output.cuh"
#include "spindle/detail/mix.hpp"

namespace spindle::detail::cuda {

/// out (cols x rows) = in (rows x cols)ᵀ, both row-major, through 32x32 shared tiles (padded by
/// one element so the column reads do not hit one bank).
template <class T>
__global__ void transpose_kernel(const T* __restrict__ in, std::int64_t rows, std::int64_t cols,
                                 T* __restrict__ out) {
  __shared__ T tile[32][33];
  const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.y) * 32;
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.x) * 32;
  for (int i = threadIdx.y; i < 32; i += blockDim.y) {
    const std::int64_t r = r0 + i;
    const std::int64_t c = c0 + threadIdx.x;
    if (r < rows && c < cols) tile[i][threadIdx.x] = in[r * cols + c];
  }
  __syncthreads();
  for (int i = threadIdx.y; i < 32; i += blockDim.y) {
    const std::int64_t c = c0 + i;
    const std::int64_t r = r0 + threadIdx.x;
    if (r < rows && c < cols) out[c * rows + r] = tile[threadIdx.x][i];
  }
}

template <class T>
void launch_transpose(const T* in, std::int64_t rows, std::int64_t cols, T* out,
                      cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid(static_cast<unsigned>((cols + 31) / 32), static_cast<unsigned>((rows + 31) / 32));
  transpose_kernel<T><<<grid, block, 0, stream>>>(in, rows, cols, out);
}

/// c(i, n) = accum(c(i, n), act(t(i, n) + bias[n])) elementwise over rows x n.
template <class T>
__global__ void epilogue_pass_kernel(const T* __restrict__ t, std::int64_t rows, std::int64_t n,
                                     T* __restrict__ c, std::int64_t ldc, DenseEpilogue<T> e) {
  const std::int64_t total = rows * n;
  for (std::int64_t x = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; x < total;
       x += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t i = x / n;
    const std::int64_t col = x - i * n;
    store_finished(e, c + i * ldc + col, t[x], col);
  }
}

template <class T>
void launch_epilogue_pass(const T* t, std::int64_t rows, std::int64_t n, T* c, std::int64_t ldc,
                          const DenseEpilogue<T>& e, cudaStream_t stream) {
  const std::int64_t total = rows * n;
  std::int64_t blocks = (total + 255) / 256;
  if (blocks > 65536) blocks = 65536;
  if (blocks < 1) blocks = 1;
  epilogue_pass_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(t, rows, n, c, ldc, e);
}

/// Deterministic pseudo-random values in [-1, 1) (tuning operands: timing on zeros would
/// flatter some kernels).
template <class T>
__global__ void fill_random_kernel(T* __restrict__ p, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t x = mix64(seed * kGolden + static_cast<std::uint64_t>(i));
    p[i] = static_cast<T>(unit_interval(x) * 2.0 - 1.0);
  }
}

template <class T>
void launch_fill_random(T* p, std::int64_t n, std::uint64_t seed, cudaStream_t stream) {
  fill_random_kernel<T><<<1024, 256, 0, stream>>>(p, n, seed);
}

}  // namespace spindle::detail::cuda
