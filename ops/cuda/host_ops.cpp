// SPDX-License-Identifier: Apache-2.0
// CUDA backend entries that run on the host: operations whose result is a host CSR graph
// (apply / scale / add_identity build a new Graph, which is host-resident by design; its device
// copy is uploaded when first used) and assignment of a vector through an index list
// (GraphBLAS's "last present u(k) wins" needs a stable sort of the list, done on the host; a
// scalar through an index list runs on the device, vector_ops.cu). Their vector operands are
// brought to the host explicitly (counted transfers, spindle/cuda/residency.hpp); the output of
// an index-list assign is left host-resident and goes back up on its next CUDA use.
#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"

namespace spindle::detail::cuda {

template <class T, class I, class V>
Graph<I, T> apply(Unary<T> op, const Graph<I, V>& A) {
  return cpu::apply<T>(op, A);
}

template <class T, class I, class V>
Graph<I, T> scale(const Vector<T>& left, const Graph<I, V>& A, const Vector<T>& right) {
  return cpu::scale<T>(left, A, right);
}

template <class I, class V>
Graph<I, V> add_identity(const Graph<I, V>& A) {
  return cpu::add_identity(A);
}

template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u,
            const std::vector<std::int64_t>& idx, bool replace) {
  cpu::assign(w, mask, accum, u, idx, replace);
}

#define SPINDLE_CUDA_HOST_ASSIGN_(T)                                        \
  template void assign<T>(Vector<T>&, const Mask&, Accum, const Vector<T>&, \
                          const std::vector<std::int64_t>&, bool);
SPINDLE_FOR_EACH_VECTOR_TYPE(SPINDLE_CUDA_HOST_ASSIGN_)

#define SPINDLE_CUDA_HOST_GRAPH_RESULT_(T, I, V)                     \
  template Graph<I, T> apply<T, I, V>(Unary<T>, const Graph<I, V>&); \
  template Graph<I, T> scale<T, I, V>(const Vector<T>&, const Graph<I, V>&, const Vector<T>&);
SPINDLE_FOR_EACH_GRAPH_RESULT(SPINDLE_CUDA_HOST_GRAPH_RESULT_)

#define SPINDLE_CUDA_HOST_GRAPH_(I, V) template Graph<I, V> add_identity<I, V>(const Graph<I, V>&);
SPINDLE_FOR_EACH_GRAPH(SPINDLE_CUDA_HOST_GRAPH_)

}  // namespace spindle::detail::cuda
