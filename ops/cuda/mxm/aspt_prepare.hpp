// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file aspt_prepare.hpp
/// @brief The one-time reordering behind SpMM `aspt_tiled` (Adaptive Sparse Tiling for Sparse
/// Matrix Multiplication, Hong et al., §4.1), built on the host
/// and cached on the graph by the CUDA backend. Plain C++ (OpenMP), no CUDA header.
///
/// Rows are grouped into panels of `panel_rows` consecutive rows. Within a panel, a column is
/// *heavy* when it holds at least kAsptHeavyMin nonzeros of the panel's rows: its B row is then
/// staged once in shared memory and reused by every such nonzero. Each row's entries split into
///   - heavy entries: (slot, value), slot = index of the column in the panel's sorted heavy
///     list, so a row's heavy entries keep increasing slots (column order);
///   - light entries: (column, value), read with plain CSR gathers from B.
/// Only the order of a row's entries changes, never a column number (Adaptive Sparse Tiling:
/// "reordering of
/// non-zeros and not re-numbering"). Rows longer than `long_row` are taken out of the panels
/// entirely and kept as a separate CSR (with their row ids) that the load-balanced kernel runs,
/// so no panel waits on one huge row (R-MAT rows reach 10^5 entries).

#include <cstdint>
#include <vector>

namespace spindle::detail::cuda {

/// A column needs this many nonzeros in a panel to be staged (Adaptive Sparse Tiling, §4.1: "at
/// least two").
constexpr int kAsptHeavyMin = 2;

/// Host arrays of the reordering; value arrays stay empty for pattern graphs.
template <class I, class T>
struct AsptHost {
  std::int64_t rows = 0;
  std::int64_t panel_rows = 0;
  std::int64_t long_row = 0;
  std::int64_t panels = 0;
  std::vector<I> panel_hptr;  ///< panels + 1: each panel's range in heavy_cols
  std::vector<I> heavy_cols;  ///< per panel, ascending
  std::vector<I> h_ptr;       ///< rows + 1 (long rows: empty)
  std::vector<std::int32_t> h_slot;
  std::vector<T> h_val;
  std::vector<I> l_ptr;  ///< rows + 1 (long rows: empty)
  std::vector<I> l_col;
  std::vector<T> l_val;
  std::vector<I> long_ptr;  ///< nlong + 1
  std::vector<I> long_col;
  std::vector<T> long_val;
  std::vector<I> long_rows;  ///< nlong: the output row of each long row
};

/// Builds the reordering of a CSR graph (vals == nullptr: pattern). Deterministic for any
/// thread count. @throws OutOfMemory through the allocation hook.
template <class I, class T>
AsptHost<I, T> build_aspt(std::int64_t rows, const I* row_ptr, const I* col_idx, const T* vals,
                          std::int64_t panel_rows, std::int64_t long_row);

}  // namespace spindle::detail::cuda
