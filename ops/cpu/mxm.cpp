// SPDX-License-Identifier: Apache-2.0
// CPU backend: SpMM for every built-in semiring, index and graph value type.
#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "spindle/ops/cpu/mxm_impl.hpp"

namespace spindle::detail::cpu {

template <class S, class I, class V>
void mxm(const Plan& /*plan*/, DenseMatrix<typename S::value_type>& C, Accum accum,
         const Graph<I, V>& A, const DenseMatrix<typename S::value_type>& B, bool transpose_a,
         bool transpose_b) {
  cpu_kernels::mxm_run<S>(C, accum, A, B, transpose_a, transpose_b);
}

#define SPINDLE_INSTANTIATE_CPU_MXM_(S, I, V)                                                     \
  template void mxm<S, I, V>(const Plan&, DenseMatrix<S::value_type>&, Accum, const Graph<I, V>&, \
                             const DenseMatrix<S::value_type>&, bool, bool);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_INSTANTIATE_CPU_MXM_)

}  // namespace spindle::detail::cpu
