// SPDX-License-Identifier: Apache-2.0
// The layout of column_segmented (ops/cuda/mxv/column_segmented.cuh), built on the device from
// the graph's device CSR: each row's entries counted per range of columns, the counts scanned in
// range-major order into the ranges' row offsets, then each row's entries copied to their
// range's place in the row's order. A thread owns a row through both passes (no atomics: the
// layout is the same on every run). Rows this long are rare on the graphs the planner gives the
// kernel (no row imbalance); a forced run on a skewed graph is only slower to build.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "ops/cuda/mxv/column_segmented.cuh"
#include "spindle/types.hpp"

namespace spindle::detail::cuda {
namespace {

constexpr int kBuildThreads = 256;

/// counts[s * rows + i] = the entries of row i in range s (counts zeroed before).
template <class I>
__global__ void segment_count_kernel(const I* __restrict__ row_ptr, const I* __restrict__ col,
                                     std::int64_t rows, std::int64_t width,
                                     I* __restrict__ counts) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  for (std::int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
    const std::int64_t s = static_cast<std::int64_t>(col[k]) / width;
    counts[s * rows + i] += 1;
  }
}

/// Each entry of row i to its range's next place (cursor starts as the ranges' offsets).
template <class I, class VV>
__global__ void segment_scatter_kernel(const I* __restrict__ row_ptr, const I* __restrict__ col,
                                       const VV* __restrict__ val, std::int64_t rows,
                                       std::int64_t width, I* __restrict__ cursor,
                                       I* __restrict__ out_col, VV* __restrict__ out_val) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  for (std::int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
    const I c = col[k];
    const std::int64_t s = static_cast<std::int64_t>(c) / width;
    const I pos = cursor[s * rows + i];
    cursor[s * rows + i] = pos + 1;
    out_col[pos] = c;
    if constexpr (!is_pattern_v<VV>) out_val[pos] = val[k];
  }
}

}  // namespace

template <class I, class VV>
void build_column_segments(const DeviceCsr<I, VV>& A, std::int64_t width, ColumnSegmentsSlot& out,
                           cudaStream_t st) {
  const std::int64_t rows = A.rows;
  const std::int64_t segments = column_segment_count(A.cols, width);
  const std::int64_t cells = segments * rows + 1;
  const char* what = "column_segmented layout";
  out.ptr = DeviceBuffer(static_cast<std::size_t>(cells) * sizeof(I), what);
  out.col =
      DeviceBuffer(static_cast<std::size_t>(std::max<std::int64_t>(A.nnz, 1)) * sizeof(I), what);
  if constexpr (!is_pattern_v<VV>) {
    out.val =
        DeviceBuffer(static_cast<std::size_t>(std::max<std::int64_t>(A.nnz, 1)) * sizeof(VV), what);
  }
  out.segments = segments;
  DeviceBuffer counts(static_cast<std::size_t>(cells) * sizeof(I), what);
  std::size_t scan_bytes = 0;
  SPINDLE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
      nullptr, scan_bytes, static_cast<const I*>(nullptr), static_cast<I*>(nullptr), cells, st));
  DeviceBuffer scan_temp(std::max<std::size_t>(scan_bytes, 1), what);
  SPINDLE_CUDA_CHECK(
      cudaMemsetAsync(counts.get(), 0, static_cast<std::size_t>(cells) * sizeof(I), st));
  const auto blocks = static_cast<unsigned>((rows + kBuildThreads - 1) / kBuildThreads);
  if (rows > 0) {
    segment_count_kernel<I>
        <<<blocks, kBuildThreads, 0, st>>>(A.row_ptr, A.col_idx, rows, width, counts.as<I>());
    SPINDLE_CUDA_CHECK_LAUNCH("segment_count_kernel");
  }
  SPINDLE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
      scan_temp.get(), scan_bytes, counts.as<const I>(), out.ptr.as<I>(), cells, st));
  if (rows > 0) {
    SPINDLE_CUDA_CHECK(cudaMemcpyAsync(counts.get(), out.ptr.get(),
                                       static_cast<std::size_t>(cells) * sizeof(I),
                                       cudaMemcpyDeviceToDevice, st));
    segment_scatter_kernel<I, VV><<<blocks, kBuildThreads, 0, st>>>(
        A.row_ptr, A.col_idx, A.values, rows, width, counts.as<I>(), out.col.as<I>(),
        is_pattern_v<VV> ? nullptr : out.val.as<VV>());
    SPINDLE_CUDA_CHECK_LAUNCH("segment_scatter_kernel");
  }
  // counts and scan_temp go back on return, stream-ordered (cudaFreeAsync) after the kernels.
}

#define SPINDLE_COLUMN_SEGMENTS_(I, VV)                                             \
  template void build_column_segments<I, VV>(const DeviceCsr<I, VV>&, std::int64_t, \
                                             ColumnSegmentsSlot&, cudaStream_t);
SPINDLE_COLUMN_SEGMENTS_(std::int32_t, Pattern)
SPINDLE_COLUMN_SEGMENTS_(std::int32_t, float)
SPINDLE_COLUMN_SEGMENTS_(std::int32_t, double)
SPINDLE_COLUMN_SEGMENTS_(std::int64_t, Pattern)
SPINDLE_COLUMN_SEGMENTS_(std::int64_t, float)
SPINDLE_COLUMN_SEGMENTS_(std::int64_t, double)
#undef SPINDLE_COLUMN_SEGMENTS_

}  // namespace spindle::detail::cuda
