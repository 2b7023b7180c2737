// SPDX-License-Identifier: Apache-2.0
// Cached work partitions of the load-balanced mxv kernels (see partition.hpp).
#include "ops/cuda/mxv/partition.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "ops/cuda/mxv/merge_path.cuh"
#include "ops/cuda/mxv/nnz_split_segmented.cuh"

namespace spindle::detail::cuda {
namespace {

struct PartitionSlot : ExtensionSlot {
  DeviceBuffer a;
  DeviceBuffer b;
  std::int64_t count = 0;
};

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

template <class I, class V>
ColumnRelabel column_relabel(const Graph<I, V>& A) {
  const auto& slot = A.template extension<PartitionSlot>("cuda.mxv.column_relabel", [&] {
    const std::int64_t cols = A.cols(), nnz = A.nnz();
    const std::vector<I>& deg = A.in_degrees();
    // Counting sort by decreasing in-degree; ids ascend within a degree (deterministic).
    std::int64_t max_deg = 0;
    for (std::int64_t j = 0; j < cols; ++j) max_deg = std::max<std::int64_t>(max_deg, deg[j]);
    std::vector<std::int64_t> start(static_cast<std::size_t>(max_deg) + 2, 0);
    for (std::int64_t j = 0; j < cols; ++j) ++start[static_cast<std::size_t>(max_deg - deg[j]) + 1];
    for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
    std::vector<I> perm(static_cast<std::size_t>(cols)), inv(static_cast<std::size_t>(cols));
    for (std::int64_t j = 0; j < cols; ++j) {
      const std::int64_t pos = start[static_cast<std::size_t>(max_deg - deg[j])]++;
      perm[pos] = static_cast<I>(j);
      inv[j] = static_cast<I>(pos);
    }
    std::vector<I> col(static_cast<std::size_t>(nnz));
    const I* c = A.col_idx().data();
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < nnz; ++k) col[k] = inv[c[k]];
    auto s = std::make_unique<PartitionSlot>();
    s->count = cols;
    s->a = DeviceBuffer(col.size() * sizeof(I), "mxv column relabel");
    s->b = DeviceBuffer(perm.size() * sizeof(I), "mxv column relabel");
    Context& ctx = context();
    if (nnz > 0) {
      SPINDLE_CUDA_CHECK(cudaMemcpyAsync(s->a.get(), col.data(), s->a.bytes(),
                                         cudaMemcpyHostToDevice, ctx.stream));
    }
    if (cols > 0) {
      SPINDLE_CUDA_CHECK(cudaMemcpyAsync(s->b.get(), perm.data(), s->b.bytes(),
                                         cudaMemcpyHostToDevice, ctx.stream));
    }
    ctx.synchronize();  // the host staging vectors die here
    count_graph_upload(s->a.bytes() + s->b.bytes());
    return s;
  });
  return {slot.a.get(), slot.b.get()};
}

#define SPINDLE_PARTITION_(I, V)                                                          \
  template NnzSplitPartition nnz_split_partition<I, V>(const Graph<I, V>&, std::int64_t); \
  template MergePathPartition merge_path_partition<I, V>(const Graph<I, V>&, int);        \
  template ColumnRelabel column_relabel<I, V>(const Graph<I, V>&);

SPINDLE_PARTITION_(std::int32_t, float)
SPINDLE_PARTITION_(std::int32_t, double)
SPINDLE_PARTITION_(std::int32_t, Pattern)
SPINDLE_PARTITION_(std::int64_t, float)
SPINDLE_PARTITION_(std::int64_t, double)
SPINDLE_PARTITION_(std::int64_t, Pattern)

}  // namespace spindle::detail::cuda
