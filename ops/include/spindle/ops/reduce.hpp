// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file reduce.hpp
/// @brief Reductions to a scalar or to a vector (GrB_reduce).

#include "spindle/dense.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// The monoid's identity for T (Plus: 0, Times: 1, Min: +inf, Max: -inf, LOr/Any: 0, LAnd: 1).
template <class T>
T monoid_identity(MonoidKind m);

/// Reduces the present entries of u with the monoid; the identity when none is present. The
/// fold is op(acc, x) from the identity, with the operators' rules: Min / Max replace acc only
/// when x compares less / greater, so NaN entries are skipped; Plus / Times propagate NaN; Any
/// returns the first present entry. T: float, double, int32_t, int64_t.
/// Deterministic for every thread count (fixed blocking, combined in a fixed order), so plus
/// over floats gives the same bits every run.
template <class T>
T reduce(MonoidKind monoid, const Vector<T>& u, const Descriptor& desc = {});

/// Sum of |u(i) - v(i)| over entries present in both (the L1 residual of iterative solvers),
/// deterministic.
template <class T>
T l1_distance(const Vector<T>& u, const Vector<T>& v, const Descriptor& desc = {});

/// Row reduction: t(i) = ⊕_j A(i,j) over the stored entries of row i (as T; pattern: 1 each);
/// absent for empty rows. Then w<mask> = accum(w, t). With desc.transpose_a, columns.
/// Each row folds in column order as reduce() does. w is resized as in mxv.
template <class T, class I, class V>
void reduce_rows(Vector<T>& w, const Mask& mask, Accum accum, MonoidKind monoid,
                 const Graph<I, V>& A, const Descriptor& desc = {});

}  // namespace spindle
