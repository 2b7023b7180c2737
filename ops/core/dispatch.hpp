// SPDX-License-Identifier: Apache-2.0
#pragma once
// Device choice for the operations without a planner (element-wise, reductions, assignment,
// graph building): the descriptor's device, resolved once per call.
#include "spindle/descriptor.hpp"
#include "spindle/executor.hpp"

namespace spindle::detail {

/// True when the call runs on the CUDA backend. Throws Unsupported for Device::Cuda in a build
/// without CUDA or without a visible device.
inline bool runs_on_cuda(const Descriptor& desc) {
  return resolve_device(desc.device) == Device::Cuda;
}

/// For calls with nothing to compute (empty shapes): the device request is still checked, so
/// Device::Cuda in a build without CUDA throws Unsupported whatever the sizes (as documented).
inline void check_device(const Descriptor& desc) { (void)resolve_device(desc.device); }

}  // namespace spindle::detail
