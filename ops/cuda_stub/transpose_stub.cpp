// SPDX-License-Identifier: Apache-2.0
// CPU builds: no device to transpose on (spindle/detail/transpose_builder.hpp); the host builds
// every transpose.
#include "spindle/detail/transpose_builder.hpp"

namespace spindle::detail {

TransposeBuilder* cuda_transpose_builder() noexcept { return nullptr; }

}  // namespace spindle::detail
