// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file transfer.hpp
/// @brief Copies between pageable host memory and the device, staged through pinned buffers when
/// they are large. Internal to CUDA builds.
///
/// A cudaMemcpyAsync from pageable memory runs at a fraction of the bus's speed: the driver stages
/// it through its own small pinned buffers, one at a time. Large copies here go through two pinned
/// buffers of kStagingChunk bytes instead, so that the host's copy of one chunk (OpenMP threads)
/// overlaps the DMA of the other. Small copies (below kStagedCopyMinBytes) are latency-bound and
/// go straight to cudaMemcpyAsync. If the pinned buffers cannot be had, every copy goes straight.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace spindle::detail::cuda {

/// Bytes of each of the two pinned staging buffers.
inline constexpr std::size_t kStagingChunk = std::size_t{8} << 20;
/// Copies from this size on are staged.
inline constexpr std::size_t kStagedCopyMinBytes = std::size_t{4} << 20;

/// dst (device) = src (pageable host), ordered on `stream`. Returns once src may be changed or
/// freed (as cudaMemcpyAsync from pageable memory does); the device copy completes in stream
/// order. @throws DeviceError on a failed CUDA call.
void copy_to_device(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);

/// dst (pageable host) = src (device) after the work enqueued on `stream` so far. Returns once dst
/// holds the data. @throws DeviceError on a failed CUDA call.
void copy_to_host(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);

}  // namespace spindle::detail::cuda
