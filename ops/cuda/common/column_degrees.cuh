// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file column_degrees.cuh
/// @brief Column in-degrees on the device and their decreasing sort: the first steps of the mxv
/// column relabelling (ops/cuda/mxv/partition.cu) and of the device transpose.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cub/device/device_radix_sort.cuh>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "ops/cuda/common/grid.hpp"

namespace spindle::detail::cuda {

/// The degree counter for index type I: unsigned, of I's width (atomicAdd has no signed 64-bit
/// form; a column's degree never exceeds nnz, which fits I's range).
template <class I>
using ColumnDegree = std::conditional_t<sizeof(I) == 4, unsigned, unsigned long long>;

/// deg[col[k]] += 1 for every k (atomic adds of integers: the order does not matter).
template <class I>
__global__ void column_degree_kernel(const I* __restrict__ col, std::int64_t nnz,
                                     ColumnDegree<I>* deg) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
       k += stride) {
    atomicAdd(deg + col[k], ColumnDegree<I>{1});
  }
}

template <class I>
__global__ void column_iota_kernel(std::int64_t n, I* ids) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
       j += stride) {
    ids[j] = static_cast<I>(j);
  }
}

/// Enqueues on `stream`: deg[j] = the number of entries in column j, for j < n (deg is
/// overwritten; counters past the largest column id stay 0).
template <class I>
void count_column_degrees(const I* col_idx, std::int64_t nnz, std::int64_t n, ColumnDegree<I>* deg,
                          cudaStream_t stream) {
  if (n <= 0) return;
  SPINDLE_CUDA_CHECK(
      cudaMemsetAsync(deg, 0, static_cast<std::size_t>(n) * sizeof(ColumnDegree<I>), stream));
  if (nnz > 0) {
    column_degree_kernel<I><<<grid_stride_blocks(nnz), 256, 0, stream>>>(col_idx, nnz, deg);
    SPINDLE_CUDA_CHECK_LAUNCH("column_degree_kernel");
  }
}

/// Enqueues on `stream` (the context's stream: temporaries are freed stream-ordered on it):
/// deg[j] = the number of entries in column j, for the cols columns (deg is overwritten), and
/// sorted = deg in decreasing order. With `ids` given, ids[p] = the column whose degree is
/// sorted[p]; the sort is stable, so columns of one degree keep ascending ids (deterministic).
template <class I>
void sort_column_degrees(const I* col_idx, std::int64_t nnz, std::int64_t cols,
                         ColumnDegree<I>* deg, ColumnDegree<I>* sorted, I* ids, const char* what,
                         cudaStream_t stream) {
  using U = ColumnDegree<I>;
  if (cols <= 0) return;
  count_column_degrees<I>(col_idx, nnz, cols, deg, stream);
  const int bits = static_cast<int>(sizeof(U) * 8);
  std::size_t temp_bytes = 0;
  if (ids == nullptr) {
    SPINDLE_CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(nullptr, temp_bytes, deg, sorted,
                                                                cols, 0, bits, stream));
    DeviceBuffer temp(std::max<std::size_t>(temp_bytes, 1), what);
    SPINDLE_CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(temp.get(), temp_bytes, deg, sorted,
                                                                cols, 0, bits, stream));
    return;
  }
  DeviceBuffer iota(static_cast<std::size_t>(cols) * sizeof(I), what);
  column_iota_kernel<I><<<grid_stride_blocks(cols), 256, 0, stream>>>(cols, iota.as<I>());
  SPINDLE_CUDA_CHECK_LAUNCH("column_iota_kernel");
  SPINDLE_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
      nullptr, temp_bytes, deg, sorted, iota.as<const I>(), ids, cols, 0, bits, stream));
  DeviceBuffer temp(std::max<std::size_t>(temp_bytes, 1), what);
  SPINDLE_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
      temp.get(), temp_bytes, deg, sorted, iota.as<const I>(), ids, cols, 0, bits, stream));
}

}  // namespace spindle::detail::cuda
