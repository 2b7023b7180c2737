// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file gemm.hpp
/// @brief Dense × dense products, the operations GCN inference is made of beside the SpMM (BLAS on
/// the CPU when the build found one, a cache-blocked loop otherwise; on CUDA our split-TF32 kernel
/// for floats where it applies and cuBLAS otherwise, the result left on the device).

#include <string>

#include "spindle/dense.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/graph.hpp"
#include "spindle/plan.hpp"
#include "spindle/vector.hpp"

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

/// The fused two-layer dense step of GCN inference, T = ReLU(A · W1 + b1) · W2 (relu false:
/// without the ReLU), in one kernel whose hidden rows stay in registers (split-TF32 warpgroup
/// MMAs; float, compute capability 9.0, where split_tf32 applies). Returns false and leaves T
/// untouched where this device has no such kernel for these shapes or types: compose it from
/// gemm() and add_row_bias() then. @throws DimensionMismatch on inconsistent shapes.
template <class T>
bool gemm_relu_gemm(DenseMatrix<T>& Tout, const DenseMatrix<T>& A, const DenseMatrix<T>& W1,
                    const Vector<T>* b1, bool relu, const DenseMatrix<T>& W2,
                    const Descriptor& desc = {});

/// Whether gemm_relu_gemm has a fused kernel for A (m x k), W1 (k x n1), W2 (n1 x n2) on the
/// device `desc` resolves to.
template <class T>
bool gemm_relu_gemm_applies(std::int64_t m, std::int64_t k, std::int64_t n1, std::int64_t n2,
                            const Descriptor& desc = {});

/// GCN's fused projection, Z = ReLU(A ⊕.⊗ B + bias) · W over plus_times, in the SpMM's store
/// (nnz_balanced_seq's group form; the layer's output is never written). Returns false and
/// leaves Z untouched where the planner would not run that form for A at B's width (or the
/// device is the CPU): compose it from mxm with an MxmEpilogue and gemm() then.
/// @throws DimensionMismatch on inconsistent shapes.
template <class T, class I>
bool mxm_relu_project(DenseMatrix<T>& Z, const Graph<I, T>& A, const DenseMatrix<T>& B,
                      const Vector<T>& bias, const DenseMatrix<T>& W, const Descriptor& desc = {});

}  // namespace spindle
