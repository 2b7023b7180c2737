// SPDX-License-Identifier: Apache-2.0
// CUDA sddmm entries for T = float, I = std::int64_t (one file per (T, I) so the CUDA build splits
// across cores).
#include "ops/core/instantiate.hpp"
#include "ops/cuda/sddmm/sddmm_entry.cuh"

SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_CUDA_SDDMM_, float, std::int64_t, float)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_CUDA_SDDMM_, float, std::int64_t, double)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_CUDA_SDDMM_, float, std::int64_t, ::spindle::Pattern)
