// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file cuda_unavailable.hpp
/// @brief Internal: why CUDA cannot run in this process, for error messages. Defined by
/// engine/src/cuda/device_query.cpp in CUDA builds and by engine/src/cuda_stub/device_stub.cpp
/// otherwise.

#include <string>

namespace spindle::detail {

/// "" when CUDA can run; else the reason (no visible device, no kernel for its architecture, or
/// a build without CUDA).
std::string cuda_unavailable_message();

}  // namespace spindle::detail
