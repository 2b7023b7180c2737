// SPDX-License-Identifier: Apache-2.0
// Device discovery through the CUDA runtime (compiled only in CUDA builds).
#include <cuda_runtime_api.h>

#include <string>

#include "engine/src/cuda/device_probe.hpp"
#include "engine/src/cuda_unavailable.hpp"
#include "spindle/error.hpp"
#include "spindle/executor.hpp"

namespace spindle {

bool built_with_cuda() noexcept { return true; }

namespace {
// Why CUDA cannot run here ("" when it can): no visible device, or no kernel of this build for
// the device's architecture (device_probe.cu).
const std::string& cuda_unavailable_reason() {
  static const std::string why = []() -> std::string {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      cudaGetLastError();  // clear the sticky "no device" status
      return "no CUDA device is visible";
    }
    return detail::cuda::kernels_missing_for_device();
  }();
  return why;
}
}  // namespace

bool cuda_available() noexcept {
  try {
    return cuda_unavailable_reason().empty();
  } catch (...) {
    return false;
  }
}

namespace detail {
std::string cuda_unavailable_message() { return cuda_unavailable_reason(); }
}  // namespace detail

const DeviceCaps& device_caps() {
  static const DeviceCaps caps = [] {
    DeviceCaps c;
    if (!cuda_available()) return c;
    int dev = 0;
    cudaDeviceProp p{};
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
      return c;
    }
    c.available = true;
    c.name = p.name;
    c.cc_major = p.major;
    c.cc_minor = p.minor;
    c.sm_count = p.multiProcessorCount;
    c.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    c.l2_bytes = p.l2CacheSize;
    c.smem_per_block_optin = static_cast<std::int64_t>(p.sharedMemPerBlockOptin);
    c.global_mem_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
    int mem_clock_khz = 0, bus_width = 0;
    cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, dev);
    cudaDeviceGetAttribute(&bus_width, cudaDevAttrGlobalMemoryBusWidth, dev);
    c.peak_bandwidth = 2.0 * mem_clock_khz * 1e3 * (bus_width / 8.0);
    return c;
  }();
  return caps;
}

}  // namespace spindle
