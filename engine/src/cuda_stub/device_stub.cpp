// SPDX-License-Identifier: Apache-2.0
// Built when CUDA is off: the device queries answer "no device".
#include "spindle/executor.hpp"

namespace spindle {

bool built_with_cuda() noexcept { return false; }
bool cuda_available() noexcept { return false; }
void release_device_resources() noexcept {}
const DeviceCaps& device_caps() {
  static const DeviceCaps none{};
  return none;
}

}  // namespace spindle
