// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mxv_impl.hpp
/// @brief CPU mxv / vxm kernels as templates, for any semiring (built-in or user-defined).
///
/// Built-in semirings are pre-instantiated in the library; include this header to run a
/// user-defined semiring on the CPU through spindle::cpu::mxv / spindle::cpu::vxm.
///
/// Kernel: rows are split into blocks of about equal rows + nnz (parallel.hpp), one OpenMP
/// iteration per block, no atomics. Each t(i) is reduced by one thread from the semiring's
/// identity over row i in column order, so results are bit-identical for any thread count.
/// A reduction stops early once it reaches the semiring's terminal value.

#include <cstdint>

#include "spindle/descriptor.hpp"
#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/ops/cpu/output.hpp"
#include "spindle/ops/cpu/parallel.hpp"
#include "spindle/ops/detail/prologue.hpp"
#include "spindle/semiring.hpp"
#include "spindle/vector.hpp"

namespace spindle::detail::cpu_kernels {

/// One row's reduction. kSwap applies mul(u(j), A(i,j)) instead of mul(A(i,j), u(j)): vxm runs
/// over the transpose and must keep the semiring's operand order.
template <class S, bool kSwap, class I, class V>
struct MxvRow {
  using T = typename S::value_type;
  const I* row_ptr;
  const I* col_idx;
  const V* values;
  const T* u;
  const std::uint8_t* u_present;  // nullptr: u is full

  static T mul(T a, T x) {
    if constexpr (kSwap) {
      return S::mul(x, a);
    } else {
      return S::mul(a, x);
    }
  }

  /// t(i) for a full u (present iff the row has entries).
  T full(std::int64_t i) const {
    T acc = S::identity();
    const I end = row_ptr[i + 1];
    for (I k = row_ptr[i]; k < end; ++k) {
      acc = S::add(acc, mul(entry_value<T, V>(values, k), u[col_idx[k]]));
      if constexpr (S::has_terminal) {
        if (acc == S::terminal()) break;
      }
    }
    return acc;
  }

  /// t(i) over the present u(j) only; returns whether any term existed.
  bool sparse(std::int64_t i, T& out) const {
    T acc = S::identity();
    bool any = false;
    const I end = row_ptr[i + 1];
    for (I k = row_ptr[i]; k < end; ++k) {
      const I j = col_idx[k];
      if (u_present[j] == 0) continue;
      any = true;
      acc = S::add(acc, mul(entry_value<T, V>(values, k), u[j]));
      if constexpr (S::has_terminal) {
        if (acc == S::terminal()) break;
      }
    }
    out = acc;
    return any;
  }
};

/// w<mask> = accum(w, G ⊕.⊗ u) over the rows of G (already the graph to iterate: A, A^T or the
/// transpose for vxm). w must have G.rows() entries and u G.cols().
template <class S, bool kSwap, class I, class V>
void mxv_rows(Vector<typename S::value_type>& w, const Mask& mask, Accum accum, bool replace,
              const Graph<I, V>& G, const Vector<typename S::value_type>& u) {
  using T = typename S::value_type;
  const I* rp = G.row_ptr().data();
  const MxvRow<S, kSwap, I, V> row{rp, G.col_idx().data(), G.value_ptr(), u.data(), u.bitmap_ptr()};
  const std::int64_t m = G.rows();

  if (mask.empty() && !accum.enabled && u.is_full()) {
    // Fast path: t is written straight into w; only empty rows make entries absent.
    T* wv = w.data();
    if (G.stats().empty_rows == 0) {
      w.bitmap().clear();
      for_each_row_block(rp, m, [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t i = r0; i < r1; ++i) wv[i] = row.full(i);
      });
      return;
    }
    w.bitmap().resize(static_cast<std::size_t>(m));
    std::uint8_t* wp = w.bitmap().data();
    for_each_row_block(rp, m, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t i = r0; i < r1; ++i) {
        wv[i] = row.full(i);
        wp[i] = rp[i + 1] > rp[i] ? 1 : 0;
      }
    });
    return;
  }

  VectorOutput<T> out(w, mask, accum, replace);
  if (u.is_full()) {
    for_each_row_block(rp, m, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t i = r0; i < r1; ++i) {
        out.visit(i, [&](T& t) {
          t = row.full(i);
          return rp[i + 1] > rp[i];
        });
      }
    });
  } else {
    for_each_row_block(rp, m, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t i = r0; i < r1; ++i) {
        out.visit(i, [&](T& t) { return row.sparse(i, t); });
      }
    });
  }
  out.finish();
}

/// Built-in semirings multiply commutatively (IEEE + and * commute exactly; and, or, pair do
/// too; min and max do except for which NaN they return, see docs/numerics.md), so vxm swaps
/// the operand order only for user-defined semirings.
template <class S>
inline constexpr bool kMulNeedsSwap = S::kind == SemiringKind::Custom;

/// mxv on already-checked, non-degenerate arguments.
template <class S, class I, class V>
void mxv_run(Vector<typename S::value_type>& w, const Mask& mask, Accum accum, const Graph<I, V>& A,
             const Vector<typename S::value_type>& u, bool transpose_a, bool replace) {
  const Graph<I, V>& G = transpose_a ? A.transpose() : A;
  mxv_rows<S, false>(w, mask, accum, replace, G, u);
}

/// vxm on already-checked, non-degenerate arguments: t(j) = ⊕_i mul(u(i), A(i,j)) is row j of
/// A^T, so it runs over the cached transpose (over A itself with transpose_a).
template <class S, class I, class V>
void vxm_run(Vector<typename S::value_type>& w, const Mask& mask, Accum accum,
             const Vector<typename S::value_type>& u, const Graph<I, V>& A, bool transpose_a,
             bool replace) {
  const Graph<I, V>& G = transpose_a ? A : A.transpose();
  mxv_rows<S, kMulNeedsSwap<S>>(w, mask, accum, replace, G, u);
}

}  // namespace spindle::detail::cpu_kernels

namespace spindle::cpu {

/// spindle::mxv on the CPU backend for any semiring S, including user-defined ones (same
/// semantics, checks and exceptions; no planner, desc.device and forced kernels are ignored).
template <class S, class I, class V>
void mxv(Vector<typename S::value_type>& w, const Mask& mask, Accum accum, S /*s*/,
         const Graph<I, V>& A, const Vector<typename S::value_type>& u,
         const Descriptor& desc = {}) {
  detail::OutputStage<Vector<typename S::value_type>> out(w);
  if (!detail::mxv_prologue("mxv", out, mask, accum, A, u, desc, false, true)) return;
  detail::cpu_kernels::mxv_run<S>(out.get(), mask, accum, A, u, desc.transpose_a, desc.replace);
  out.commit();
}

/// spindle::vxm on the CPU backend for any semiring S (see cpu::mxv).
template <class S, class I, class V>
void vxm(Vector<typename S::value_type>& w, const Mask& mask, Accum accum, S /*s*/,
         const Vector<typename S::value_type>& u, const Graph<I, V>& A,
         const Descriptor& desc = {}) {
  detail::OutputStage<Vector<typename S::value_type>> out(w);
  if (!detail::mxv_prologue("vxm", out, mask, accum, A, u, desc, true, true)) return;
  detail::cpu_kernels::vxm_run<S>(out.get(), mask, accum, u, A, desc.transpose_a, desc.replace);
  out.commit();
}

}  // namespace spindle::cpu
