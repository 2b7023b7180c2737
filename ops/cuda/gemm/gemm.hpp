// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file gemm.hpp
/// @brief Dense × dense product on the GPU through cuBLAS (GCN's transforms), declared as a
/// backend entry so host code (algorithms/src/dense_gemm.cpp) calls it without CUDA headers.
/// CPU builds get a stub (ops/cuda_stub/gemm_stub.cpp) that throws Unsupported.

#include "spindle/dense.hpp"

namespace spindle::detail::cuda {

/// C = A · B, all row-major, FP32/FP64 arithmetic (no TF32 unless the environment sets
/// SPINDLE_GEMM_TF32=1: results match a CPU BLAS to float rounding). C must already be A.rows() x
/// B.cols(); its old content is not read. The result stays on the device (C's device copy is marked
/// newest).
/// @throws DeviceError (cuBLAS status), OutOfMemory.
template <class T>
void gemm(DenseMatrix<T>& C, const DenseMatrix<T>& A, const DenseMatrix<T>& B);

}  // namespace spindle::detail::cuda
