// SPDX-License-Identifier: Apache-2.0
// CPU mxv / vxm for T = double, every built-in semiring, index and graph value type.
#include "ops/cpu/mxv_backend.hpp"

namespace spindle {
SPINDLE_FOR_EACH_SEMIRING_OF_T(SPINDLE_INSTANTIATE_CPU_MXV_, double)
}  // namespace spindle
