// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file matrix_mask.hpp
/// @brief Write masks on sparse matrix outputs (sparse x sparse mxm).
///
/// A matrix mask selects which entries C(i,j) an operation may write. Built from a graph M of
/// any value type:
///   - value mask: selected where M(i,j) is stored and M(i,j) != 0 (a pattern graph's entries
///     are all 1),
///   - structural mask: selected where M(i,j) is stored (its value is ignored),
///   - complement: selects exactly the entries the mask would not.
/// Entries not selected keep their old value, or are removed when the descriptor says replace.
///
/// Unlike the vector Mask, a MatrixMask owns what it needs: it keeps the selected entries'
/// structure (a copy of M's offsets and columns, or the graph itself when M is a pattern graph
/// used structurally, which shares storage). So the mask may be built from the output graph of
/// the call it is passed to, or outlive M. Building one costs O(nnz(M)) at most.

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/types.hpp"

namespace spindle {

class MatrixMask {
 public:
  /// No mask: every entry selected (unless complemented, which selects none).
  MatrixMask() = default;

  /// Selected where M(i,j) is stored and nonzero.
  template <class I, class V>
  static MatrixMask value(const Graph<I, V>& m, bool complement = false) {
    return MatrixMask(m, MaskKind::Value, complement);
  }
  /// Selected where M(i,j) is stored.
  template <class I, class V>
  static MatrixMask structural(const Graph<I, V>& m, bool complement = false) {
    return MatrixMask(m, MaskKind::Structural, complement);
  }

  bool empty() const noexcept { return pattern_ == nullptr; }
  std::int64_t rows() const noexcept { return rows_; }
  std::int64_t cols() const noexcept { return cols_; }
  MaskKind kind() const noexcept { return kind_; }
  bool complemented() const noexcept { return complement_; }
  IndexKind index() const noexcept { return index_; }
  /// Entries the mask selects before any complement (nnz(M) for a structural mask, the nonzero
  /// entries for a value mask); 0 for no mask.
  std::int64_t selected_entries() const noexcept { return entries_; }

  /// The entries selected before the complement, as a pattern graph with index type I.
  /// @throws InvalidArgument when the mask was built from a graph with another index type.
  template <class I>
  const Graph<I, Pattern>& pattern() const {
    if (pattern_ == nullptr || index_ != index_kind_of<I>()) {
      throw InvalidArgument(std::string("MatrixMask: ") +
                            (pattern_ == nullptr
                                 ? "no mask"
                                 : std::string("built from a graph with ") + to_string(index_) +
                                       " indices, used with " + to_string(index_kind_of<I>())));
    }
    return *static_cast<const Graph<I, Pattern>*>(pattern_.get());
  }

 private:
  template <class I, class V>
  MatrixMask(const Graph<I, V>& m, MaskKind kind, bool complement)
      : rows_(m.rows()),
        cols_(m.cols()),
        kind_(kind),
        complement_(complement),
        index_(index_kind_of<I>()) {
    std::shared_ptr<Graph<I, Pattern>> p;
    if constexpr (is_pattern_v<V>) {
      p = std::make_shared<Graph<I, Pattern>>(m);  // shares m's storage
    } else {
      if (kind == MaskKind::Structural) {
        p = std::make_shared<Graph<I, Pattern>>(m.template with_values<Pattern>());
      } else {
        const std::vector<I>& rp = m.row_ptr();
        const std::vector<I>& ci = m.col_idx();
        const V* v = m.value_ptr();
        std::vector<I> nrp(rp.size(), 0);
        std::vector<I> nci;
        nci.reserve(ci.size());
        for (I i = 0; i < m.rows(); ++i) {
          for (I k = rp[i]; k < rp[i + 1]; ++k) {
            if (v[k] != V(0)) nci.push_back(ci[k]);
          }
          nrp[i + 1] = static_cast<I>(nci.size());
        }
        p = std::make_shared<Graph<I, Pattern>>(m.rows(), m.cols(), std::move(nrp), std::move(nci));
      }
    }
    entries_ = p->nnz();
    pattern_ = std::move(p);
  }

  std::shared_ptr<const void> pattern_;
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  std::int64_t entries_ = 0;
  MaskKind kind_ = MaskKind::Structural;
  bool complement_ = false;
  IndexKind index_ = IndexKind::Int32;
};

}  // namespace spindle
