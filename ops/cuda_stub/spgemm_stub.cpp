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

SPINDLE_INSTANTIATE_SPGEMM_CUDA_HOST_ALL_

}  // namespace spindle::detail::cuda
