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

/// Number of OpenMP threads the CPU backend may use: the upper bound set by OMP_NUM_THREADS,
/// omp_set_num_threads or the CLI's --threads (all cores by default).
int cpu_threads() noexcept;

/// Threads the CPU backend's kernels use now for work that could keep them all busy: at most
/// cpu_threads(), and with load adaptation on (the default), at most the CPUs of the process's
/// affinity mask that other processes leave free, at least 1. Other processes' load is read
/// from /proc/stat (their CPU time over windows of about 30 ms, the process's own removed;
/// /proc/loadavg's runnable tasks before the first window) and cached between windows, so a
/// call costs a few nanoseconds and a read about ten microseconds. On a 2-core machine beside a
/// busy loop this is 1: a parallel region waits for its slowest thread, and a thread sharing a
/// core with the busy loop runs half the time. Results never depend on it: every CPU kernel
/// gives the same bits on any thread count. Without /proc it is cpu_threads().
int cpu_threads_now() noexcept;

/// Turns load adaptation on or off for the whole process (on unless the environment has
/// SPINDLE_ADAPT_THREADS=0): off, the kernels use cpu_threads() threads whatever the load.
void set_adaptive_cpu_threads(bool on) noexcept;

/// Whether load adaptation is on (see set_adaptive_cpu_threads).
bool adaptive_cpu_threads() noexcept;

/// One line saying how cpu_threads_now() was decided (the load it saw, the CPUs free, the
/// bound), for explain output and the planner's log.
std::string cpu_threads_basis();

}  // namespace spindle
