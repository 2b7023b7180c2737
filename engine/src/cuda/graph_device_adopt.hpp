// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file graph_device_adopt.hpp
/// @brief Device arrays made on the device (a transpose sorted there) handed to a graph as its
/// cached device copy, under the keys and slot types of graph_device.cpp, so that device_csr /
/// device_pattern find them instead of uploading. Internal to CUDA builds.

#include <memory>
#include <string>
#include <utility>

#include "engine/src/cuda/device_buffer.hpp"
#include "spindle/graph.hpp"

namespace spindle::detail::cuda {

using AdoptedExtension = std::pair<std::string, std::unique_ptr<ExtensionSlot>>;

/// The structure slot of a graph whose row offsets and column indices (of type I) equal these
/// device arrays.
template <class I>
AdoptedExtension adopted_structure(DeviceBuffer row_ptr, DeviceBuffer col_idx);

/// The values slot, as T, of a graph whose values (as T) equal this device array.
template <class T>
AdoptedExtension adopted_values(DeviceBuffer values);

}  // namespace spindle::detail::cuda
