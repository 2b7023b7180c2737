// SPDX-License-Identifier: Apache-2.0
// CPU backend: the sparse x sparse mxm kernels for T = float (split by T so the two halves compile
// in parallel).
#include "ops/core/instantiate.hpp"
#include "ops/cpu/spgemm_kernels.hpp"

namespace spindle::detail {

#define SPINDLE_INSTANTIATE_SPGEMM_(S, I, V)                                           \
  template void spgemm_cpu<S, I>(const Plan&, const CsrView<I, S::value_type>&,        \
                                 const CsrView<I, S::value_type>&,                     \
                                 const CsrView<I, S::value_type>*, const MaskView<I>&, \
                                 const std::vector<std::int64_t>&, CsrArrays<I, S::value_type>&);
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_SPGEMM_, float, std::int32_t, float)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_SPGEMM_, float, std::int64_t, float)

template std::vector<std::int64_t> row_flops(const CsrView<std::int32_t, float>&,
                                             const CsrView<std::int32_t, float>&);
template std::vector<std::int64_t> row_flops(const CsrView<std::int64_t, float>&,
                                             const CsrView<std::int64_t, float>&);
template void check_spgemm_output<std::int32_t, float>(std::int64_t, std::int64_t, std::int64_t,
                                                       const char*);
template void check_spgemm_output<std::int64_t, float>(std::int64_t, std::int64_t, std::int64_t,
                                                       const char*);

}  // namespace spindle::detail
