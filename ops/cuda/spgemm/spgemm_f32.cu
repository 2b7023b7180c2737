// SPDX-License-Identifier: Apache-2.0
// The CUDA sparse x sparse mxm for float values, int32 and int64 indices (spgemm_run.cuh).
#include "ops/cuda/spgemm/spgemm_run.cuh"

namespace spindle::detail::cuda {

SPINDLE_INSTANTIATE_SPGEMM_DEVICE_(float, std::int32_t)
SPINDLE_INSTANTIATE_SPGEMM_DEVICE_(float, std::int64_t)

}  // namespace spindle::detail::cuda
