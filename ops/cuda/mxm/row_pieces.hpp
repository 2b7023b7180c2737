// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file row_pieces.hpp
/// @brief The work list of row_cache_seq's split form (row_cache_seq.cuh): a row of at most P
/// entries is walked whole by one group of lanes; a longer row is cut into ceil(len / P) pieces
/// of near-equal length, each walked by its own group into a partial result, and a second kernel
/// adds a row's partials in piece order. Plain host code (tested on CPU-only builds); spmm_run.cuh
/// builds it once per (graph, P), uploads it and caches it on the graph.
///
/// Why: on small graphs the longest row decides row_cache_seq's time (a group walks its row with
/// four B-row gathers in flight: as20graph's row of 1459 entries kept one warp busy for about
/// 0.15 ms), and row_block, which splits work by entries, re-reads A once per 8-column pass.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ops/cuda/mxv/partition.hpp"  // RowBlockLong

namespace spindle::detail::cuda {

/// Entries [k0, k1) of `row`, whose partial result goes to slot `slot` (slot · N in the buffer).
struct RowPiece {
  std::int64_t row = 0;
  std::int64_t k0 = 0;
  std::int64_t k1 = 0;
  std::int64_t slot = 0;
};

struct RowPieces {
  std::vector<RowPiece> pieces;     ///< the long rows' pieces, rows in order, pieces in order
  std::vector<RowBlockLong> longs;  ///< per long row: its first slot and its piece count
  std::int64_t slots = 0;           ///< partial results the pieces need
};

/// Cuts every row longer than `max_piece` (>= 1) entries into ceil(len / max_piece) pieces of
/// near-equal length (the first len % count pieces one entry longer than the rest, so none is
/// empty and none exceeds max_piece). Rows of at most max_piece entries get no piece.
template <class I>
RowPieces build_row_pieces(const I* row_ptr, std::int64_t n, std::int64_t max_piece) {
  RowPieces out;
  const std::int64_t p = std::max<std::int64_t>(max_piece, 1);
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t b = static_cast<std::int64_t>(row_ptr[r]);
    const std::int64_t len = static_cast<std::int64_t>(row_ptr[r + 1]) - b;
    if (len <= p) continue;
    const std::int64_t count = (len + p - 1) / p;
    const std::int64_t q = len / count;
    const std::int64_t rem = len % count;
    out.longs.push_back({r, out.slots, count});
    std::int64_t k = b;
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t size = q + (i < rem ? 1 : 0);
      out.pieces.push_back({r, k, k + size, out.slots + i});
      k += size;
    }
    out.slots += count;
  }
  return out;
}

}  // namespace spindle::detail::cuda
