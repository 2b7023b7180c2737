// SPDX-License-Identifier: Apache-2.0
// CUDA mxv / vxm for T = float, int32_t indices: every built-in semiring x V {float, double,
// Pattern}. The semiring lists are split by (T, I) over four files so that no single
// translation unit compiles more than a quarter of the kernels (CI has 2 cores).
#include "ops/core/instantiate.hpp"
#include "ops/cuda/mxv/mxv_entry.cuh"

SPINDLE_SEMIRINGS_FOR_(SPINDLE_CUDA_MXV_INSTANTIATE, float, std::int32_t, float)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_CUDA_MXV_INSTANTIATE, float, std::int32_t, double)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_CUDA_MXV_INSTANTIATE, float, std::int32_t, ::spindle::Pattern)
