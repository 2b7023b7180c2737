// SPDX-License-Identifier: Apache-2.0
// CPU builds: the generic CUDA path (ops/cuda/generic/generic_entry.hpp), reached by user-defined
// semirings asked to run on CUDA, says that this build cannot run it.
#include "ops/core/instantiate.hpp"
#include "ops/cuda/generic/generic_entry.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {
namespace {
[[noreturn]] void no_cuda() {
  throw Unsupported("spindle was built without CUDA: this semiring needs --device cpu");
}
}  // namespace

template <class T, class I, class V>
void generic_mxv(const Plan&, const GenericSemiring<T>&, Vector<T>&, const Mask&, Accum,
                 const Graph<I, V>&, const Vector<T>&, bool, bool) {
  no_cuda();
}
template <class T, class I, class V>
void generic_mxm(const Plan&, const GenericSemiring<T>&, DenseMatrix<T>&, Accum, const Graph<I, V>&,
                 const DenseMatrix<T>&, const Vector<T>*, Unary<T>, bool, bool) {
  no_cuda();
}
template <class T, class I, class V>
void generic_sddmm(const Plan&, const GenericSemiring<T>&, std::vector<T>&, Accum,
                   const Graph<I, V>&, const DenseMatrix<T>&, const DenseMatrix<T>&, bool) {
  no_cuda();
}

#define SPINDLE_GENERIC_STUB_(T, I, V)                                                          \
  template void generic_mxv<T, I, V>(const Plan&, const GenericSemiring<T>&, Vector<T>&,        \
                                     const Mask&, Accum, const Graph<I, V>&, const Vector<T>&,  \
                                     bool, bool);                                               \
  template void generic_mxm<T, I, V>(const Plan&, const GenericSemiring<T>&, DenseMatrix<T>&,   \
                                     Accum, const Graph<I, V>&, const DenseMatrix<T>&,          \
                                     const Vector<T>*, Unary<T>, bool, bool);                   \
  template void generic_sddmm<T, I, V>(const Plan&, const GenericSemiring<T>&, std::vector<T>&, \
                                       Accum, const Graph<I, V>&, const DenseMatrix<T>&,        \
                                       const DenseMatrix<T>&, bool);
SPINDLE_FOR_EACH_GRAPH_RESULT(SPINDLE_GENERIC_STUB_)
#undef SPINDLE_GENERIC_STUB_

}  // namespace spindle::detail::cuda
