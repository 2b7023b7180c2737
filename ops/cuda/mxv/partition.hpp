// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file partition.hpp
/// @brief Work partitions of the load-balanced mxv kernels, computed on the device once per graph
/// and parameter and cached on the graph (Graph::extension): they depend only on the structure.

#include <cstdint>

#include "spindle/graph.hpp"

namespace spindle::detail::cuda {

/// Chunks of `chunk` entries: chunk_row[c] is the row containing entry c * chunk.
struct NnzSplitPartition {
  std::int64_t chunk = 0;
  std::int64_t chunks = 0;
  const std::int64_t* chunk_row = nullptr;  ///< device, `chunks` entries
};
template <class I, class V>
NnzSplitPartition nnz_split_partition(const Graph<I, V>& A, std::int64_t chunk);

/// Merge-path tiles of 128 * k_items items: tile t spans the path from (tile_x[t], tile_y[t])
/// to (tile_x[t+1], tile_y[t+1]) in (row ends, entries).
struct MergePathPartition {
  int k_items = 0;
  std::int64_t tiles = 0;
  const std::int64_t* tile_x = nullptr;  ///< device, tiles + 1 entries
  const std::int64_t* tile_y = nullptr;
};
template <class I, class V>
MergePathPartition merge_path_partition(const Graph<I, V>& A, int k_items);

/// Columns renumbered by decreasing in-degree (ties by id), so the most gathered entries of u
/// are packed at the front and stay in L1 / L2: col_idx[k] = new id of column col_idx_A[k],
/// perm[new] = old id. Built once per graph on the host (counting sort of in_degrees()) and
/// cached with the graph; rows keep their order, so outputs need no permutation. Within a row
/// the new ids are no longer sorted, which no kernel relies on.
struct ColumnRelabel {
  const void* col_idx = nullptr;  ///< device, nnz entries of type I
  const void* perm = nullptr;     ///< device, cols entries of type I
};
template <class I, class V>
ColumnRelabel column_relabel(const Graph<I, V>& A);

}  // namespace spindle::detail::cuda
