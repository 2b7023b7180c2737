// SPDX-License-Identifier: Apache-2.0
// Whether this build's kernels can run on the visible GPU: a build for other architectures (an
// sm_90 build on an Ampere card) would otherwise fail at its first launch with "no kernel image".
#include <cuda_runtime.h>

#include <string>

#include "engine/src/cuda/device_probe.hpp"

#ifndef SPINDLE_CUDA_ARCHITECTURES
#define SPINDLE_CUDA_ARCHITECTURES "unknown"
#endif

namespace spindle::detail::cuda {
namespace {
__global__ void probe_kernel() {}
}  // namespace

std::string kernels_missing_for_device() {
  cudaFuncAttributes attr{};
  const cudaError_t e = cudaFuncGetAttributes(&attr, probe_kernel);
  if (e == cudaSuccess) return "";
  cudaGetLastError();  // not sticky, but leave nothing behind
  int dev = 0;
  cudaDeviceProp p{};
  std::string what = "the visible GPU";
  std::string cc;
  if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&p, dev) == cudaSuccess) {
    cc = std::to_string(p.major) + std::to_string(p.minor);
    what = std::string(p.name) + " (compute capability " + std::to_string(p.major) + "." +
           std::to_string(p.minor) + ")";
  }
  return "this build of spindle has no kernels for " + what + ": it was built for CUDA " +
         "architectures " + SPINDLE_CUDA_ARCHITECTURES +
         "; reconfigure with -DCMAKE_CUDA_ARCHITECTURES=" + (cc.empty() ? "native" : cc) +
         " (or native on this machine) and rebuild (" + cudaGetErrorString(e) + ")";
}

}  // namespace spindle::detail::cuda
