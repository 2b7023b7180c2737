// SPDX-License-Identifier: Apache-2.0
// CPU backend: graph-building operations (apply, scale, add_identity) and row reductions.
#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "spindle/ops/cpu/graph_impl.hpp"
#include "spindle/ops/cpu/reduce_impl.hpp"

namespace spindle::detail::cpu {

template <class T, class I, class V>
Graph<I, T> apply(Unary<T> op, const Graph<I, V>& A) {
  return cpu_kernels::apply_graph(op, A);
}

template <class T, class I, class V>
Graph<I, T> scale(const Vector<T>& left, const Graph<I, V>& A, const Vector<T>& right) {
  return cpu_kernels::scale_graph(left, A, right);
}

template <class I, class V>
Graph<I, V> add_identity(const Graph<I, V>& A) {
  return cpu_kernels::add_identity(A);
}

template <class T, class I, class V>
void reduce_rows(Vector<T>& w, const Mask& mask, Accum accum, MonoidKind monoid,
                 const Graph<I, V>& A, bool transpose_a, bool replace) {
  cpu_kernels::reduce_rows(w, mask, accum, monoid, transpose_a ? A.transpose() : A, replace);
}

#define SPINDLE_INSTANTIATE_CPU_GRAPH_RESULT_(T, I, V)                                         \
  template Graph<I, T> apply<T, I, V>(Unary<T>, const Graph<I, V>&);                           \
  template Graph<I, T> scale<T, I, V>(const Vector<T>&, const Graph<I, V>&, const Vector<T>&); \
  template void reduce_rows<T, I, V>(Vector<T>&, const Mask&, Accum, MonoidKind,               \
                                     const Graph<I, V>&, bool, bool);
SPINDLE_FOR_EACH_GRAPH_RESULT(SPINDLE_INSTANTIATE_CPU_GRAPH_RESULT_)

#define SPINDLE_INSTANTIATE_CPU_GRAPH_(I, V) \
  template Graph<I, V> add_identity<I, V>(const Graph<I, V>&);
SPINDLE_FOR_EACH_GRAPH(SPINDLE_INSTANTIATE_CPU_GRAPH_)

}  // namespace spindle::detail::cpu
