// SPDX-License-Identifier: Apache-2.0
// CUDA mxm entries for T = double, I = std::int32_t (one file per (T, I) so the CUDA build splits
// across cores; each holds 10 semirings x {values as T, pattern} kernel sets).
#include "ops/core/instantiate.hpp"
#include "ops/cuda/mxm/mxm_entry.cuh"

SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_CUDA_MXM_, double, std::int32_t, float)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_CUDA_MXM_, double, std::int32_t, double)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_CUDA_MXM_, double, std::int32_t, ::spindle::Pattern)
