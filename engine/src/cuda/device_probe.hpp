// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file device_probe.hpp
/// @brief Whether the kernels of this build run on the visible GPU (device_probe.cu).

#include <string>

namespace spindle::detail::cuda {

/// "" when this build has a kernel image (SASS or PTX) the visible GPU can run; otherwise a
/// one-line reason naming the GPU, the architectures built and the CMake option to change.
std::string kernels_missing_for_device();

}  // namespace spindle::detail::cuda
