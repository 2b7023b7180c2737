// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file cuda_check.hpp
/// @brief Status checks for CUDA runtime, cuSPARSE and cuBLAS calls: a failure becomes a
/// spindle::DeviceError carrying the library's code, the call's text and file:line (an
/// allocation failure becomes OutOfMemory with the numbers). Internal to CUDA builds.

#include <cuda_runtime_api.h>

namespace spindle::detail::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);
[[noreturn]] void throw_cusparse_error(int status, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(int status, const char* call, const char* file, int line);

}  // namespace spindle::detail::cuda

/// Checks a cudaError_t-returning call.
#define SPINDLE_CUDA_CHECK(call)                                                             \
  do {                                                                                       \
    const cudaError_t spindle_status_ = (call);                                              \
    if (spindle_status_ != cudaSuccess) {                                                    \
      ::spindle::detail::cuda::throw_cuda_error(spindle_status_, #call, __FILE__, __LINE__); \
    }                                                                                        \
  } while (0)

/// Checks the launch of the kernel just enqueued (configuration errors surface here; faults
/// inside the kernel surface at the next synchronizing call, which is checked too).
#define SPINDLE_CUDA_CHECK_LAUNCH(what) SPINDLE_CUDA_CHECK(cudaPeekAtLastError())

/// Checks a cusparseStatus_t-returning call.
#define SPINDLE_CUSPARSE_CHECK(call)                                                             \
  do {                                                                                           \
    const int spindle_status_ = static_cast<int>(call);                                          \
    if (spindle_status_ != 0) {                                                                  \
      ::spindle::detail::cuda::throw_cusparse_error(spindle_status_, #call, __FILE__, __LINE__); \
    }                                                                                            \
  } while (0)

/// Checks a cublasStatus_t-returning call.
#define SPINDLE_CUBLAS_CHECK(call)                                                             \
  do {                                                                                         \
    const int spindle_status_ = static_cast<int>(call);                                        \
    if (spindle_status_ != 0) {                                                                \
      ::spindle::detail::cuda::throw_cublas_error(spindle_status_, #call, __FILE__, __LINE__); \
    }                                                                                          \
  } while (0)
