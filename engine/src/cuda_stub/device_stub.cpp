// SPDX-License-Identifier: Apache-2.0
// Built when CUDA is off: the device queries answer "no device".
#include <string>

#include "engine/src/cuda_unavailable.hpp"
#include "spindle/cuda/warm_up.hpp"
#include "spindle/executor.hpp"

namespace spindle {

bool built_with_cuda() noexcept { return false; }
bool cuda_available() noexcept { return false; }
void cuda_warm_up_start() {}
void cuda_warm_up_wait() noexcept {}
void release_device_resources() noexcept {}
const DeviceCaps& device_caps() {
  static const DeviceCaps none{};
  return none;
}

namespace detail {
std::string cuda_unavailable_message() { return "this build of spindle has no CUDA"; }
}  // namespace detail

}  // namespace spindle
