// SPDX-License-Identifier: Apache-2.0
// CUDA mxv / vxm entries for T = double: every built-in semiring x I x V. Host code only: the
// kernel families are declared extern here and compiled in the generated family files.
#include "ops/core/instantiate.hpp"
#include "ops/cuda/mxv/mxv_entry.cuh"

SPINDLE_CUDA_MXV_EXTERN_FAMILIES(double)
SPINDLE_FOR_EACH_SEMIRING_OF_T(SPINDLE_CUDA_MXV_INSTANTIATE, double)
