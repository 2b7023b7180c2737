// SPDX-License-Identifier: Apache-2.0
// Public reductions: validate -> degenerate shapes -> device -> backend.
#include "spindle/ops/reduce.hpp"

#include "ops/core/backend.hpp"
#include "ops/core/dispatch.hpp"
#include "ops/core/instantiate.hpp"
#include "spindle/ops/cpu/functors.hpp"
#include "spindle/ops/detail/checks.hpp"
#include "spindle/ops/detail/prologue.hpp"

namespace spindle {

template <class T>
T monoid_identity(MonoidKind m) {
  return detail::cpu_kernels::monoid_identity_of<T>(m);
}

template <class T>
T reduce(MonoidKind monoid, const Vector<T>& u, const Descriptor& desc) {
  const bool cuda = detail::runs_on_cuda(desc);  // Unsupported first, whatever the size
  if (u.size() == 0) return monoid_identity<T>(monoid);
  if (cuda) return detail::cuda::reduce(monoid, u);
  return detail::cpu::reduce(monoid, u);
}

template <class T>
T l1_distance(const Vector<T>& u, const Vector<T>& v, const Descriptor& desc) {
  detail::check_dim("l1_distance", "v", v.size(), "entries", "u's size", u.size());
  if (u.size() == 0) return T(0);
  if (detail::runs_on_cuda(desc)) return detail::cuda::l1_distance(u, v);
  return detail::cpu::l1_distance(u, v);
}

template <class T, class I, class V>
void reduce_rows(Vector<T>& w, const Mask& mask, Accum accum, MonoidKind monoid,
                 const Graph<I, V>& A, const Descriptor& desc) {
  const std::int64_t n = desc.transpose_a ? A.cols() : A.rows();
  // Both backends reduce the rows of A^T for transpose_a: build it (cached on A) before w is
  // touched, so that a failed allocation leaves w as it was.
  if (desc.transpose_a && n > 0 && A.nnz() > 0) (void)A.transpose();
  const bool cuda = detail::runs_on_cuda(desc);  // Unsupported first, whatever the sizes
  // With no stored entry the result is completed on the host.
  auto out = detail::prepare_vector_output("reduce_rows", w, n, mask, accum,
                                           desc.transpose_a ? "A's column count" : "A's row count",
                                           !cuda || A.nnz() == 0);
  if (n == 0) {
    // nothing to write
  } else if (A.nnz() == 0) {
    detail::cpu_kernels::write_empty_result(out.get(), mask, accum, desc.replace);
  } else if (cuda) {
    detail::cuda::reduce_rows(out.get(), mask, accum, monoid, A, desc.transpose_a, desc.replace);
  } else {
    detail::cpu::reduce_rows(out.get(), mask, accum, monoid, A, desc.transpose_a, desc.replace);
  }
  out.commit();
}

#define SPINDLE_INSTANTIATE_REDUCE_(T)                                   \
  template T monoid_identity<T>(MonoidKind);                             \
  template T reduce<T>(MonoidKind, const Vector<T>&, const Descriptor&); \
  template T l1_distance<T>(const Vector<T>&, const Vector<T>&, const Descriptor&);
SPINDLE_FOR_EACH_VECTOR_TYPE(SPINDLE_INSTANTIATE_REDUCE_)

#define SPINDLE_INSTANTIATE_REDUCE_ROWS_(T, I, V)                                \
  template void reduce_rows<T, I, V>(Vector<T>&, const Mask&, Accum, MonoidKind, \
                                     const Graph<I, V>&, const Descriptor&);
SPINDLE_FOR_EACH_GRAPH_RESULT(SPINDLE_INSTANTIATE_REDUCE_ROWS_)

}  // namespace spindle
