// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file graph_device.hpp
/// @brief Device copies of a graph's CSR arrays, uploaded once and cached on the graph through
/// Graph::extension, so repeated operations (and algorithm iterations) never re-upload.
/// Internal to CUDA builds.
///
/// The structure (row offsets, column indices) is one cached upload per graph; values are cached
/// per requested value type T, so a float graph used with a double semiring converts and uploads
/// its values once as double. Pattern graphs (and semirings whose multiply ignores the matrix
/// value) upload no values: 4 bytes per edge with int32 indices. A transpose is a Graph of its
/// own (Graph::transpose(), cached) and carries its own device copies.

#include <cstdint>

#include "spindle/cuda/device_views.hpp"
#include "spindle/graph.hpp"
#include "spindle/types.hpp"

namespace spindle::detail::cuda {

/// The device structure of A with values converted to T (uploads on first use).
/// @throws OutOfMemory ("... needs X GB, Y GB free on the GPU"), DeviceError.
template <class T, class I, class V>
DeviceCsr<I, T> device_csr(const Graph<I, V>& A);

/// The device structure of A without values.
template <class I, class V>
DeviceCsr<I, Pattern> device_pattern(const Graph<I, V>& A);

}  // namespace spindle::detail::cuda
