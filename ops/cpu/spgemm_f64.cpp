// SPDX-License-Identifier: Apache-2.0
// CPU backend: the sparse x sparse mxm kernels for T = double (split by T so the two halves compile
// in parallel).
#include "ops/core/instantiate.hpp"
#include "ops/cpu/spgemm_kernels.hpp"

namespace spindle::detail {

#define SPINDLE_INSTANTIATE_SPGEMM_(S, I, V)                                           \
  template void spgemm_cpu<S, I>(const Plan&, const CsrView<I, S::value_type>&,        \
                                 const CsrView<I, S::value_type>&,                     \
                                 const CsrView<I, S::value_type>*, const MaskView<I>&, \
                                 const std::vector<std::int64_t>&, CsrArrays<I, S::value_type>&);
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_SPGEMM_, double, std::int32_t, double)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_SPGEMM_, double, std::int64_t, double)

template std::vector<std::int64_t> row_flops(const CsrView<std::int32_t, double>&,
                                             const CsrView<std::int32_t, double>&);
template std::vector<std::int64_t> row_flops(const CsrView<std::int64_t, double>&,
                                             const CsrView<std::int64_t, double>&);
template void check_spgemm_output<std::int32_t, double>(std::int64_t, std::int64_t, std::int64_t,
                                                        const char*);
template void check_spgemm_output<std::int64_t, double>(std::int64_t, std::int64_t, std::int64_t,
                                                        const char*);

}  // namespace spindle::detail
