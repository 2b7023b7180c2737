// SPDX-License-Identifier: Apache-2.0
// CUDA sddmm entries for T = double: every built-in semiring x I x V. Host code only: the kernel
// families are declared extern here and compiled in the generated family files.
#include "ops/core/instantiate.hpp"
#include "ops/cuda/sddmm/sddmm_entry.cuh"

SPINDLE_CUDA_SDDMM_EXTERN_FAMILIES(double)
SPINDLE_FOR_EACH_SEMIRING_OF_T(SPINDLE_INSTANTIATE_CUDA_SDDMM_, double)
