// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file dense_gemm.hpp
/// @brief Dense × dense product used by GCN inference, behind one swappable call (BLAS on the
/// CPU when the build found one, a cache-blocked loop otherwise; on CUDA our split-TF32 kernel for
/// floats where it applies and cuBLAS otherwise, the result left on the device).

#include <string>

#include "spindle/dense.hpp"
#include "spindle/plan.hpp"

namespace spindle {

/// C = A · B for row-major dense matrices (A: m × k, B: k × n, C resized to m × n).
/// CPU: cblas_{s,d}gemm when the build defines SPINDLE_HAS_BLAS, else an OpenMP cache-blocked
/// loop (each C element is summed by one thread in a fixed order, so it is deterministic for any
/// thread count). k = 0 gives zeros. CUDA: floats run on tensor cores with each operand split into
/// two TF32 halves (FP32 accuracy: ops/cuda/gemm/split_tf32.hpp) when k and n are multiples of 4
/// on sm_80+, else cublasSgemm; SPINDLE_GEMM_SPLIT_TF32=0 forces cuBLAS, SPINDLE_GEMM_TF32=1 allows
/// plain TF32 (faster, about 1e-3 relative error).
/// @param device  Auto resolves as everywhere (executor.hpp)
/// @throws DimensionMismatch when A.cols() != B.rows(); Unsupported for Device::Cuda in a build
///         without CUDA; DeviceError (cuBLAS status) and OutOfMemory on CUDA.
template <class T>
void gemm(DenseMatrix<T>& C, const DenseMatrix<T>& A, const DenseMatrix<T>& B,
          Device device = Device::Auto);

/// gemm() in tuning mode. On CUDA the first call for a shape times cuBLAS's default kernel, the
/// split-TF32 kernel where gemm() would use it, and cublasLt's heuristic algorithms (all of FP32
/// or FP64 accuracy) and keeps the fastest for the process; later calls run it
/// (ops/cuda/gemm/gemm.hpp). Returns that choice as one line
/// ("cublasLt algorithm 2: fastest of 9 candidates (3.2801 ms)", "... (cached: nothing
/// timed)", "nothing to tune (...)" for an empty product or k = 0); on the CPU it is gemm() and
/// returns an empty string. Candidates that fail or lack room for their workspace are skipped.
/// @throws as gemm().
template <class T>
std::string gemm_tuned(DenseMatrix<T>& C, const DenseMatrix<T>& A, const DenseMatrix<T>& B,
                       Device device = Device::Auto);

/// True when gemm() on the CPU calls a BLAS library (for logs and benchmarks).
bool gemm_uses_blas() noexcept;

}  // namespace spindle
