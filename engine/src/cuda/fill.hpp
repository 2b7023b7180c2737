// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file fill.hpp
/// @brief Fills n elements of elem_bytes with one value on the device (a memset when every byte
/// of the value is the same). Internal to CUDA builds.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace spindle::detail::cuda {

/// Enqueues on `stream`: out[0..n) = *value, elements of elem_bytes (1, 2, 4 or 8).
void fill_elements(void* out, std::int64_t n, std::size_t elem_bytes, const void* value,
                   cudaStream_t stream);

}  // namespace spindle::detail::cuda
