// SPDX-License-Identifier: Apache-2.0
#include "spindle/executor.hpp"

#include <omp.h>

#include <string>

#include "engine/src/cuda_unavailable.hpp"
#include "spindle/error.hpp"

namespace spindle {

DeviceCaps reference_hopper_caps() {
  DeviceCaps c;
  c.available = true;
  c.name = "reference H100 SXM (planner default, not a detected device)";
  c.cc_major = 9;
  c.cc_minor = 0;
  c.sm_count = 132;
  c.max_threads_per_sm = 2048;
  c.l2_bytes = 50LL << 20;
  c.smem_per_block_optin = 227LL << 10;
  c.global_mem_bytes = 80LL << 30;
  c.peak_bandwidth = 3.35e12;
  return c;
}

Device resolve_device(Device requested) {
  switch (requested) {
    case Device::Cpu:
      return Device::Cpu;
    case Device::Auto:
      return cuda_available() ? Device::Cuda : Device::Cpu;
    case Device::Cuda:
      if (!built_with_cuda()) throw Unsupported("device cuda: this build of spindle has no CUDA");
      if (!cuda_available()) {
        throw Unsupported("device cuda: " + detail::cuda_unavailable_message());
      }
      return Device::Cuda;
  }
  return Device::Cpu;
}

int cpu_threads() noexcept { return omp_get_max_threads(); }

}  // namespace spindle
