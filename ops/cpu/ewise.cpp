// SPDX-License-Identifier: Apache-2.0
// CPU backend: element-wise vector / dense operations, apply, row bias.
#include "ops/core/backend.hpp"
#include "ops/core/index_backend.hpp"
#include "ops/core/instantiate.hpp"
#include "spindle/ops/cpu/ewise_impl.hpp"

namespace spindle::detail::cpu {

template <class T>
void ewise_add(Vector<T>& w, const Mask& mask, Accum accum, BinaryOp op, const Vector<T>& u,
               const Vector<T>& v, bool replace) {
  cpu_kernels::ewise_vectors(w, mask, accum, op, u, v, replace, /*is_union=*/true);
}

template <class T>
void ewise_mult(Vector<T>& w, const Mask& mask, Accum accum, BinaryOp op, const Vector<T>& u,
                const Vector<T>& v, bool replace) {
  cpu_kernels::ewise_vectors(w, mask, accum, op, u, v, replace, /*is_union=*/false);
}

template <class T>
void ewise(DenseMatrix<T>& C, Accum accum, BinaryOp op, const DenseMatrix<T>& A,
           const DenseMatrix<T>& B) {
  cpu_kernels::ewise_dense(C, accum, op, A, B);
}

template <class T>
void apply(Vector<T>& w, const Mask& mask, Accum accum, Unary<T> op, const Vector<T>& u,
           bool replace) {
  cpu_kernels::apply_vector(w, mask, accum, op, u, replace);
}

template <class T>
void apply_index(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u, T s,
                 bool replace) {
  cpu_kernels::apply_index_vector(w, mask, accum, u, s, replace);
}

template <class T>
void apply(DenseMatrix<T>& C, Accum accum, Unary<T> op, const DenseMatrix<T>& A) {
  cpu_kernels::apply_dense(C, accum, op, A);
}

template <class T>
void add_row_bias(DenseMatrix<T>& C, const Vector<T>& bias, Unary<T> op) {
  cpu_kernels::add_row_bias(C, bias, op);
}

#define SPINDLE_INSTANTIATE_CPU_EWISE_(T)                                                   \
  template void ewise_add<T>(Vector<T>&, const Mask&, Accum, BinaryOp, const Vector<T>&,    \
                             const Vector<T>&, bool);                                       \
  template void ewise_mult<T>(Vector<T>&, const Mask&, Accum, BinaryOp, const Vector<T>&,   \
                              const Vector<T>&, bool);                                      \
  template void apply<T>(Vector<T>&, const Mask&, Accum, Unary<T>, const Vector<T>&, bool); \
  SPINDLE_INSTANTIATE_INDEX_APPLY_BACKEND(T)
SPINDLE_FOR_EACH_VECTOR_TYPE(SPINDLE_INSTANTIATE_CPU_EWISE_)

#define SPINDLE_INSTANTIATE_CPU_DENSE_(T)                                          \
  template void ewise<T>(DenseMatrix<T>&, Accum, BinaryOp, const DenseMatrix<T>&,  \
                         const DenseMatrix<T>&);                                   \
  template void apply<T>(DenseMatrix<T>&, Accum, Unary<T>, const DenseMatrix<T>&); \
  template void add_row_bias<T>(DenseMatrix<T>&, const Vector<T>&, Unary<T>);
SPINDLE_FOR_EACH_DENSE_TYPE(SPINDLE_INSTANTIATE_CPU_DENSE_)

}  // namespace spindle::detail::cpu
