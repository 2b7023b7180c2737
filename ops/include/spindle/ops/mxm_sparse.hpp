// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mxm_sparse.hpp
/// @brief Sparse x sparse matrix product over a semiring with a matrix mask (SpGEMM),
/// GraphBLAS GrB_mxm.

#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

#include "spindle/descriptor.hpp"
#include "spindle/graph.hpp"
#include "spindle/matrix_mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"

namespace spindle {

namespace detail {
/// A CSR operand of the sparse mxm as the kernels read it: values already of the semiring's
/// type T (nullptr: a pattern graph, every stored entry 1). `keep` holds the graph (and the
/// converted values, where the graph stores another type) alive for the call.
template <class I, class T>
struct SparseOperand {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  const I* row_ptr = nullptr;
  const I* col_idx = nullptr;
  const T* values = nullptr;
  /// Entries per column (cached by the graph; the first call costs a pass over it).
  std::function<const std::vector<I>&()> col_counts;
  std::shared_ptr<const void> keep;
  /// The operand's transpose (for the dot-product form), from the graph's cached transpose.
  std::function<SparseOperand()> transpose;
  /// Whether transpose() costs nothing (already cached).
  bool transpose_cached = false;
};

/// The operand view of graph g with values converted to T.
template <class T, class I, class V>
SparseOperand<I, T> sparse_operand(const Graph<I, V>& g) {
  SparseOperand<I, T> op;
  op.rows = g.rows();
  op.cols = g.cols();
  if constexpr (is_pattern_v<V> || std::is_same_v<V, T>) {
    auto held = std::make_shared<Graph<I, V>>(g);  // shares storage
    op.row_ptr = held->row_ptr().data();
    op.col_idx = held->col_idx().data();
    if constexpr (!is_pattern_v<V>) op.values = held->value_ptr();
    op.keep = held;
  } else {
    struct Held {
      Graph<I, V> g;
      std::vector<T> values;
    };
    auto held =
        std::make_shared<Held>(Held{g, std::vector<T>(g.values().begin(), g.values().end())});
    op.row_ptr = held->g.row_ptr().data();
    op.col_idx = held->g.col_idx().data();
    op.values = held->values.data();
    op.keep = held;
  }
  return op;
}

/// The operand for g used as A (or B) with `transposed`: the cached transpose where asked, and
/// the other orientation as its transpose() (g itself when transposed: no second transpose).
template <class T, class I, class V>
SparseOperand<I, T> oriented_operand(const Graph<I, V>& g, bool transposed) {
  const Graph<I, V> held = g;  // shares storage
  SparseOperand<I, T> op = sparse_operand<T>(transposed ? held.transpose() : held);
  if (transposed) {
    op.transpose = [held] { return sparse_operand<T>(held); };
    op.transpose_cached = true;
    op.col_counts = [held]() -> const std::vector<I>& { return held.out_degrees(); };
  } else {
    op.transpose = [held] { return sparse_operand<T>(held.transpose()); };
    op.transpose_cached = held.has_transpose();
    op.col_counts = [held]() -> const std::vector<I>& { return held.in_degrees(); };
  }
  return op;
}

// The library's entries for the built-in semirings over float / double, int32 / int64
// (ops/core/mxm_sparse.cpp).
template <class S, class I>
void mxm_sparse_builtin(Graph<I, typename S::value_type>& C, const MatrixMask& mask, Accum accum,
                        const SparseOperand<I, typename S::value_type>& A,
                        const SparseOperand<I, typename S::value_type>& B, const Descriptor& desc);
template <class S, class I>
Plan plan_for_mxm_sparse_builtin(const MatrixMask& mask,
                                 const SparseOperand<I, typename S::value_type>& A,
                                 const SparseOperand<I, typename S::value_type>& B,
                                 const Descriptor& desc);
}  // namespace detail

/// C<M> = accum(C, A ⊕.⊗ B) with sparse A, B and C (GrB_mxm).
///
/// T(i,j) = ⊕_k mul(A(i,k), B(k,j)) over the k where both A(i,k) and B(k,j) are stored, added in
/// increasing k, the first product starting the sum; T(i,j) is absent when no such k exists.
/// With desc.transpose_a / transpose_b, A^T / B^T are used (the graphs' cached transposes).
/// Then for each (i,j): where the mask selects it, C(i,j) = accum(C(i,j), T(i,j)) where both
/// exist, else whichever exists (without an accumulator: T(i,j), and an absent T(i,j) removes
/// C(i,j)); elsewhere C(i,j) is kept, or removed when desc.replace is set.
///
/// @param C      output, rows(A) x cols(B) after the transposes; also an input with a mask or an
///               accumulator. Without an accumulator and with no mask or desc.replace, C's old
///               entries are never kept and C is replaced whatever its shape; otherwise a wrong
///               shape throws DimensionMismatch. C may be the same graph as A, B or the mask's
///               source (the result is staged and assigned at the end).
/// @param mask   MatrixMask{} for none, else a mask of C's shape
/// @param accum  Accum::none() or an accumulator
/// @param s      a built-in semiring over float or double
/// @param A, B   graphs of any value type (float, double or Pattern: every entry 1); values are
///               converted to T. Same index type as C.
/// @param desc   transpose_a, transpose_b, replace, device, spgemm_kernel
/// @throws DimensionMismatch on shape errors; InvalidArgument when the product has more entries
///         than the index type holds; OutOfMemory when its arrays exceed the host's memory (both
///         checked before the output is allocated, the numbers in the message; on CUDA against
///         the device's memory); Unsupported for desc.device == Device::Cuda without a device.
/// Deterministic on the CPU: results are bit-identical run to run, for any kernel and any
/// thread count. On CUDA, plus over floats in the row-wise form adds in the order the atomics
/// land (docs/design/mxm_sparse.md); every other case is exact and repeatable.
template <class S, class I, class VA, class VB>
void mxm(Graph<I, typename S::value_type>& C, const MatrixMask& mask, Accum accum, S /*s*/,
         const Graph<I, VA>& A, const Graph<I, VB>& B, const Descriptor& desc = {}) {
  static_assert(S::kind != SemiringKind::Custom,
                "sparse x sparse mxm runs the built-in semirings only (semiring.hpp)");
  using T = typename S::value_type;
  detail::mxm_sparse_builtin<S, I>(C, mask, accum, detail::oriented_operand<T>(A, desc.transpose_a),
                                   detail::oriented_operand<T>(B, desc.transpose_b), desc);
}

/// Shorthand without an accumulator.
template <class S, class I, class VA, class VB>
void mxm(Graph<I, typename S::value_type>& C, const MatrixMask& mask, S s, const Graph<I, VA>& A,
         const Graph<I, VB>& B, const Descriptor& desc = {}) {
  mxm(C, mask, Accum::none(), s, A, B, desc);
}

/// Shorthand without mask or accumulator: C = A ⊕.⊗ B.
template <class S, class I, class VA, class VB>
void mxm(Graph<I, typename S::value_type>& C, S s, const Graph<I, VA>& A, const Graph<I, VB>& B,
         const Descriptor& desc = {}) {
  mxm(C, MatrixMask{}, Accum::none(), s, A, B, desc);
}

/// The plan the sparse mxm C<mask> = A ⊕.⊗ B would use (without running it). Costs a pass over
/// A's rows (the planner's product counts). @throws as mxm for Device::Cuda and shape errors.
template <class S, class I, class VA, class VB>
Plan plan_for_mxm(const MatrixMask& mask, const Graph<I, VA>& A, const Graph<I, VB>& B,
                  const Descriptor& desc = {}) {
  using T = typename S::value_type;
  return detail::plan_for_mxm_sparse_builtin<S, I>(
      mask, detail::oriented_operand<T>(A, desc.transpose_a),
      detail::oriented_operand<T>(B, desc.transpose_b), desc);
}

}  // namespace spindle
