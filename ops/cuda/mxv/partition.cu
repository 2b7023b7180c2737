// SPDX-License-Identifier: Apache-2.0
// Cached work partitions of the load-balanced mxv kernels (see partition.hpp).
#include "ops/cuda/mxv/partition.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "ops/cuda/common/column_degrees.cuh"
#include "ops/cuda/mxv/column_relabel_order.hpp"
#include "ops/cuda/mxv/merge_path.cuh"
#include "ops/cuda/mxv/nnz_split_segmented.cuh"
#include "ops/cuda/mxv/row_block_warp.cuh"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {
namespace {

struct PartitionSlot : ExtensionSlot {
  DeviceBuffer a;
  DeviceBuffer b;
  std::int64_t count = 0;
  std::int64_t pieces = 0;  // row_block: partials of the long rows
  std::int64_t n_long = 0;  // row_block: rows cut into pieces
  std::int64_t used = 0;    // column_relabel: columns with at least one entry
};

template <class I>
__global__ void row_presence_kernel(const I* row_ptr, std::int64_t rows, std::uint8_t* present) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < rows) present[i] = row_ptr[i + 1] > row_ptr[i] ? 1 : 0;
}

}  // namespace

template <class I, class V>
NnzSplitPartition nnz_split_partition(const Graph<I, V>& A, std::int64_t chunk) {
  const std::int64_t nnz = A.nnz();
  const std::int64_t chunks = (nnz + chunk - 1) / chunk;
  const auto& slot =
      A.template extension<PartitionSlot>("cuda.mxv.nnz_split." + std::to_string(chunk), [&] {
        const DeviceCsr<I, Pattern> d = device_pattern(A);
        auto s = std::make_unique<PartitionSlot>();
        s->count = chunks;
        s->a = DeviceBuffer(static_cast<std::size_t>(chunks) * sizeof(std::int64_t),
                            "nnz_split partition");
        if (chunks > 0) {
          const std::int64_t blocks = (chunks + 255) / 256;
          nnz_split_partition_kernel<<<static_cast<unsigned>(blocks), 256, 0, context().stream>>>(
              d.row_ptr, d.rows, chunk, chunks, s->a.template as<std::int64_t>());
          SPINDLE_CUDA_CHECK_LAUNCH("nnz_split_partition_kernel");
        }
        return s;
      });
  NnzSplitPartition p;
  p.chunk = chunk;
  p.chunks = slot.count;
  p.chunk_row = slot.a.template as<const std::int64_t>();
  return p;
}

template <class I, class V>
MergePathPartition merge_path_partition(const Graph<I, V>& A, int k_items) {
  const std::int64_t items = static_cast<std::int64_t>(merge_path::kBlock) * k_items;
  const std::int64_t total = static_cast<std::int64_t>(A.rows()) + A.nnz();
  const std::int64_t tiles = (total + items - 1) / items;
  const auto& slot =
      A.template extension<PartitionSlot>("cuda.mxv.merge_path." + std::to_string(k_items), [&] {
        const DeviceCsr<I, Pattern> d = device_pattern(A);
        auto s = std::make_unique<PartitionSlot>();
        s->count = tiles;
        const std::size_t bytes = static_cast<std::size_t>(tiles + 1) * sizeof(std::int64_t);
        s->a = DeviceBuffer(bytes, "merge_path partition");
        s->b = DeviceBuffer(bytes, "merge_path partition");
        const std::int64_t blocks = (tiles + 1 + 255) / 256;
        merge_path_partition_kernel<<<static_cast<unsigned>(blocks), 256, 0, context().stream>>>(
            d.row_ptr, d.rows, d.nnz, items, tiles, s->a.template as<std::int64_t>(),
            s->b.template as<std::int64_t>());
        SPINDLE_CUDA_CHECK_LAUNCH("merge_path_partition_kernel");
        return s;
      });
  MergePathPartition p;
  p.k_items = k_items;
  p.tiles = slot.count;
  p.tile_x = slot.a.template as<const std::int64_t>();
  p.tile_y = slot.b.template as<const std::int64_t>();
  return p;
}

namespace {

/// Uploads a row_block partition (block or warp form) into a cache slot.
std::unique_ptr<PartitionSlot> upload_row_blocks(const RowBlocks& rb, const char* what) {
  if (rb.pieces > INT32_MAX) {
    throw Unsupported(std::string(what) + ": " + std::to_string(rb.pieces) +
                      " row pieces do not fit the partition's 32-bit slots");
  }
  auto s = std::make_unique<PartitionSlot>();
  s->count = static_cast<std::int64_t>(rb.desc.size());
  s->pieces = rb.pieces;
  s->n_long = static_cast<std::int64_t>(rb.longs.size());
  Context& ctx = context();
  s->a = upload_async(rb.desc, what, ctx.stream);
  s->b = upload_async(rb.longs, what, ctx.stream);
  ctx.synchronize();  // the host vectors die here
  return s;
}

RowBlockPartition row_blocks_of(const PartitionSlot& slot, int block_threads) {
  RowBlockPartition p;
  p.block_threads = block_threads;
  p.blocks = slot.count;
  p.desc = slot.a.template as<const RowBlockDesc>();
  p.n_long = slot.n_long;
  p.longs = slot.b.template as<const RowBlockLong>();
  p.pieces = slot.pieces;
  return p;
}

}  // namespace

template <class I, class V>
RowBlockPartition row_block_partition(const Graph<I, V>& A, int block_threads,
                                      std::int64_t long_factor, std::int64_t long_len) {
  const auto& slot = A.template extension<PartitionSlot>(
      "cuda.mxv.row_block." + std::to_string(block_threads) + "." + std::to_string(long_factor) +
          (long_len > 0 ? "." + std::to_string(long_len) : std::string()),
      [&] {
        return upload_row_blocks(
            build_row_blocks(A.row_ptr().data(), A.rows(), block_threads, long_factor, long_len),
            "row_block partition");
      });
  return row_blocks_of(slot, block_threads);
}

template <class I, class V>
RowBlockPartition row_block_warp_partition(const Graph<I, V>& A) {
  const auto& slot = A.template extension<PartitionSlot>("cuda.mxv.row_block_warp", [&] {
    return upload_row_blocks(build_row_block_warps(A.row_ptr().data(), A.rows()),
                             "row_block (warp form) partition");
  });
  return row_blocks_of(slot, kRowBlockWarpWarps * 32);
}

template <class I, class V>
RowBlockPartition row_block_warp_run_partition(const Graph<I, V>& A) {
  const auto& slot = A.template extension<PartitionSlot>("cuda.mxv.row_block_warp_runs", [&] {
    return upload_row_blocks(build_row_block_warp_runs(A.row_ptr().data(), A.rows()),
                             "row_block (warp form, runs) partition");
  });
  return row_blocks_of(slot, kRowBlockWarpWarps * 32);
}

namespace {

static_assert(kColumnRelabelHot == row_block_warp_hot_entries<float>(),
              "the relabelling's in-degree prefix is the runs kernel's fp32 hot copy");

/// inv[perm[p]] = p; used = 1 + the last position whose (sorted, decreasing) degree is > 0 (the
/// first-use sort of the cold columns keeps the columns without entries last, so the columns
/// with entries are still perm[0, used)).
template <class I>
__global__ void relabel_invert_kernel(const I* perm, const ColumnDegree<I>* sorted_deg,
                                      std::int64_t n, I* inv, std::int64_t* used) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < n;
       p += stride) {
    inv[perm[p]] = static_cast<I>(p);
    if (sorted_deg[p] > 0 && (p + 1 == n || sorted_deg[p + 1] == 0)) *used = p + 1;
  }
}

/// first[col[k]] = the smallest such k (first is all ones before: columns without entries keep
/// it). Integer minima, so the order of the atomics does not matter. The plain read first skips
/// the atomic once a smaller k is in (a hub column has hundreds of thousands of entries); a stale
/// read only costs an atomic that changes nothing.
template <class I>
__global__ void first_use_kernel(const I* col, std::int64_t nnz, ColumnDegree<I>* first) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
       k += stride) {
    const auto key = static_cast<ColumnDegree<I>>(k);
    ColumnDegree<I>* slot = first + col[k];
    if (*slot > key) atomicMin(slot, key);
  }
}

/// keys[p] = first[ids[p]] for the n columns ids[0, n).
template <class I>
__global__ void first_use_keys_kernel(const I* ids, const ColumnDegree<I>* first, std::int64_t n,
                                      ColumnDegree<I>* keys) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < n;
       p += stride) {
    keys[p] = first[ids[p]];
  }
}

template <class I>
__global__ void relabel_columns_kernel(const I* col, std::int64_t nnz, const I* inv, I* out) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
       k += stride) {
    out[k] = inv[col[k]];
  }
}

/// ids[kColumnRelabelHot, cols) (columns in decreasing in-degree) re-sorted by each column's
/// first entry in A's entry order; `first` (cols counters, overwritten) and `scratch` (cols ids)
/// are workspace. Columns without entries keep the all-ones key: stable, they stay last, in the
/// order they had. Enqueued on `st` (the context's stream).
template <class I>
void sort_cold_columns_by_first_use(const I* col_idx, std::int64_t nnz, std::int64_t cols,
                                    ColumnDegree<I>* first, I* ids, I* scratch, cudaStream_t st) {
  using U = ColumnDegree<I>;
  const std::int64_t cold = cols - kColumnRelabelHot;
  if (cold <= 1 || nnz == 0) return;
  SPINDLE_CUDA_CHECK(cudaMemsetAsync(first, 0xFF, static_cast<std::size_t>(cols) * sizeof(U), st));
  first_use_kernel<I><<<grid_stride_blocks(nnz), 256, 0, st>>>(col_idx, nnz, first);
  SPINDLE_CUDA_CHECK_LAUNCH("first_use_kernel");
  const std::size_t key_bytes = static_cast<std::size_t>(cold) * sizeof(U);
  DeviceBuffer keys(key_bytes, "mxv column relabel"), keys_sorted(key_bytes, "mxv column relabel");
  I* const cold_ids = ids + kColumnRelabelHot;
  first_use_keys_kernel<I>
      <<<grid_stride_blocks(cold), 256, 0, st>>>(cold_ids, first, cold, keys.as<U>());
  SPINDLE_CUDA_CHECK_LAUNCH("first_use_keys_kernel");
  std::size_t temp_bytes = 0;
  const int bits = static_cast<int>(sizeof(U) * 8);
  SPINDLE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.as<const U>(),
                                                     keys_sorted.as<U>(), cold_ids, scratch, cold,
                                                     0, bits, st));
  DeviceBuffer temp(std::max<std::size_t>(temp_bytes, 1), "mxv column relabel");
  SPINDLE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, keys.as<const U>(),
                                                     keys_sorted.as<U>(), cold_ids, scratch, cold,
                                                     0, bits, st));
  SPINDLE_CUDA_CHECK(cudaMemcpyAsync(cold_ids, scratch, static_cast<std::size_t>(cold) * sizeof(I),
                                     cudaMemcpyDeviceToDevice, st));
}

}  // namespace

template <class I, class V>
ColumnRelabel column_relabel(const Graph<I, V>& A) {
  const auto& slot = A.template extension<PartitionSlot>("cuda.mxv.column_relabel", [&] {
    // On the device: in-degrees (atomic counts: integers, so the order of the adds does not
    // matter), a stable radix sort of the column ids by decreasing in-degree (ids ascend within a
    // degree: deterministic), then the columns past the hottest kColumnRelabelHot re-sorted by
    // their first entry (first use; columns without entries keep their place at the end), the
    // inverse, and the column indices mapped through it. Every step is deterministic.
    const std::int64_t cols = A.cols(), nnz = A.nnz();
    const DeviceCsr<I, Pattern> d = device_pattern(A);
    Context& ctx = context();
    const cudaStream_t st = ctx.stream;
    const std::size_t n_bytes =
        static_cast<std::size_t>(std::max<std::int64_t>(cols, 1)) * sizeof(I);
    const std::size_t deg_bytes =
        static_cast<std::size_t>(std::max<std::int64_t>(cols, 1)) * sizeof(ColumnDegree<I>);
    DeviceBuffer deg(deg_bytes, "mxv column relabel"), deg_sorted(deg_bytes, "mxv column relabel");
    DeviceBuffer inv(n_bytes, "mxv column relabel");
    DeviceBuffer used(sizeof(std::int64_t), "mxv column relabel");
    auto s = std::make_unique<PartitionSlot>();
    s->a = DeviceBuffer(static_cast<std::size_t>(std::max<std::int64_t>(nnz, 1)) * sizeof(I),
                        "mxv column relabel");
    s->b = DeviceBuffer(n_bytes, "mxv column relabel");
    SPINDLE_CUDA_CHECK(cudaMemsetAsync(used.get(), 0, sizeof(std::int64_t), st));
    if (cols > 0) {
      sort_column_degrees<I>(d.col_idx, nnz, cols, deg.as<ColumnDegree<I>>(),
                             deg_sorted.as<ColumnDegree<I>>(), s->b.as<I>(), "mxv column relabel",
                             st);
      sort_cold_columns_by_first_use<I>(d.col_idx, nnz, cols, deg.as<ColumnDegree<I>>(),
                                        s->b.as<I>(), inv.as<I>(), st);
      relabel_invert_kernel<<<grid_stride_blocks(cols), 256, 0, st>>>(
          s->b.as<const I>(), deg_sorted.as<const ColumnDegree<I>>(), cols, inv.as<I>(),
          used.as<std::int64_t>());
      SPINDLE_CUDA_CHECK_LAUNCH("relabel_invert_kernel");
    }
    if (nnz > 0) {
      relabel_columns_kernel<<<grid_stride_blocks(nnz), 256, 0, st>>>(
          d.col_idx, nnz, inv.as<const I>(), s->a.as<I>());
      SPINDLE_CUDA_CHECK_LAUNCH("relabel_columns_kernel");
    }
    std::int64_t used_host = 0;
    SPINDLE_CUDA_CHECK(
        cudaMemcpyAsync(&used_host, used.get(), sizeof used_host, cudaMemcpyDeviceToHost, st));
    ctx.synchronize();  // the temporaries die here; used_host is read below
    s->count = cols;
    s->used = used_host;
    return s;
  });
  return {slot.a.get(), slot.b.get(), slot.used};
}

template <class I, class V>
const std::uint8_t* row_presence_bytes(const Graph<I, V>& A) {
  const auto& slot = A.template extension<PartitionSlot>("cuda.mxv.row_presence", [&] {
    const std::int64_t rows = A.rows();
    auto s = std::make_unique<PartitionSlot>();
    s->a =
        DeviceBuffer(static_cast<std::size_t>(std::max<std::int64_t>(rows, 1)), "mxv row presence");
    if (rows > 0) {
      Context& ctx = context();
      row_presence_kernel<<<static_cast<unsigned>((rows + 255) / 256), 256, 0, ctx.stream>>>(
          device_pattern(A).row_ptr, rows, s->a.as<std::uint8_t>());
      SPINDLE_CUDA_CHECK_LAUNCH("row_presence_kernel");
      ctx.synchronize();
    }
    s->count = rows;
    return s;
  });
  return static_cast<const std::uint8_t*>(slot.a.get());
}

#define SPINDLE_PARTITION_(I, V)                                                              \
  template NnzSplitPartition nnz_split_partition<I, V>(const Graph<I, V>&, std::int64_t);     \
  template MergePathPartition merge_path_partition<I, V>(const Graph<I, V>&, int);            \
  template ColumnRelabel column_relabel<I, V>(const Graph<I, V>&);                            \
  template RowBlockPartition row_block_partition<I, V>(const Graph<I, V>&, int, std::int64_t, \
                                                       std::int64_t);                         \
  template RowBlockPartition row_block_warp_partition<I, V>(const Graph<I, V>&);              \
  template RowBlockPartition row_block_warp_run_partition<I, V>(const Graph<I, V>&);          \
  template const std::uint8_t* row_presence_bytes<I, V>(const Graph<I, V>&);

SPINDLE_PARTITION_(std::int32_t, float)
SPINDLE_PARTITION_(std::int32_t, double)
SPINDLE_PARTITION_(std::int32_t, Pattern)
SPINDLE_PARTITION_(std::int64_t, float)
SPINDLE_PARTITION_(std::int64_t, double)
SPINDLE_PARTITION_(std::int64_t, Pattern)

}  // namespace spindle::detail::cuda
