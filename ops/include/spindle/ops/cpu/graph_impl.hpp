// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file graph_impl.hpp
/// @brief CPU kernels that build a new graph from an existing one: apply (new values), scale
/// (diagonal scaling) and add_identity (missing diagonal entries added).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "spindle/debug/allocation.hpp"
#include "spindle/graph.hpp"
#include "spindle/operators.hpp"
#include "spindle/ops/cpu/functors.hpp"
#include "spindle/ops/cpu/parallel.hpp"
#include "spindle/vector.hpp"

namespace spindle::detail::cpu_kernels {

/// A graph with A's structure and values value_of(k, row) (k: the entry's position).
template <class T, class I, class V, class F>
Graph<I, T> map_values(const Graph<I, V>& A, F value_of) {
  auto vals = workspace<T>(static_cast<std::size_t>(A.nnz()), "apply: graph values");
  const I* rp = A.row_ptr().data();
  for_each_row_block(rp, A.rows(), [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t i = r0; i < r1; ++i) {
      for (I k = rp[i]; k < rp[i + 1]; ++k) vals[k] = value_of(k, i);
    }
  });
  return Graph<I, T>(A.rows(), A.cols(), A.row_ptr(), A.col_idx(), std::move(vals));
}

/// op(A(i,j)) for every stored entry (pattern A: op(1)).
template <class T, class I, class V>
Graph<I, T> apply_graph(Unary<T> op, const Graph<I, V>& A) {
  const V* av = A.value_ptr();
  return with_unary(op.op, [&](auto opc) {
    return map_values<T>(A, [&](I k, std::int64_t) {
      return apply_unary(opc.value, entry_value<T, V>(av, k), op.scalar);
    });
  });
}

/// (left(i) * A(i,j)) * right(j); absent entries of left / right, or a size-0 vector, count as 1.
template <class T, class I, class V>
Graph<I, T> scale_graph(const Vector<T>& left, const Graph<I, V>& A, const Vector<T>& right) {
  const V* av = A.value_ptr();
  const I* ci = A.col_idx().data();
  const bool has_left = left.size() > 0;
  const bool has_right = right.size() > 0;
  return map_values<T>(A, [&](I k, std::int64_t i) {
    const T l = has_left && left.present(i) ? left[i] : T(1);
    const std::int64_t j = ci[k];
    const T r = has_right && right.present(j) ? right[j] : T(1);
    return (l * entry_value<T, V>(av, k)) * r;
  });
}

/// A with (i, i) = 1 added to every row that lacks it (existing diagonal values kept).
template <class I, class V>
Graph<I, V> add_identity(const Graph<I, V>& A) {
  using Stored = typename Graph<I, V>::stored_value_type;
  const std::int64_t n = A.rows();
  const I* rp = A.row_ptr().data();
  const I* ci = A.col_idx().data();
  const Stored* av = A.values().data();
  // Position of the first column >= i in row i, and whether it is i itself.
  std::vector<I> diag_pos(static_cast<std::size_t>(n));
  std::vector<I> new_ptr(static_cast<std::size_t>(n) + 1, 0);
  for_each_row_block(rp, n, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t i = r0; i < r1; ++i) {
      const I* p = std::lower_bound(ci + rp[i], ci + rp[i + 1], static_cast<I>(i));
      diag_pos[i] = static_cast<I>(p - ci);
      const bool has = p != ci + rp[i + 1] && *p == i;
      new_ptr[i + 1] = rp[i + 1] - rp[i] + (has ? 0 : 1);
    }
  });
  for (std::int64_t i = 0; i < n; ++i) new_ptr[i + 1] += new_ptr[i];
  std::vector<I> new_col(static_cast<std::size_t>(new_ptr[n]));
  std::vector<Stored> new_val(is_pattern_v<V> ? 0 : static_cast<std::size_t>(new_ptr[n]));
  for_each_row_block(rp, n, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t i = r0; i < r1; ++i) {
      I out = new_ptr[i];
      const I d = diag_pos[i];
      const bool has = d != rp[i + 1] && ci[d] == i;
      for (I k = rp[i]; k < rp[i + 1]; ++k) {
        if (k == d && !has) {
          new_col[out] = static_cast<I>(i);
          if constexpr (!is_pattern_v<V>) new_val[out] = Stored(1);
          ++out;
        }
        new_col[out] = ci[k];
        if constexpr (!is_pattern_v<V>) new_val[out] = av[k];
        ++out;
      }
      if (!has && d == rp[i + 1]) {  // the diagonal goes after every stored column
        new_col[out] = static_cast<I>(i);
        if constexpr (!is_pattern_v<V>) new_val[out] = Stored(1);
      }
    }
  });
  return Graph<I, V>(A.rows(), A.cols(), std::move(new_ptr), std::move(new_col),
                     std::move(new_val));
}

}  // namespace spindle::detail::cpu_kernels
