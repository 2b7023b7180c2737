// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file partition.hpp
/// @brief Work partitions of the load-balanced mxv kernels, computed on the device once per graph
/// and parameter and cached on the graph (Graph::extension): they depend only on the structure.

#include <algorithm>
#include <cstdint>
#include <vector>

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

/// One thread block's work in row_block (row_block.cuh).
struct RowBlockDesc {
  std::int64_t r0 = 0;    ///< first row
  std::int64_t k0 = 0;    ///< first entry
  std::int32_t rows = 0;  ///< rows in the block (1 for a single row or a piece)
  std::int32_t nk = 0;    ///< entries: at most NB, or long_factor x NB for long rows
  std::int32_t kind = 0;  ///< kRowBlockRows / kRowBlockSingle / kRowBlockPiece
  std::int32_t slot = 0;  ///< rows: log2 of the lanes per row; piece: its partial's index
};
inline constexpr std::int32_t kRowBlockRows = 0;
inline constexpr std::int32_t kRowBlockSingle = 1;
inline constexpr std::int32_t kRowBlockPiece = 2;

/// A row cut into `count` pieces whose partials are partial[first .. first + count).
struct RowBlockLong {
  std::int64_t row = 0;
  std::int64_t first = 0;
  std::int64_t count = 0;
};

/// row_block's blocks for `block_threads` threads (NB = 4 x that entries per block): runs of whole
/// rows of at most NB entries and NB rows; a row longer than block_threads entries gets a block of
/// its own when it has at most long_factor x NB entries, pieces of that many otherwise.
/// Built on the host in one pass over the row offsets, uploaded once and cached on the graph.
///
/// long_factor (mxv_entry.cuh picks it): 1 in general. With 8 (fewer pieces, and no second
/// launch on graphs whose longest row is below 8 NB) R-MAT scale 18 ran 0.0443 ms instead of
/// 0.0346, scale 22 0.5011 instead of 0.4974, and PageRank on R-MAT 22 0.548 instead of 0.486 ms
/// per iteration (H100): a block walking 8 NB entries alone becomes the critical path. On small
/// launch-bound graphs the saved launch wins: as20graph (26 k entries, longest row 1459) ran
/// 8.1 us with 8 against 10.3 us with 1 (cuSPARSE 8.9 us).
inline constexpr std::int64_t kRowBlockLongFactor = 1;
inline constexpr std::int64_t kRowBlockSmallGraphLongFactor = 8;
struct RowBlockPartition {
  int block_threads = 0;
  std::int64_t blocks = 0;
  const RowBlockDesc* desc = nullptr;  ///< device, `blocks` entries
  std::int64_t n_long = 0;
  const RowBlockLong* longs = nullptr;  ///< device, `n_long` entries
  std::int64_t pieces = 0;              ///< partial results the long rows need
};
/// `long_len` (0: block_threads) is the longest row that shares a block; SpMM lowers it on small
/// graphs (spmm_run.cuh) so that row blocks reduce with one lane per row and column.
template <class I, class V>
RowBlockPartition row_block_partition(const Graph<I, V>& A, int block_threads,
                                      std::int64_t long_factor, std::int64_t long_len = 0);

/// The host side of row_block_partition (plain code, tested on CPU-only builds): one pass over
/// the n + 1 row offsets.
struct RowBlocks {
  std::vector<RowBlockDesc> desc;
  std::vector<RowBlockLong> longs;
  std::int64_t pieces = 0;
};

/// Appends row r, whose entries start at `begin`, cut into ceil(len / piece) pieces of at most
/// `piece` entries: one RowBlockLong and a kRowBlockPiece task per piece, whose partials take the
/// next slots (rb.pieces grows by the count).
inline void append_row_pieces(RowBlocks& rb, std::int64_t r, std::int64_t begin, std::int64_t len,
                              std::int64_t piece) {
  const std::int64_t count = (len + piece - 1) / piece;
  rb.longs.push_back({r, rb.pieces, count});
  for (std::int64_t p = 0; p < count; ++p) {
    rb.desc.push_back({r, begin + p * piece, 1,
                       static_cast<std::int32_t>(std::min(piece, len - p * piece)), kRowBlockPiece,
                       static_cast<std::int32_t>(rb.pieces + p)});
  }
  rb.pieces += count;
}

template <class I>
RowBlocks build_row_blocks(const I* row_ptr, std::int64_t n, int block_threads,
                           std::int64_t long_factor = kRowBlockLongFactor,
                           std::int64_t long_len_req = 0) {
  RowBlocks rb;
  const std::int64_t nb = 4 * static_cast<std::int64_t>(block_threads);
  // Longer rows never share a block (at most block_threads: a single block's threads take a row
  // of up to long_factor x NB entries, four entries each per round).
  const std::int64_t long_len =
      long_len_req > 0 && long_len_req < block_threads ? long_len_req : block_threads;
  const std::int64_t piece = long_factor * nb;
  auto at = [&](std::int64_t r) { return static_cast<std::int64_t>(row_ptr[r]); };
  std::int64_t r = 0;
  while (r < n) {
    const std::int64_t len = at(r + 1) - at(r);
    if (len > long_len) {
      if (len <= piece) {
        rb.desc.push_back({r, at(r), 1, static_cast<std::int32_t>(len), kRowBlockSingle, 0});
      } else {
        append_row_pieces(rb, r, at(r), len, piece);
      }
      ++r;
      continue;
    }
    const std::int64_t a = r;
    std::int64_t max_len = 0;
    while (r < n && r - a < nb) {
      const std::int64_t l = at(r + 1) - at(r);
      if (l > long_len || at(r + 1) - at(a) > nb) break;
      max_len = std::max(max_len, l);
      ++r;
    }
    // Lanes per row: as many as fill the block in one round, more while a row would need more
    // than 64 steps (at most 32 lanes).
    const std::int64_t rows = r - a;
    int lg = 0;
    while (lg < 5 && rows * (std::int64_t{2} << lg) <= block_threads) ++lg;
    while (lg < 5 && max_len > (std::int64_t{64} << lg)) ++lg;
    rb.desc.push_back({a, at(a), static_cast<std::int32_t>(rows),
                       static_cast<std::int32_t>(at(r) - at(a)), kRowBlockRows, lg});
  }
  return rb;
}

/// sliced_coo's layout (sliced_coo.cuh): whole rows packed in order into slots of `slot` entries
/// each, every slot at a fixed offset, so that a thread finds its entries from its block and
/// thread index alone (no row offsets to read first). An empty row takes one placeholder entry
/// (no column) so that it is written like the others. The array is padded to whole blocks of
/// `block_entries`. Per position: the entry of A it holds (src, -1 for a placeholder or padding)
/// and its row with two flags: a row starts here (kSlicedHead), a row ends here (kSlicedEnd);
/// padding is -1.
inline constexpr std::int32_t kSlicedHead = std::int32_t{1} << 30;
inline constexpr std::int32_t kSlicedEnd = std::int32_t{1} << 29;
inline constexpr std::int32_t kSlicedRowMask = kSlicedEnd - 1;
struct SlicedRows {
  std::vector<std::int64_t> src;
  std::vector<std::int32_t> row;
};
/// False when a row holds more than `slot` entries or the rows do not fit the 29-bit row field
/// (the caller runs another kernel). `slot` divides `block_entries`; both are powers of two.
template <class I>
bool build_sliced_rows(const I* row_ptr, std::int64_t n, std::int64_t slot,
                       std::int64_t block_entries, SlicedRows& out) {
  if (n > static_cast<std::int64_t>(kSlicedRowMask) + 1) return false;
  std::int64_t slots = 0;    // first a dry run: the slots needed
  std::int64_t used = slot;  // the first row opens a slot
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t len =
        std::max<std::int64_t>(1, static_cast<std::int64_t>(row_ptr[r + 1] - row_ptr[r]));
    if (len > slot) return false;
    if (used + len > slot) {
      ++slots;
      used = 0;
    }
    used += len;
  }
  const std::int64_t positions = (slots * slot + block_entries - 1) / block_entries * block_entries;
  out.src.assign(static_cast<std::size_t>(positions), -1);
  out.row.assign(static_cast<std::size_t>(positions), -1);
  std::int64_t at = -slot;  // start of the open slot
  used = slot;
  for (std::int64_t r = 0; r < n; ++r) {
    const auto k0 = static_cast<std::int64_t>(row_ptr[r]);
    const std::int64_t len = static_cast<std::int64_t>(row_ptr[r + 1]) - k0;
    const std::int64_t take = std::max<std::int64_t>(1, len);
    if (used + take > slot) {
      at += slot;
      used = 0;
    }
    for (std::int64_t t = 0; t < take; ++t) {
      const auto pos = static_cast<std::size_t>(at + used + t);
      out.src[pos] = len > 0 ? k0 + t : -1;
      out.row[pos] = static_cast<std::int32_t>(r) | (t == 0 ? kSlicedHead : 0) |
                     (t + 1 == take ? kSlicedEnd : 0);
    }
    used += take;
  }
  return true;
}

/// Columns renumbered so that the most gathered entries of u are packed at the front and stay in
/// shared memory / L1: the hottest 40 K by decreasing in-degree (ties by id), the rest in the
/// order of their first entry (first use: cold columns gathered by one task share more L2
/// sectors), columns without entries last. col_idx[k] = new id of column col_idx_A[k], perm[new]
/// = old id. Built once per graph on the device (partition.cu) and cached with the graph; rows
/// keep their order, so outputs need no permutation. Within a row the new ids are no longer
/// sorted, which no kernel relies on.
struct ColumnRelabel {
  const void* col_idx = nullptr;  ///< device, nnz entries of type I
  const void* perm = nullptr;     ///< device, cols entries of type I
  /// Columns with at least one entry: new ids [0, used). u needs gathering for these only.
  std::int64_t used = 0;
};
template <class I, class V>
ColumnRelabel column_relabel(const Graph<I, V>& A);

/// One byte per row of A, 1 where the row has entries: the presence of every simple-path mxv
/// result over A (u full: a row has a term exactly when it has entries). Built on the device once
/// and cached on the graph; kernels that do not write presence beside their results copy it.
template <class I, class V>
const std::uint8_t* row_presence_bytes(const Graph<I, V>& A);

}  // namespace spindle::detail::cuda
