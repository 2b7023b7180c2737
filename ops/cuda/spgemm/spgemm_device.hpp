// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file spgemm_device.hpp
/// @brief The CUDA sparse x sparse mxm on device arrays (spgemm_kernels.cuh says how), and its
/// host entry over host CSR arrays (spgemm_entry.cpp). Host-compilable: no kernels here.

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>

#include "engine/src/cuda/device_buffer.hpp"
#include "ops/core/spgemm.hpp"
#include "spindle/cuda/device_views.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"

namespace spindle::detail::cuda {

/// C on the device.
struct SpgemmDeviceResult {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  DeviceBuffer rp;  ///< rows + 1 offsets of the index type
  DeviceBuffer ci;
  DeviceBuffer v;
};

/// What a run did: rows per bin (none or copied from one row of B, ESC, hash tables of 128 /
/// 512 / 2048 / 8192 slots, dense slabs) in the numeric phase, and the dense slabs made.
struct SpgemmRunInfo {
  std::array<std::int64_t, 7> rows_per_bin{};
  std::int64_t slabs = 0;
};

/// C = A ⊕.⊗ B on the device, restricted to the mask where one is given (MaskView holding
/// device pointers; rp == nullptr: none), by `kernel` (CudaRowwise or CudaMaskedDot; the dot form
/// needs Bt = B^T and a mask that is not complemented). Operands are the engine's device views
/// (values == nullptr: every entry is 1), their rows sorted without duplicates, as a Graph's
/// are. C's rows are sorted. Runs on `stream`, which must be
/// the library's (context().stream: the workspaces are allocated and freed in its order), and
/// returns when C is complete.
/// @throws OutOfMemory with the bytes when C or the workspace cannot be allocated;
///         InvalidArgument when C's entries exceed the index type.
template <class T, class I>
void spgemm_device(SpgemmKernel kernel, const SpgemmRowwiseConfig& config,
                   const RuntimeSemiring<T>& s, T identity, const DeviceCsr<I, T>& A,
                   const DeviceCsr<I, T>& B, const DeviceCsr<I, T>* Bt, const MaskView<I>& mask,
                   SpgemmDeviceResult& C, cudaStream_t stream, SpgemmRunInfo* info = nullptr);

}  // namespace spindle::detail::cuda
