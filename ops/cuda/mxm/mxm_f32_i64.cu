// SPDX-License-Identifier: Apache-2.0
// CUDA mxm entries for T = float, I = std::int64_t (one file per (T, I) so the CUDA build splits
// across cores; each holds 10 semirings x {values as T, pattern} kernel sets).
#include "ops/core/instantiate.hpp"
#include "ops/cuda/mxm/mxm_entry.cuh"

SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_CUDA_MXM_, float, std::int64_t, float)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_CUDA_MXM_, float, std::int64_t, double)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_CUDA_MXM_, float, std::int64_t, ::spindle::Pattern)
