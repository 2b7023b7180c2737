// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file apply.hpp
/// @brief Unary operators over vectors, dense matrices and graph values (GrB_apply), and
/// diagonal scaling of a graph.

#include "spindle/dense.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// t(i) = op(u(i)) where u(i) is present; then w<mask> = accum(w, t). w and u may alias.
/// w is resized as in mxv. T: float, double, int32_t, int64_t (integer division by zero, as in
/// MInv / DivByScalar of 0, is undefined as in C++).
template <class T>
void apply(Vector<T>& w, const Mask& mask, Accum accum, Unary<T> op, const Vector<T>& u,
           const Descriptor& desc = {});

/// t(i) = i + s where u(i) is present (u's values are not read, only its structure); then
/// w<mask> = accum(w, t): GrB_apply with the index-unary operator GrB_ROWINDEX_INT64 and thunk s.
/// How an algorithm gives the entries of a frontier their own vertex ids (BFS parents). i + s is
/// computed in T: exact for float up to 2^24 and double up to 2^53; for int32_t / int64_t every
/// i + s must fit in T (i is converted to T first; an overflow is undefined, as in C++). w and u
/// may alias; w is resized as in mxv. T: float, double, int32_t, int64_t.
template <class T>
void apply_index(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u,
                 detail::type_identity_t<T> s, const Descriptor& desc = {});

/// C = accum(C, op(A)) elementwise. C and A may alias.
template <class T>
void apply(DenseMatrix<T>& C, Accum accum, Unary<T> op, const DenseMatrix<T>& A,
           const Descriptor& desc = {});

/// C(i, :) = op(C(i, :) + bias) for every row: the GCN epilogue (op is usually Relu or
/// Identity). bias has C.cols() entries (DimensionMismatch otherwise); absent ones add 0.
template <class T>
void add_row_bias(DenseMatrix<T>& C, const Vector<T>& bias, Unary<T> op = {},
                  const Descriptor& desc = {});

/// A new graph with A's structure and values op(A(i,j)) as T (pattern A: op(1)).
template <class T, class I, class V>
Graph<I, T> apply(Unary<T> op, const Graph<I, V>& A, const Descriptor& desc = {});

/// diag(left) * A * diag(right): value (i,j) becomes left(i) * A(i,j) * right(j) as T.
/// Absent entries of left/right count as 1, and so does a size-0 vector (no scaling on that
/// side); otherwise sizes must be rows(A) / cols(A) (DimensionMismatch). Computed as
/// (left(i) * A(i,j)) * right(j). Used for Â = D^-1/2 (A + I) D^-1/2 in GCN.
template <class T, class I, class V>
Graph<I, T> scale(const Vector<T>& left, const Graph<I, V>& A, const Vector<T>& right,
                  const Descriptor& desc = {});

/// A + I over pattern structure: A with every missing diagonal entry (i, i) added (value 1);
/// existing diagonal values are kept. Requires a square graph (DimensionMismatch). Always runs
/// on the host (the result is a host CSR graph).
template <class I, class V>
Graph<I, V> add_identity(const Graph<I, V>& A);

}  // namespace spindle
