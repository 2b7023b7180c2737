// SPDX-License-Identifier: Apache-2.0
// The sparse mxm's CUDA entry in a build without CUDA.
#include "ops/core/spgemm.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {

template <class T, class I>
void spgemm_cuda_host(const Plan&, SemiringKind, const CsrView<I, T>&, const CsrView<I, T>&,
                      const CsrView<I, T>*, const MaskView<I>&, CsrArrays<I, T>&) {
  throw Unsupported("sparse x sparse mxm on CUDA: this build has no CUDA backend");
}

template void spgemm_cuda_host<float, std::int32_t>(const Plan&, SemiringKind,
                                                    const CsrView<std::int32_t, float>&,
                                                    const CsrView<std::int32_t, float>&,
                                                    const CsrView<std::int32_t, float>*,
                                                    const MaskView<std::int32_t>&,
                                                    CsrArrays<std::int32_t, float>&);
template void spgemm_cuda_host<float, std::int64_t>(const Plan&, SemiringKind,
                                                    const CsrView<std::int64_t, float>&,
                                                    const CsrView<std::int64_t, float>&,
                                                    const CsrView<std::int64_t, float>*,
                                                    const MaskView<std::int64_t>&,
                                                    CsrArrays<std::int64_t, float>&);
template void spgemm_cuda_host<double, std::int32_t>(const Plan&, SemiringKind,
                                                     const CsrView<std::int32_t, double>&,
                                                     const CsrView<std::int32_t, double>&,
                                                     const CsrView<std::int32_t, double>*,
                                                     const MaskView<std::int32_t>&,
                                                     CsrArrays<std::int32_t, double>&);
template void spgemm_cuda_host<double, std::int64_t>(const Plan&, SemiringKind,
                                                     const CsrView<std::int64_t, double>&,
                                                     const CsrView<std::int64_t, double>&,
                                                     const CsrView<std::int64_t, double>*,
                                                     const MaskView<std::int64_t>&,
                                                     CsrArrays<std::int64_t, double>&);

}  // namespace spindle::detail::cuda
