// SPDX-License-Identifier: Apache-2.0
// CPU builds: the CUDA backend's semiring products (backend.hpp) exist so call sites need no
// #ifdef, and each says clearly that this build cannot run them.
#include <string>

#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {
namespace {
[[noreturn]] void no_cuda(const char* op) {
  throw Unsupported(std::string("spindle was built without CUDA: ") + op + " needs --device cpu");
}
}  // namespace

template <class S, class I, class V>
void mxv(const Plan&, Vector<typename S::value_type>&, const Mask&, Accum, const Graph<I, V>&,
         const Vector<typename S::value_type>&, bool, bool) {
  no_cuda("mxv");
}

template <class S, class I, class V>
void vxm(const Plan&, Vector<typename S::value_type>&, const Mask&, Accum,
         const Vector<typename S::value_type>&, const Graph<I, V>&, bool, bool) {
  no_cuda("vxm");
}

template <class S, class I, class V>
void mxm(const Plan&, DenseMatrix<typename S::value_type>&, Accum, const Graph<I, V>&,
         const DenseMatrix<typename S::value_type>&, bool, bool) {
  no_cuda("mxm");
}

template <class Sr, class I, class V>
void sddmm(const Plan&, std::vector<typename Sr::value_type>&, Accum, const Graph<I, V>&,
           const DenseMatrix<typename Sr::value_type>&, const DenseMatrix<typename Sr::value_type>&,
           bool) {
  no_cuda("sddmm");
}

#define SPINDLE_INSTANTIATE_STUB_(S, I, V)                                                        \
  template void mxv<S, I, V>(const Plan&, Vector<S::value_type>&, const Mask&, Accum,             \
                             const Graph<I, V>&, const Vector<S::value_type>&, bool, bool);       \
  template void vxm<S, I, V>(const Plan&, Vector<S::value_type>&, const Mask&, Accum,             \
                             const Vector<S::value_type>&, const Graph<I, V>&, bool, bool);       \
  template void mxm<S, I, V>(const Plan&, DenseMatrix<S::value_type>&, Accum, const Graph<I, V>&, \
                             const DenseMatrix<S::value_type>&, bool, bool);                      \
  template void sddmm<S, I, V>(const Plan&, std::vector<S::value_type>&, Accum,                   \
                               const Graph<I, V>&, const DenseMatrix<S::value_type>&,             \
                               const DenseMatrix<S::value_type>&, bool);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_INSTANTIATE_STUB_)

}  // namespace spindle::detail::cuda
