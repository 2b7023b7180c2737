// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file executor.hpp
/// @brief What the machine offers, and how a call's Device::Auto is resolved.

#include <cstdint>
#include <string>

#include "spindle/plan.hpp"

namespace spindle {

/// Capabilities of a CUDA device (all zero / false when there is none). The planner takes these
/// explicitly, so CPU-only tests can check its decisions for any device.
struct DeviceCaps {
  bool available = false;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t smem_per_block_optin = 0;
  std::int64_t global_mem_bytes = 0;
  /// Peak DRAM bandwidth from the device's clocks (bytes/s), 0 if unknown.
  double peak_bandwidth = 0.0;
};

/// True when this build was compiled with CUDA.
bool built_with_cuda() noexcept;
/// True when built with CUDA and a device is visible (cached after the first call).
bool cuda_available() noexcept;
/// Capabilities of the current CUDA device ({} when none).
const DeviceCaps& device_caps();
/// A typical H100 (SXM) for planner tests and explain output on machines without a GPU.
DeviceCaps reference_hopper_caps();
/// Resolves Device::Auto: Cuda when cuda_available(), else Cpu. Cuda when unavailable throws
/// Unsupported with the reason ("built without CUDA" / "no CUDA device visible").
Device resolve_device(Device requested);

/// Frees the process-wide CUDA resources Spindle holds between calls: the scratch workspace and
/// the cuBLAS / cuSPARSE handles (with their workspaces). Data owned by graphs, vectors and
/// matrices is not touched (it goes with them). The next CUDA operation creates what it needs
/// again, so this is safe to call at any point where no Spindle operation is running on another
/// thread: before exit (leak checkers then see nothing held), or to give memory back between
/// phases of a program. Does nothing without CUDA.
void release_device_resources() noexcept;

/// Number of OpenMP threads the CPU backend uses.
int cpu_threads() noexcept;

}  // namespace spindle
