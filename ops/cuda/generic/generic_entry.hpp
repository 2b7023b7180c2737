// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file generic_entry.hpp
/// @brief The CUDA backend's generic path: mxv / vxm, mxm and sddmm for a semiring without
/// specialized kernels in this build (a built-in semiring outside SPINDLE_CUDA_SEMIRINGS, run
/// with run-time operator codes, or a user-defined semiring registered by SPINDLE_CUDA_SEMIRING).
/// Operands go to the device as for every other kernel; the kernels are the generic family of
/// spindle/cuda/kernels/generic.cuh, reached through a launcher table, so this host code is
/// compiled once per (T, I, V) and not per semiring.

#include <cstdint>
#include <vector>

#include "spindle/cuda/kernels/generic_args.hpp"
#include "spindle/dense.hpp"
#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"
#include "spindle/vector.hpp"

namespace spindle::detail::cuda {

/// What the generic path needs to know of a semiring.
template <class T>
struct GenericSemiring {
  const GenericKernels<T>* kernels = nullptr;
  RuntimeSemiring<T> codes;  ///< the operators of a built-in semiring (ignored for user ones)
  T identity{};
  /// False when the multiply ignores the matrix's value (pair): no values are uploaded or read.
  bool reads_values = true;
  /// True when mul(a, b) == mul(b, a): vxm runs the plain kernel over A^T (else the swapped one).
  bool commutative = true;
};

/// The launchers the library instantiates with RuntimeSemiring<T> (every built-in semiring).
template <class T>
const GenericKernels<T>& builtin_generic_kernels();

/// The generic description of built-in semiring S.
template <class S>
GenericSemiring<typename S::value_type> builtin_generic() {
  using T = typename S::value_type;
  GenericSemiring<T> g;
  g.kernels = &builtin_generic_kernels<T>();
  g.codes = runtime_semiring<T>(S::kind);
  g.identity = S::identity();
  g.reads_values = S::mul_code != MulOp::Pair;
  g.commutative = true;  // every built-in multiply
  return g;
}

/// w<mask> = accum(w, M ⊕.⊗ u) over the rows of M with the generic kernels; `swapped`: the
/// multiply takes u's value first (vxm over the transpose).
template <class T, class I, class V>
void generic_mxv(const Plan& plan, const GenericSemiring<T>& s, Vector<T>& w, const Mask& mask,
                 Accum accum, const Graph<I, V>& M, const Vector<T>& u, bool replace, bool swapped);

/// C = accum(C, act(op(A) ⊕.⊗ op(B) + bias)) with the generic kernels.
template <class T, class I, class V>
void generic_mxm(const Plan& plan, const GenericSemiring<T>& s, DenseMatrix<T>& C, Accum accum,
                 const Graph<I, V>& A, const DenseMatrix<T>& B, const Vector<T>* bias, Unary<T> act,
                 bool transpose_a, bool transpose_b);

/// out = accum(out, S ∘ (X ⊕.⊗ op(Y)ᵀ)) with the generic kernels.
template <class T, class I, class V>
void generic_sddmm(const Plan& plan, const GenericSemiring<T>& s, std::vector<T>& out, Accum accum,
                   const Graph<I, V>& S, const DenseMatrix<T>& X, const DenseMatrix<T>& Y,
                   bool transpose_b);

}  // namespace spindle::detail::cuda
