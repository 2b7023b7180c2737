// SPDX-License-Identifier: Apache-2.0
// CPU backend: SDDMM for every built-in semiring, index and graph value type.
#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "spindle/ops/cpu/sddmm_impl.hpp"

namespace spindle::detail::cpu {

template <class Sr, class I, class V>
void sddmm(const Plan& /*plan*/, std::vector<typename Sr::value_type>& out, Accum accum,
           const Graph<I, V>& S, const DenseMatrix<typename Sr::value_type>& X,
           const DenseMatrix<typename Sr::value_type>& Y, bool transpose_b) {
  cpu_kernels::sddmm_run<Sr>(out, accum, S, X, Y, transpose_b);
}

#define SPINDLE_INSTANTIATE_CPU_SDDMM_(Sr, I, V)                                        \
  template void sddmm<Sr, I, V>(const Plan&, std::vector<Sr::value_type>&, Accum,       \
                                const Graph<I, V>&, const DenseMatrix<Sr::value_type>&, \
                                const DenseMatrix<Sr::value_type>&, bool);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_INSTANTIATE_CPU_SDDMM_)

}  // namespace spindle::detail::cpu
