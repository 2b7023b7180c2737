// SPDX-License-Identifier: Apache-2.0
// Graph::transpose() sorted on the device while a CUDA operation runs
// (spindle/detail/transpose_builder.hpp).
//
// A^T's row offsets are the column counts' exclusive scan. Its column indices and values come
// from a stable radix sort of the entry numbers k by column: entries are numbered in row order,
// so within a column they stay in increasing row order, which is what the host's counting sort
// gives. Each sorted k then yields its row (a binary search in A's offsets) and its value. The
// arrays are downloaded into the graph's host arrays, which are made while the device sorts, and
// the device arrays stay behind as the transpose's device copy, so the operation that asked for
// A^T uploads nothing more.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "engine/src/cuda/graph_device_adopt.hpp"
#include "engine/src/cuda/transfer.hpp"
#include "ops/cuda/common/column_degrees.cuh"
#include "ops/cuda/common/grid.hpp"
#include "spindle/detail/host_pages.hpp"
#include "spindle/detail/transpose_builder.hpp"
#include "spindle/error.hpp"

namespace spindle::detail {
namespace cuda {
namespace {

/// Graphs from this many entries on are transposed on the device; smaller ones on the host, where
/// a transpose takes a few ms at most and the device's launches, synchronisation and downloads
/// would cost about as much. apps/bench/experiments/device_transpose.cu on the H200 box (16
/// cores), pattern R-MAT graphs, host / device with A already on the device, ms: scale 18 (3.9 M
/// entries) 10-15 / 4.3-7.8, scale 20 (16 M) 44-58 / 16-17, scale 22 (65 M) 158-164 / 55-57; R-MAT
/// 22 with float values 222-248 / 102-108. (Smaller graphs were not measured.)
constexpr std::int64_t kDeviceTransposeMinEntries = std::int64_t{1} << 20;

/// out_col[p] = the row of entry perm[p] (the largest i with row_ptr[i] <= perm[p]), and with
/// values out_val[p] = val[perm[p]].
template <class I, class S>
__global__ void transpose_gather_kernel(const I* __restrict__ perm, std::int64_t nnz,
                                        const I* __restrict__ row_ptr, std::int64_t rows,
                                        const S* __restrict__ val, I* __restrict__ out_col,
                                        S* __restrict__ out_val) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < nnz;
       p += stride) {
    const I k = perm[p];
    std::int64_t lo = 0, hi = rows - 1;  // row_ptr[lo] <= k < row_ptr[hi + 1]
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (row_ptr[mid] <= k) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    out_col[p] = static_cast<I>(lo);
    if (val != nullptr) out_val[p] = val[k];
  }
}

/// Bits that hold every column id of a graph with `cols` columns.
int column_bits(std::int64_t cols) {
  int bits = 1;
  while (bits < 63 && (std::int64_t{1} << bits) < cols) ++bits;
  return bits;
}

template <class I, class V>
bool transpose_on_device(const Graph<I, V>& A, TransposeParts<I, V>& out) {
  using S = typename Graph<I, V>::stored_value_type;
  using U = ColumnDegree<I>;  // unsigned, I's width: counts, and the column ids as sort keys
  constexpr bool kValues = !Graph<I, V>::is_pattern;
  const std::int64_t rows = A.rows(), cols = A.cols(), nnz = A.nnz();
  if (nnz < kDeviceTransposeMinEntries) return false;
  const char* const what = "transposing a graph on the GPU";
  Context& ctx = context();
  const cudaStream_t st = ctx.stream;
  const auto n_bytes = static_cast<std::size_t>(nnz) * sizeof(I);
  const int end_bit = column_bits(cols);
  // Device memory first: when the GPU lacks room for A, the sort's buffers or the result, the host
  // builds the transpose as it would without CUDA.
  DeviceCsr<I, Pattern> d;
  const S* val = nullptr;
  DeviceBuffer counts, row_ptr, col, values, keys_out, ids, perm, scan_temp, sort_temp;
  std::size_t scan_bytes = 0, sort_bytes = 0;
  try {
    d = device_pattern(A);
    if constexpr (kValues) val = device_csr<V>(A).values;
    counts = DeviceBuffer((static_cast<std::size_t>(cols) + 1) * sizeof(U), what);
    row_ptr = DeviceBuffer((static_cast<std::size_t>(cols) + 1) * sizeof(I), what);
    col = DeviceBuffer(n_bytes, what);
    if constexpr (kValues) values = DeviceBuffer(static_cast<std::size_t>(nnz) * sizeof(S), what);
    keys_out = DeviceBuffer(static_cast<std::size_t>(nnz) * sizeof(U), what);
    ids = DeviceBuffer(n_bytes, what);
    perm = DeviceBuffer(n_bytes, what);
    SPINDLE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.as<const U>(),
                                                     row_ptr.as<I>(), cols + 1, st));
    SPINDLE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, sort_bytes, reinterpret_cast<const U*>(d.col_idx), keys_out.as<U>(),
        ids.as<const I>(), perm.as<I>(), nnz, 0, end_bit, st));
    scan_temp = DeviceBuffer(std::max<std::size_t>(scan_bytes, 1), what);
    sort_temp = DeviceBuffer(std::max<std::size_t>(sort_bytes, 1), what);
  } catch (const OutOfMemory&) {
    return false;
  }
  // Row offsets: counts per column (the last stays 0), scanned.
  SPINDLE_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, counts.bytes(), st));
  column_degree_kernel<I><<<grid_stride_blocks(nnz), 256, 0, st>>>(d.col_idx, nnz, counts.as<U>());
  SPINDLE_CUDA_CHECK_LAUNCH("column_degree_kernel");
  SPINDLE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
      scan_temp.get(), scan_bytes, counts.as<const U>(), row_ptr.as<I>(), cols + 1, st));
  // Entry numbers sorted by column (stable; column ids are never negative, so their bits sort
  // as unsigned), then each one's row and value.
  column_iota_kernel<I><<<grid_stride_blocks(nnz), 256, 0, st>>>(nnz, ids.as<I>());
  SPINDLE_CUDA_CHECK_LAUNCH("column_iota_kernel");
  SPINDLE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      sort_temp.get(), sort_bytes, reinterpret_cast<const U*>(d.col_idx), keys_out.as<U>(),
      ids.as<const I>(), perm.as<I>(), nnz, 0, end_bit, st));
  transpose_gather_kernel<I, S><<<grid_stride_blocks(nnz), 256, 0, st>>>(
      perm.as<const I>(), nnz, d.row_ptr, rows, val, col.as<I>(), values.as<S>());
  SPINDLE_CUDA_CHECK_LAUNCH("transpose_gather_kernel");
  // The work above is freed in stream order; the host arrays are made while it runs.
  for (DeviceBuffer* b : {&counts, &keys_out, &ids, &perm, &scan_temp, &sort_temp}) {
    *b = DeviceBuffer();
  }
  out.row_ptr = large_workspace<I>(static_cast<std::size_t>(cols) + 1, "transpose: row_ptr");
  out.col_idx = large_workspace<I>(static_cast<std::size_t>(nnz), "transpose: col_idx");
  if constexpr (kValues) {
    out.values = large_workspace<S>(static_cast<std::size_t>(nnz), "transpose: values");
  }
  copy_to_host(out.row_ptr.data(), row_ptr.get(), row_ptr.bytes(), st);
  copy_to_host(out.col_idx.data(), col.get(), n_bytes, st);
  if constexpr (kValues) copy_to_host(out.values.data(), values.get(), values.bytes(), st);
  out.extensions.push_back(adopted_structure<I>(std::move(row_ptr), std::move(col)));
  if constexpr (kValues) out.extensions.push_back(adopted_values<S>(std::move(values)));
  return true;
}

class CudaTransposeBuilder final : public TransposeBuilder {
 public:
  bool build(const Graph<std::int32_t, float>& A,
             TransposeParts<std::int32_t, float>& out) override {
    return transpose_on_device(A, out);
  }
  bool build(const Graph<std::int32_t, double>& A,
             TransposeParts<std::int32_t, double>& out) override {
    return transpose_on_device(A, out);
  }
  bool build(const Graph<std::int32_t, Pattern>& A,
             TransposeParts<std::int32_t, Pattern>& out) override {
    return transpose_on_device(A, out);
  }
  bool build(const Graph<std::int64_t, float>& A,
             TransposeParts<std::int64_t, float>& out) override {
    return transpose_on_device(A, out);
  }
  bool build(const Graph<std::int64_t, double>& A,
             TransposeParts<std::int64_t, double>& out) override {
    return transpose_on_device(A, out);
  }
  bool build(const Graph<std::int64_t, Pattern>& A,
             TransposeParts<std::int64_t, Pattern>& out) override {
    return transpose_on_device(A, out);
  }
};

}  // namespace
}  // namespace cuda

TransposeBuilder* cuda_transpose_builder() noexcept {
  static cuda::CudaTransposeBuilder builder;
  return &builder;
}

}  // namespace spindle::detail
