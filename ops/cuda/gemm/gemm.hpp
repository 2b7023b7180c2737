// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file gemm.hpp
/// @brief Dense × dense product on the GPU through cuBLAS (GCN's transforms), declared as a
/// backend entry so host code (algorithms/src/dense_gemm.cpp) calls it without CUDA headers.
/// CPU builds get a stub (ops/cuda_stub/gemm_stub.cpp) that throws Unsupported.

#include <string>

#include "spindle/dense.hpp"

namespace spindle::detail::cuda {

/// C = A · B, all row-major, FP32/FP64 accuracy: floats run on the split-TF32 kernel where it
/// applies (split_tf32.hpp; relative errors of a few 2^-24 per product, like an FP32 GEMM, not the
/// same rounding) and on cublasSgemm otherwise or with SPINDLE_GEMM_SPLIT_TF32=0; plain TF32
/// (10-bit mantissas) only when the environment sets SPINDLE_GEMM_TF32=1. C must already be
/// A.rows() x B.cols(); its old content is not read. The result stays on the device (C's device
/// copy is marked newest).
/// @throws DeviceError (cuBLAS status), OutOfMemory.
template <class T>
void gemm(DenseMatrix<T>& C, const DenseMatrix<T>& A, const DenseMatrix<T>& B);

/// gemm() in tuning mode: the first call for a problem (type, m, n, k, TF32 settings, operand
/// alignment) times cublas{S,D}gemm, the split-TF32 kernel where gemm() would use it, and the
/// first 8 algorithms of cublasLt's heuristic list, all of FP32 (or FP64) accuracy, and remembers
/// the fastest for the process (until release_device_resources()); later calls run it without
/// timing. Returns one line for people: "cublasLt algorithm 2: fastest of 9 candidates (3.2801
/// ms)", or "... (cached: nothing timed)"; "nothing to tune (...)" for an empty product or k = 0. A
/// candidate that fails or finds no room for its workspace is skipped. The result is C = A · B as
/// with gemm().
/// @throws DeviceError (cuBLAS status, also when the default path fails), OutOfMemory.
template <class T>
std::string gemm_tuned(DenseMatrix<T>& C, const DenseMatrix<T>& A, const DenseMatrix<T>& B);

/// The environment's GEMM switches, read on every call so a program can compare both settings
/// (unset or empty: the default; a value starting with '0': off; anything else: on).
/// SPINDLE_GEMM_TF32=1 lets float GEMMs use plain TF32 tensor cores (about 4x faster on Hopper,
/// relative errors near 1e-3); off by default, so results have FP32 accuracy.
/// SPINDLE_GEMM_SPLIT_TF32=0 keeps float GEMMs on cuBLAS's FP32 path instead of the split-TF32
/// kernels (split_tf32.hpp, the GEMM pair included), to compare them or for cuBLAS's rounding.
bool gemm_tf32_requested() noexcept;
bool gemm_split_tf32_allowed() noexcept;

/// Test hook: with index >= 0, gemm_tuned times nothing and runs the index-th algorithm (0-based)
/// of cublasLt's heuristic list, so tests can check every candidate's result (InvalidArgument
/// when the list is shorter); -1 restores tuning. Process-wide; not for production use.
void debug_gemm_force_lt(int index) noexcept;

}  // namespace spindle::detail::cuda
