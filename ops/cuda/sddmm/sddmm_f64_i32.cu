// SPDX-License-Identifier: Apache-2.0
// CUDA sddmm entries for T = double, I = std::int32_t (one file per (T, I) so the CUDA build splits
// across cores).
#include "ops/core/instantiate.hpp"
#include "ops/cuda/sddmm/sddmm_entry.cuh"

SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_CUDA_SDDMM_, double, std::int32_t, float)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_CUDA_SDDMM_, double, std::int32_t, double)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_CUDA_SDDMM_, double, std::int32_t, ::spindle::Pattern)
