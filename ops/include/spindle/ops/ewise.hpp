// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file ewise.hpp
/// @brief Element-wise operations on vectors and dense matrices (GrB_eWiseAdd / GrB_eWiseMult).

#include "spindle/dense.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// Union: t(i) = op(u(i), v(i)) where both are present, u(i) or v(i) where only one is,
/// absent where neither is. Then w<mask> = accum(w, t) as in mxv. u, v and w may alias.
/// w is resized as in mxv. T: float, double, int32_t, int64_t.
/// @throws DimensionMismatch when sizes differ.
template <class T>
void ewise_add(Vector<T>& w, const Mask& mask, Accum accum, BinaryOp op, const Vector<T>& u,
               const Vector<T>& v, const Descriptor& desc = {});

/// Intersection: t(i) = op(u(i), v(i)) where both are present, absent elsewhere.
template <class T>
void ewise_mult(Vector<T>& w, const Mask& mask, Accum accum, BinaryOp op, const Vector<T>& u,
                const Vector<T>& v, const Descriptor& desc = {});

/// C = accum(C, op(A, B)) elementwise on equal shapes (dense: every element is present).
template <class T>
void ewise(DenseMatrix<T>& C, Accum accum, BinaryOp op, const DenseMatrix<T>& A,
           const DenseMatrix<T>& B, const Descriptor& desc = {});

}  // namespace spindle
