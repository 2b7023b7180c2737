// SPDX-License-Identifier: Apache-2.0
// Graph::transpose() sorted on the device while a CUDA operation runs
// (spindle/detail/transpose_builder.hpp).
//
// A^T's row offsets are the column counts' exclusive scan. Its column indices come from a stable
// radix sort by column of each entry's row (a pattern graph sorts the rows themselves; a valued
// one sorts the entry numbers and gathers rows and values through them): entries are in row
// order, so within a column they stay in increasing row order, which is what the host's counting
// sort gives. The arrays are downloaded into the graph's host arrays, which are made while the
// device sorts, and the device arrays stay behind as the transpose's device copy, so the
// operation that asked for A^T uploads nothing more.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "engine/src/cuda/graph_device_adopt.hpp"
#include "engine/src/cuda/transfer.hpp"
#include "ops/cuda/common/column_degrees.cuh"
#include "ops/cuda/common/grid.hpp"
#include "ops/cuda/mxm/coo_rows.cuh"
#include "spindle/detail/host_pages.hpp"
#include "spindle/detail/transpose_builder.hpp"
#include "spindle/error.hpp"

namespace spindle::detail {
namespace cuda {
namespace {

/// Graphs from this many entries on are transposed on the device; smaller ones on the host, where
/// a transpose takes a few ms at most and the device's launches, synchronisation and downloads
/// would cost about as much. Measured on the H200 box (16
/// cores), pattern R-MAT graphs, host / device with A already on the device, ms: scale 16 (0.96 M
/// entries, under this threshold: the host's build) 4-9; scale 18 (3.9 M) 10-13 / 4.0-6.2, scale
/// 20 (16 M) 38-44 / 15-16, scale 22 (65 M) 139-160 / 50-52; R-MAT 22 with float values 244-263
/// / 106-115.
constexpr std::int64_t kDeviceTransposeMinEntries = std::int64_t{1} << 20;

/// out_col[p] = row_of[perm[p]] and out_val[p] = val[perm[p]]: a valued graph's rows and values
/// in the sorted order.
template <class I, class S>
__global__ void transpose_gather_kernel(const I* __restrict__ perm, std::int64_t nnz,
                                        const I* __restrict__ row_of, const S* __restrict__ val,
                                        I* __restrict__ out_col, S* __restrict__ out_val) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < nnz;
       p += stride) {
    const I k = perm[p];
    out_col[p] = row_of[k];
    out_val[p] = val[k];
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
  const auto n = static_cast<std::size_t>(nnz);
  const int end_bit = column_bits(cols);
  // Sizes first (cub's queries read no data). Pattern graphs sort each entry's row by its column
  // straight into A^T's column indices; valued ones sort the entry numbers and gather rows and
  // values through them.
  std::size_t scan_bytes = 0, sort_bytes = 0;
  SPINDLE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
      nullptr, scan_bytes, static_cast<const U*>(nullptr), static_cast<I*>(nullptr), cols + 1, st));
  SPINDLE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      nullptr, sort_bytes, static_cast<const U*>(nullptr), static_cast<U*>(nullptr),
      static_cast<const I*>(nullptr), static_cast<I*>(nullptr), nnz, 0, end_bit, st));
  // Everything the build holds at once (A's structure counted even when it is already on the
  // device): when the GPU has not that much free, the host builds the transpose, as it would
  // without CUDA, instead of failing an operation that the host's build lets run. Allocations
  // that fail all the same throw OutOfMemory as everywhere else.
  const std::uint64_t n64 = n, rows1 = static_cast<std::uint64_t>(rows) + 1,
                      cols1 = static_cast<std::uint64_t>(cols) + 1;
  const std::uint64_t need =
      (rows1 + n64 + cols1 + 2 * n64 + (kValues ? 2 * n64 : 0)) * sizeof(I) +  // A, A^T, rows, ids
      (cols1 + n64) * sizeof(U) + (kValues ? 2 * n64 * sizeof(S) : 0) + scan_bytes + sort_bytes;
  try {
    check_device_memory(need, what);
  } catch (const OutOfMemory&) {
    return false;
  }
  const DeviceCsr<I, Pattern> d = device_pattern(A);
  // A's values, when it has them, go up for this build only (the pull over A^T reads A^T's).
  DeviceBuffer a_values;
  if constexpr (kValues) {
    a_values = DeviceBuffer(n * sizeof(S), what);
    copy_to_device(a_values.get(), A.values().data(), n * sizeof(S), st);
    count_graph_upload(n * sizeof(S));
  }
  DeviceBuffer counts((static_cast<std::size_t>(cols) + 1) * sizeof(U), what);
  DeviceBuffer row_ptr((static_cast<std::size_t>(cols) + 1) * sizeof(I), what);
  DeviceBuffer col(n * sizeof(I), what);
  DeviceBuffer values(kValues ? n * sizeof(S) : 0, what);
  DeviceBuffer row_of(n * sizeof(I), what), keys_out(n * sizeof(U), what);
  DeviceBuffer scan_temp(std::max<std::size_t>(scan_bytes, 1), what);
  DeviceBuffer sort_temp(std::max<std::size_t>(sort_bytes, 1), what);
  // Row offsets: counts per column (the last stays 0), scanned.
  count_column_degrees<I>(d.col_idx, nnz, cols + 1, counts.as<U>(), st);
  SPINDLE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
      scan_temp.get(), scan_bytes, counts.as<const U>(), row_ptr.as<I>(), cols + 1, st));
  // Each entry's row (coo_rows.cuh), then the stable sort by column (column ids are never
  // negative, so their bits sort as unsigned; entries of a column stay in row order, the host's).
  expand_rows_kernel<I><<<static_cast<unsigned>((rows * 32 + 255) / 256), 256, 0, st>>>(
      d.row_ptr, rows, row_of.as<I>());
  SPINDLE_CUDA_CHECK_LAUNCH("expand_rows_kernel");
  const auto* keys_in = reinterpret_cast<const U*>(d.col_idx);
  if constexpr (!kValues) {
    SPINDLE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_temp.get(), sort_bytes, keys_in,
                                                       keys_out.as<U>(), row_of.as<const I>(),
                                                       col.as<I>(), nnz, 0, end_bit, st));
  } else {
    DeviceBuffer ids(n * sizeof(I), what), perm(n * sizeof(I), what);
    column_iota_kernel<I><<<grid_stride_blocks(nnz), 256, 0, st>>>(nnz, ids.as<I>());
    SPINDLE_CUDA_CHECK_LAUNCH("column_iota_kernel");
    SPINDLE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_temp.get(), sort_bytes, keys_in,
                                                       keys_out.as<U>(), ids.as<const I>(),
                                                       perm.as<I>(), nnz, 0, end_bit, st));
    transpose_gather_kernel<I, S><<<grid_stride_blocks(nnz), 256, 0, st>>>(
        perm.as<const I>(), nnz, row_of.as<const I>(), a_values.as<const S>(), col.as<I>(),
        values.as<S>());
    SPINDLE_CUDA_CHECK_LAUNCH("transpose_gather_kernel");
  }
  // The work above is freed in stream order; the host arrays are made while it runs.
  for (DeviceBuffer* b : {&a_values, &counts, &row_of, &keys_out, &scan_temp, &sort_temp}) {
    *b = DeviceBuffer();
  }
  out.row_ptr = large_workspace<I>(static_cast<std::size_t>(cols) + 1, "transpose: row_ptr");
  out.col_idx = large_workspace<I>(n, "transpose: col_idx");
  if constexpr (kValues) out.values = large_workspace<S>(n, "transpose: values");
  copy_to_host(out.row_ptr.data(), row_ptr.get(), row_ptr.bytes(), st);
  copy_to_host(out.col_idx.data(), col.get(), n * sizeof(I), st);
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
