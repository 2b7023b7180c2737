// SPDX-License-Identifier: Apache-2.0
// Public element-wise operations: validate -> degenerate shapes -> device -> backend.
#include "spindle/ops/ewise.hpp"

#include "ops/core/backend.hpp"
#include "ops/core/dispatch.hpp"
#include "ops/core/instantiate.hpp"
#include "spindle/ops/detail/checks.hpp"

namespace spindle {

template <class T>
void ewise_add(Vector<T>& w, const Mask& mask, Accum accum, BinaryOp op, const Vector<T>& u,
               const Vector<T>& v, const Descriptor& desc) {
  detail::check_dim("ewise_add", "v", v.size(), "entries", "u's size", u.size());
  const bool cuda = detail::runs_on_cuda(desc);  // Unsupported first, whatever the sizes
  if (!cuda) detail::host_inputs(u, v);
  auto out = detail::prepare_vector_output("ewise_add", w, u.size(), mask, accum,
                                           "the inputs' size", !cuda);
  if (u.size() > 0) {
    if (cuda) {
      detail::cuda::ewise_add(out.get(), mask, accum, op, u, v, desc.replace);
    } else {
      detail::cpu::ewise_add(out.get(), mask, accum, op, u, v, desc.replace);
    }
  }
  out.commit();
}

template <class T>
void ewise_mult(Vector<T>& w, const Mask& mask, Accum accum, BinaryOp op, const Vector<T>& u,
                const Vector<T>& v, const Descriptor& desc) {
  detail::check_dim("ewise_mult", "v", v.size(), "entries", "u's size", u.size());
  const bool cuda = detail::runs_on_cuda(desc);  // Unsupported first, whatever the sizes
  if (!cuda) detail::host_inputs(u, v);
  auto out = detail::prepare_vector_output("ewise_mult", w, u.size(), mask, accum,
                                           "the inputs' size", !cuda);
  if (u.size() > 0) {
    if (cuda) {
      detail::cuda::ewise_mult(out.get(), mask, accum, op, u, v, desc.replace);
    } else {
      detail::cpu::ewise_mult(out.get(), mask, accum, op, u, v, desc.replace);
    }
  }
  out.commit();
}

template <class T>
void ewise(DenseMatrix<T>& C, Accum accum, BinaryOp op, const DenseMatrix<T>& A,
           const DenseMatrix<T>& B, const Descriptor& desc) {
  detail::check_dim("ewise", "B", B.rows(), "rows", "A's row count", A.rows());
  detail::check_dim("ewise", "B", B.cols(), "columns", "A's column count", A.cols());
  const bool cuda = detail::runs_on_cuda(desc);  // Unsupported first, whatever the sizes
  if (!cuda) detail::host_inputs(A, B);
  auto out = detail::prepare_dense_output("ewise", C, A.rows(), A.cols(), accum, !cuda);
  if (A.size() > 0) {
    if (cuda) {
      detail::cuda::ewise(out.get(), accum, op, A, B);
    } else {
      detail::cpu::ewise(out.get(), accum, op, A, B);
    }
  }
  out.commit();
}

#define SPINDLE_INSTANTIATE_EWISE_(T)                                                     \
  template void ewise_add<T>(Vector<T>&, const Mask&, Accum, BinaryOp, const Vector<T>&,  \
                             const Vector<T>&, const Descriptor&);                        \
  template void ewise_mult<T>(Vector<T>&, const Mask&, Accum, BinaryOp, const Vector<T>&, \
                              const Vector<T>&, const Descriptor&);
SPINDLE_FOR_EACH_VECTOR_TYPE(SPINDLE_INSTANTIATE_EWISE_)

#define SPINDLE_INSTANTIATE_EWISE_DENSE_(T)                                       \
  template void ewise<T>(DenseMatrix<T>&, Accum, BinaryOp, const DenseMatrix<T>&, \
                         const DenseMatrix<T>&, const Descriptor&);
SPINDLE_FOR_EACH_DENSE_TYPE(SPINDLE_INSTANTIATE_EWISE_DENSE_)

}  // namespace spindle
