// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file backend.hpp
/// @brief The backend interface: every kernel entry point declared once, implemented twice.
///
///   namespace detail::cpu  — ops/cpu/*.cpp (OpenMP; always built)
///   namespace detail::cuda — ops/cuda/** (CUDA builds) or ops/cuda_stub/*.cpp (CPU builds:
///                            each entry throws Unsupported)
///
/// The public entry points (ops/core/*.cpp) have already validated the arguments, sized the
/// outputs, handled degenerate shapes (0 rows / cols, nnz = 0, N = 0, K = 0) and planned, so a
/// backend receives consistent, non-empty shapes. Flags are passed exactly as the descriptor
/// gave them: a backend applies transpose_a / transpose_b / replace itself (e.g. through the
/// graph's cached transpose). Semiring products carry the semiring as the first template
/// parameter and the Plan the planner chose (plan.device tells which backend; plan.mxv /
/// plan.mxm / plan.sddmm the kernel; plan.params its launch parameters).
/// Instantiation lists for every declaration here: ops/core/instantiate.hpp.

#include <cstdint>
#include <vector>

#include "spindle/dense.hpp"
#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/plan.hpp"
#include "spindle/vector.hpp"

// The same declarations in both backend namespaces, so they cannot drift apart.
#define SPINDLE_BACKEND_DECLARATIONS                                                              \
  /* w<mask> = accum(w, op(A) ⊕.⊗ u), op(A) = A or A^T (transpose_a). */                      \
  template <class S, class I, class V>                                                            \
  void mxv(const Plan& plan, Vector<typename S::value_type>& w, const Mask& mask, Accum accum,    \
           const Graph<I, V>& A, const Vector<typename S::value_type>& u, bool transpose_a,       \
           bool replace);                                                                         \
  /* w<mask> = accum(w, u ⊕.⊗ op(A)), mul(u(i), A(i,j)) operand order. */                     \
  template <class S, class I, class V>                                                            \
  void vxm(const Plan& plan, Vector<typename S::value_type>& w, const Mask& mask, Accum accum,    \
           const Vector<typename S::value_type>& u, const Graph<I, V>& A, bool transpose_a,       \
           bool replace);                                                                         \
  /* C = accum(C, op(A) ⊕.⊗ op(B)); C already sized rows(op(A)) x cols(op(B)). */             \
  template <class S, class I, class V>                                                            \
  void mxm(const Plan& plan, DenseMatrix<typename S::value_type>& C, Accum accum,                 \
           const Graph<I, V>& A, const DenseMatrix<typename S::value_type>& B, bool transpose_a,  \
           bool transpose_b);                                                                     \
  /* out[k] = accum(out[k], mul(S(i,j), X(i,:) ⊕.⊗ op(Y)(j,:))); out already nnz(S) long. */  \
  template <class Sr, class I, class V>                                                           \
  void sddmm(const Plan& plan, std::vector<typename Sr::value_type>& out, Accum accum,            \
             const Graph<I, V>& S, const DenseMatrix<typename Sr::value_type>& X,                 \
             const DenseMatrix<typename Sr::value_type>& Y, bool transpose_b);                    \
  /* Element-wise vector ops (u, v, w of equal size; w may alias u or v). */                      \
  template <class T>                                                                              \
  void ewise_add(Vector<T>& w, const Mask& mask, Accum accum, BinaryOp op, const Vector<T>& u,    \
                 const Vector<T>& v, bool replace);                                               \
  template <class T>                                                                              \
  void ewise_mult(Vector<T>& w, const Mask& mask, Accum accum, BinaryOp op, const Vector<T>& u,   \
                  const Vector<T>& v, bool replace);                                              \
  template <class T>                                                                              \
  void ewise(DenseMatrix<T>& C, Accum accum, BinaryOp op, const DenseMatrix<T>& A,                \
             const DenseMatrix<T>& B);                                                            \
  template <class T>                                                                              \
  void apply(Vector<T>& w, const Mask& mask, Accum accum, Unary<T> op, const Vector<T>& u,        \
             bool replace);                                                                       \
  template <class T>                                                                              \
  void apply(DenseMatrix<T>& C, Accum accum, Unary<T> op, const DenseMatrix<T>& A);               \
  template <class T>                                                                              \
  void add_row_bias(DenseMatrix<T>& C, const Vector<T>& bias, Unary<T> op);                       \
  /* Graph-valued ops (host CSR results). */                                                      \
  template <class T, class I, class V>                                                            \
  Graph<I, T> apply(Unary<T> op, const Graph<I, V>& A);                                           \
  template <class T, class I, class V>                                                            \
  Graph<I, T> scale(const Vector<T>& left, const Graph<I, V>& A, const Vector<T>& right);         \
  template <class I, class V>                                                                     \
  Graph<I, V> add_identity(const Graph<I, V>& A);                                                 \
  /* Reductions (deterministic for any thread count). */                                          \
  template <class T>                                                                              \
  T reduce(MonoidKind monoid, const Vector<T>& u);                                                \
  template <class T>                                                                              \
  T l1_distance(const Vector<T>& u, const Vector<T>& v);                                          \
  template <class T, class I, class V>                                                            \
  void reduce_rows(Vector<T>& w, const Mask& mask, Accum accum, MonoidKind monoid,                \
                   const Graph<I, V>& A, bool transpose_a, bool replace);                         \
  /* Fused random-walk steps (spindle/ops/rank.hpp; inputs checked full, sizes equal). */         \
  template <class T>                                                                              \
  void scale_and_leak(Vector<T>& w, Vector<T>& leak, const Vector<T>& x, const Vector<T>& scale); \
  template <class T>                                                                              \
  T teleport_and_residual(Vector<T>& x_new, const Vector<T>& x, const Vector<T>& leak, double t0, \
                          double t1, const Vector<T>* teleport);                                  \
  /* Assignment (indices already range-checked). */                                               \
  template <class T>                                                                              \
  void assign(Vector<T>& w, const Mask& mask, Accum accum, T s, bool replace);                    \
  template <class T>                                                                              \
  void assign(Vector<T>& w, const Mask& mask, Accum accum, T s,                                   \
              const std::vector<std::int64_t>& idx, bool replace);                                \
  template <class T>                                                                              \
  void assign(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u,                    \
              const std::vector<std::int64_t>& idx, bool replace);                                \
  template <class T>                                                                              \
  void assign(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u, bool replace);

/// Explicit instantiations of the fused random-walk entries for one T (float, double): each
/// backend's source and the stub expand it with SPINDLE_FOR_EACH_DENSE_TYPE inside its namespace.
#define SPINDLE_INSTANTIATE_RANK_BACKEND(T)                                                    \
  template void scale_and_leak<T>(Vector<T>&, Vector<T>&, const Vector<T>&, const Vector<T>&); \
  template T teleport_and_residual<T>(Vector<T>&, const Vector<T>&, const Vector<T>&, double,  \
                                      double, const Vector<T>*);

namespace spindle::detail {
namespace cpu {
SPINDLE_BACKEND_DECLARATIONS
}  // namespace cpu
namespace cuda {
SPINDLE_BACKEND_DECLARATIONS
}  // namespace cuda
}  // namespace spindle::detail
