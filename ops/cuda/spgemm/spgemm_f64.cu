// SPDX-License-Identifier: Apache-2.0
// The CUDA sparse x sparse mxm for double values, int32 and int64 indices (spgemm_run.cuh).
#include "ops/cuda/spgemm/spgemm_run.cuh"

namespace spindle::detail::cuda {

#define SPINDLE_INSTANTIATE_SPGEMM_(T, I)                                                 \
  template void spgemm_device<T, I>(                                                      \
      SpgemmKernel, const SpgemmRowwiseConfig&, const RuntimeSemiring<T>&, T,             \
      const SpgemmOperand<I, T>&, const SpgemmOperand<I, T>&, const SpgemmOperand<I, T>*, \
      const SpgemmMaskOperand<I>&, SpgemmDeviceResult&, cudaStream_t, SpgemmRunInfo*);
SPINDLE_INSTANTIATE_SPGEMM_(double, std::int32_t)
SPINDLE_INSTANTIATE_SPGEMM_(double, std::int64_t)

}  // namespace spindle::detail::cuda
