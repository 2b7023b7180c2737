// SPDX-License-Identifier: Apache-2.0
// CUDA mxv / vxm for T = double, int64_t indices: every built-in semiring x V {float, double,
// Pattern}. The semiring lists are split by (T, I) over four files so that no single
// translation unit compiles more than a quarter of the kernels (CI has 2 cores).
#include "ops/core/instantiate.hpp"
#include "ops/cuda/mxv/mxv_entry.cuh"

SPINDLE_SEMIRINGS_FOR_(SPINDLE_CUDA_MXV_INSTANTIATE, double, std::int64_t, float)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_CUDA_MXV_INSTANTIATE, double, std::int64_t, double)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_CUDA_MXV_INSTANTIATE, double, std::int64_t, ::spindle::Pattern)
