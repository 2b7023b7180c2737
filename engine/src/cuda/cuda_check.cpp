// SPDX-License-Identifier: Apache-2.0
// Turning CUDA / cuSPARSE / cuBLAS statuses into typed exceptions.
#include "engine/src/cuda/cuda_check.hpp"

#include <cublas_v2.h>
#include <cusparse.h>

#include <string>

#include "spindle/error.hpp"

namespace spindle::detail::cuda {
namespace {

std::string where(const char* call, const char* file, int line) {
  std::string f = file ? file : "?";
  // Keep the path from the repository root: shorter and the same on every machine.
  for (const char* root : {"/engine/", "/ops/", "/apps/", "/tests/"}) {
    const auto pos = f.rfind(root);
    if (pos != std::string::npos) {
      f = f.substr(pos + 1);
      break;
    }
  }
  return std::string(call) + " at " + f + ":" + std::to_string(line);
}

}  // namespace

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  // Clear a non-sticky error so later calls do not report it again.
  cudaGetLastError();
  const std::string msg = std::string("CUDA error ") + cudaGetErrorName(code) + " (" +
                          std::to_string(static_cast<int>(code)) +
                          "): " + cudaGetErrorString(code) + " in " + where(call, file, line);
  if (code == cudaErrorMemoryAllocation) throw OutOfMemory(msg);
  throw DeviceError(msg, static_cast<int>(code));
}

void throw_cusparse_error(int status, const char* call, const char* file, int line) {
  const auto s = static_cast<cusparseStatus_t>(status);
  const std::string msg = std::string("cuSPARSE error ") + cusparseGetErrorName(s) + " (" +
                          std::to_string(status) + "): " + cusparseGetErrorString(s) + " in " +
                          where(call, file, line);
  if (s == CUSPARSE_STATUS_ALLOC_FAILED) throw OutOfMemory(msg);
  throw DeviceError(msg, status);
}

void throw_cublas_error(int status, const char* call, const char* file, int line) {
  const auto s = static_cast<cublasStatus_t>(status);
  const std::string msg = std::string("cuBLAS error ") + cublasGetStatusName(s) + " (" +
                          std::to_string(status) + "): " + cublasGetStatusString(s) + " in " +
                          where(call, file, line);
  if (s == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemory(msg);
  throw DeviceError(msg, status);
}

}  // namespace spindle::detail::cuda
