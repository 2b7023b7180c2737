// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file graph.hpp
/// @brief The sparse matrix / graph in CSR form, its cached statistics and derived views.
///
/// A `Graph<I, V>` is immutable once built: index type I (int32_t or int64_t, used for both row
/// offsets and column indices, so graphs with nnz >= 2^31 use int64_t), value type V (float,
/// double or Pattern: no value array, every stored entry is 1). Rows are sorted by column and
/// hold no duplicate columns. Copies share storage. Derived properties (stats, transpose,
/// degrees) are computed on first use and cached; since the graph never changes they are
/// either absent or valid, never stale. All members are safe to call from several threads.

#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "spindle/types.hpp"

namespace spindle {

/// Cheap statistics of the row-length distribution, the planner's input.
struct GraphStats {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  double avg_row = 0.0;   ///< nnz / rows (0 for 0 rows)
  double stdv_row = 0.0;  ///< population standard deviation of the row lengths
  std::int64_t max_row = 0;
  std::int64_t min_row = 0;
  std::int64_t empty_rows = 0;
  std::int64_t self_loops = 0;  ///< stored diagonal entries
  /// rows_by_log2_length[b]: rows whose length is in [2^(b-1), 2^b) (b = 0: empty rows).
  std::vector<std::int64_t> rows_by_log2_length;
  /// Spread of the column lengths (in-degrees), stdv / avg. Counted exactly when nnz + cols is
  /// at most kColumnImbalanceExactMax; otherwise estimated from column_imbalance_draws(cols)
  /// entries drawn at random with a fixed seed (the same graph gives the same value): two draws
  /// land in the same column with probability sum_j p_j^2 (p_j: column j's share of the
  /// entries), and cols * sum_j p_j^2 = 1 + (stdv / avg)^2. The estimate of (stdv / avg)^2 is off
  /// by about 0.18 sqrt(1 + (stdv / avg)^2) (one standard deviation; more past 67 M columns,
  /// where the draws stop growing). 0 when every column holds as many entries, 0.25 for
  /// uniformly random columns at 16 entries each, above 5 for R-MAT and the power laws of
  /// `spindle generate`. Negative when not estimated (statistics built by hand).
  double col_imbalance_est = -1.0;
  /// stdv_row / avg_row: the imbalance measure of the dgSPARSE rules (0 when avg_row = 0).
  double imbalance() const { return avg_row > 0 ? stdv_row / avg_row : 0.0; }
};

/// GraphStats::col_imbalance_est counts every column exactly when nnz + cols is at most this.
inline constexpr std::int64_t kColumnImbalanceExactMax = std::int64_t{1} << 17;
/// The entries GraphStats::col_imbalance_est draws otherwise: 8 sqrt(cols), within [2048, 65536]
/// (about 32 pairs of draws in a shared column for uniform columns; a sort of at most 65,536).
inline std::int64_t column_imbalance_draws(std::int64_t cols) {
  const double d = 8.0 * std::sqrt(static_cast<double>(cols));
  return d <= 2048.0 ? 2048 : d >= 65536.0 ? 65536 : static_cast<std::int64_t>(std::ceil(d));
}

/// Computes the statistics of a CSR structure (used by Graph; exposed for tests and tools).
template <class I>
GraphStats compute_stats(std::int64_t rows, std::int64_t cols, const I* row_ptr, const I* col_idx);

namespace detail {
/// Backend-owned derived data attached to a graph (device copies, reorderings, plans). The
/// graph keeps them alive as long as itself and hands them out by key.
struct ExtensionSlot {
  virtual ~ExtensionSlot() = default;
};
}  // namespace detail

template <class I, class V>
class Graph {
 public:
  using index_type = I;
  using value_type = V;
  static constexpr bool is_pattern = is_pattern_v<V>;
  /// The element type of the value array (unused placeholder for pattern graphs).
  using stored_value_type = std::conditional_t<is_pattern, unsigned char, V>;

  /// An empty 0 x 0 graph.
  Graph();

  /// Adopts a CSR structure. Validates it fully (offsets monotone and ending at nnz, columns in
  /// range and strictly increasing within each row, value count == nnz for weighted graphs,
  /// empty for pattern graphs) and throws InvalidArgument / IndexOutOfBounds otherwise.
  /// Use build_graph() (coo_builder.hpp) to build from unsorted edges.
  Graph(I rows, I cols, std::vector<I> row_ptr, std::vector<I> col_idx,
        std::vector<stored_value_type> values = {});

  I rows() const noexcept { return rows_; }
  I cols() const noexcept { return cols_; }
  I nnz() const noexcept { return static_cast<I>(data_->col_idx.size()); }
  bool is_square() const noexcept { return rows_ == cols_; }

  const std::vector<I>& row_ptr() const noexcept { return data_->row_ptr; }
  const std::vector<I>& col_idx() const noexcept { return data_->col_idx; }
  /// The stored values; empty for pattern graphs (use value_at / entry_value).
  const std::vector<stored_value_type>& values() const noexcept { return data_->values; }
  /// Pointer to values or nullptr for pattern graphs; `entry_value<T, V>(ptr, k)` reads it.
  const V* value_ptr() const noexcept {
    if constexpr (is_pattern) {
      return nullptr;
    } else {
      return data_->values.data();
    }
  }
  /// Value of stored entry k as T (1 for pattern graphs).
  template <class T = double>
  T value_at(I k) const {
    return entry_value<T, V>(value_ptr(), k);
  }
  I row_length(I i) const { return data_->row_ptr[i + 1] - data_->row_ptr[i]; }

  /// Row-length statistics (cached).
  const GraphStats& stats() const;
  /// The transpose A^T, as a graph of the same types (cached).
  const Graph& transpose() const;
  /// Whether transpose() has been built already (so a call to it costs nothing).
  bool has_transpose() const;
  /// Stored entries per row (cached).
  const std::vector<I>& out_degrees() const;
  /// Stored entries per column (cached).
  const std::vector<I>& in_degrees() const;

  /// A graph with the same structure and values converted to W (float<->double, or Pattern).
  template <class W>
  Graph<I, W> with_values() const;

  /// Bytes of the CSR arrays (offsets, indices, values).
  std::size_t bytes() const noexcept;

  /// Backend extension storage: returns the slot stored under `key`, creating it with make()
  /// on first use. Thread-safe; the slot lives as long as the graph's storage.
  template <class Slot, class Make>
  Slot& extension(const std::string& key, Make&& make) const {
    std::lock_guard<std::recursive_mutex> lock(data_->mutex);
    for (auto& e : data_->extensions) {
      if (e.first == key) return static_cast<Slot&>(*e.second);
    }
    data_->extensions.emplace_back(key, make());
    return static_cast<Slot&>(*data_->extensions.back().second);
  }

 private:
  struct Storage {
    std::vector<I> row_ptr;
    std::vector<I> col_idx;
    std::vector<stored_value_type> values;
    std::recursive_mutex mutex;
    std::unique_ptr<GraphStats> stats;
    std::unique_ptr<Graph> transpose;
    std::unique_ptr<std::vector<I>> out_degrees;
    std::unique_ptr<std::vector<I>> in_degrees;
    std::vector<std::pair<std::string, std::unique_ptr<detail::ExtensionSlot>>> extensions;
  };
  struct Unchecked {};
  Graph(Unchecked, I rows, I cols, std::shared_ptr<Storage> data);
  template <class J, class W>
  friend class Graph;

  I rows_ = 0;
  I cols_ = 0;
  std::shared_ptr<Storage> data_;
};

extern template class Graph<std::int32_t, float>;
extern template class Graph<std::int32_t, double>;
extern template class Graph<std::int32_t, Pattern>;
extern template class Graph<std::int64_t, float>;
extern template class Graph<std::int64_t, double>;
extern template class Graph<std::int64_t, Pattern>;

/// Calls f(type_tag) for every (I, V) combination Spindle instantiates, as `f(I{}, V{})`.
/// Used by tests and the CLI to run typed code over run-time type choices.
template <class F>
void for_each_graph_type(F&& f) {
  f(std::int32_t{}, float{});
  f(std::int32_t{}, double{});
  f(std::int32_t{}, Pattern{});
  f(std::int64_t{}, float{});
  f(std::int64_t{}, double{});
  f(std::int64_t{}, Pattern{});
}

}  // namespace spindle
