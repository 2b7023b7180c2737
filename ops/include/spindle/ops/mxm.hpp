// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mxm.hpp
/// @brief Sparse x dense matrix product over a semiring (SpMM).

#include "spindle/dense.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/graph.hpp"
#include "spindle/operators.hpp"
#include "spindle/semiring.hpp"

namespace spindle {

/// C = accum(C, A ⊕.⊗ B): C(i,n) = ⊕_k mul(A(i,k), B(k,n)) for n in [0, N).
/// Dense outputs have no absent entries: a row of A with no stored entries gives the semiring's
/// identity. (GraphBLAS matrix masks need sparse outputs and are not offered on dense C.)
/// @param C      output, rows(A) x N, row-major; resized if its shape differs and accum is none
/// @param accum  Accum::none() or an accumulator applied elementwise with C's old values
/// @param s      semiring over T
/// @param A      the graph (A^T with desc.transpose_a)
/// @param B      dense operand, cols(A) x N, row-major
/// @throws DimensionMismatch, Unsupported, DeviceError.
template <class S, class I, class V>
void mxm(DenseMatrix<typename S::value_type>& C, Accum accum, S s, const Graph<I, V>& A,
         const DenseMatrix<typename S::value_type>& B, const Descriptor& desc = {});

/// Shorthand without an accumulator.
template <class S, class I, class V>
void mxm(DenseMatrix<typename S::value_type>& C, S s, const Graph<I, V>& A,
         const DenseMatrix<typename S::value_type>& B, const Descriptor& desc = {}) {
  mxm(C, Accum::none(), s, A, B, desc);
}

template <class S, class I, class V>
Plan plan_for_mxm(const Graph<I, V>& A, std::int64_t n_cols, const Descriptor& desc = {});

}  // namespace spindle
