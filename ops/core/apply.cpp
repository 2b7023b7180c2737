// SPDX-License-Identifier: Apache-2.0
// Public apply / scale / add_identity / add_row_bias: validate -> degenerate -> device -> backend.
#include "spindle/ops/apply.hpp"

#include "ops/core/backend.hpp"
#include "ops/core/dispatch.hpp"
#include "ops/core/index_backend.hpp"
#include "ops/core/instantiate.hpp"
#include "spindle/ops/detail/checks.hpp"

namespace spindle {

template <class T>
void apply(Vector<T>& w, const Mask& mask, Accum accum, Unary<T> op, const Vector<T>& u,
           const Descriptor& desc) {
  const bool cuda = detail::runs_on_cuda(desc);  // Unsupported first, whatever the sizes
  if (!cuda) detail::host_inputs(u);
  auto out = detail::prepare_vector_output("apply", w, u.size(), mask, accum, "u's size", !cuda);
  if (u.size() > 0) {
    if (cuda) {
      detail::cuda::apply(out.get(), mask, accum, op, u, desc.replace);
    } else {
      detail::cpu::apply(out.get(), mask, accum, op, u, desc.replace);
    }
  }
  out.commit();
}

template <class T>
void apply_index(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u,
                 detail::type_identity_t<T> s, const Descriptor& desc) {
  const bool cuda = detail::runs_on_cuda(desc);  // Unsupported first, whatever the sizes
  if (!cuda) detail::host_inputs(u);
  auto out =
      detail::prepare_vector_output("apply_index", w, u.size(), mask, accum, "u's size", !cuda);
  if (u.size() > 0) {
    if (cuda) {
      detail::cuda::apply_index(out.get(), mask, accum, u, s, desc.replace);
    } else {
      detail::cpu::apply_index(out.get(), mask, accum, u, s, desc.replace);
    }
  }
  out.commit();
}

template <class T>
void apply(DenseMatrix<T>& C, Accum accum, Unary<T> op, const DenseMatrix<T>& A,
           const Descriptor& desc) {
  const bool cuda = detail::runs_on_cuda(desc);  // Unsupported first, whatever the sizes
  if (!cuda) detail::host_inputs(A);
  auto out = detail::prepare_dense_output("apply", C, A.rows(), A.cols(), accum, !cuda);
  if (A.size() > 0) {
    if (cuda) {
      detail::cuda::apply(out.get(), accum, op, A);
    } else {
      detail::cpu::apply(out.get(), accum, op, A);
    }
  }
  out.commit();
}

template <class T>
void add_row_bias(DenseMatrix<T>& C, const Vector<T>& bias, Unary<T> op, const Descriptor& desc) {
  detail::check_dim("add_row_bias", "bias", bias.size(), "entries", "C's column count", C.cols());
  if (C.size() == 0) return detail::check_device(desc);
  if (detail::runs_on_cuda(desc)) {
    detail::cuda::add_row_bias(C, bias, op);
  } else {
    detail::cpu::add_row_bias(C, bias, op);
  }
}

template <class T, class I, class V>
Graph<I, T> apply(Unary<T> op, const Graph<I, V>& A, const Descriptor& desc) {
  if (detail::runs_on_cuda(desc)) return detail::cuda::apply(op, A);
  return detail::cpu::apply(op, A);
}

template <class T, class I, class V>
Graph<I, T> scale(const Vector<T>& left, const Graph<I, V>& A, const Vector<T>& right,
                  const Descriptor& desc) {
  if (left.size() != 0) {
    detail::check_dim("scale", "left", left.size(), "entries", "A's row count", A.rows());
  }
  if (right.size() != 0) {
    detail::check_dim("scale", "right", right.size(), "entries", "A's column count", A.cols());
  }
  if (detail::runs_on_cuda(desc)) return detail::cuda::scale(left, A, right);
  return detail::cpu::scale(left, A, right);
}

template <class I, class V>
Graph<I, V> add_identity(const Graph<I, V>& A) {
  detail::check_dim("add_identity", "A", A.cols(), "columns", "its row count", A.rows());
  return detail::cpu::add_identity(A);
}

#define SPINDLE_INSTANTIATE_APPLY_VECTOR_(T)                                         \
  template void apply<T>(Vector<T>&, const Mask&, Accum, Unary<T>, const Vector<T>&, \
                         const Descriptor&);                                         \
  template void apply_index<T>(Vector<T>&, const Mask&, Accum, const Vector<T>&,     \
                               detail::type_identity_t<T>, const Descriptor&);
SPINDLE_FOR_EACH_VECTOR_TYPE(SPINDLE_INSTANTIATE_APPLY_VECTOR_)

#define SPINDLE_INSTANTIATE_APPLY_DENSE_(T)                                       \
  template void apply<T>(DenseMatrix<T>&, Accum, Unary<T>, const DenseMatrix<T>&, \
                         const Descriptor&);                                      \
  template void add_row_bias<T>(DenseMatrix<T>&, const Vector<T>&, Unary<T>, const Descriptor&);
SPINDLE_FOR_EACH_DENSE_TYPE(SPINDLE_INSTANTIATE_APPLY_DENSE_)

#define SPINDLE_INSTANTIATE_APPLY_GRAPH_(T, I, V)                                             \
  template Graph<I, T> apply<T, I, V>(Unary<T>, const Graph<I, V>&, const Descriptor&);       \
  template Graph<I, T> scale<T, I, V>(const Vector<T>&, const Graph<I, V>&, const Vector<T>&, \
                                      const Descriptor&);
SPINDLE_FOR_EACH_GRAPH_RESULT(SPINDLE_INSTANTIATE_APPLY_GRAPH_)

#define SPINDLE_INSTANTIATE_ADD_IDENTITY_(I, V) \
  template Graph<I, V> add_identity<I, V>(const Graph<I, V>&);
SPINDLE_FOR_EACH_GRAPH(SPINDLE_INSTANTIATE_ADD_IDENTITY_)

}  // namespace spindle
