// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file split_tf32.hpp
/// @brief FP32 GEMM on tensor cores by operand splitting ("3xTF32"): each float x is held as
/// hi + lo, both TF32 (hi = x rounded to nearest TF32, lo = the remainder truncated to TF32), and
/// a·b is accumulated as lo_a·hi_b + hi_a·lo_b + hi_a·hi_b in FP32 by mma.sync. The dropped lo·lo
/// term and the truncation are within about 2^-21 of each product, so results have FP32-class
/// accuracy (not bit-identical to a SIMT FP32 GEMM; the tests bound the error by 4x cuBLAS's FP32
/// error on the same data) at the tensor cores' rate rather than the FP32 pipes'.
/// GCN's tall-skinny products (millions of rows times 128 x 128) run at a third of the FP32 peak
/// through cuBLAS; see docs/design/gemm.md for what this kernel does there. On
/// Hopper the products with k, n <= 128 run on warpgroup MMAs (split_tf32_wgmma.hpp).
///
/// Host-callable and free of CUDA headers (the stream is CUDA's opaque CUstream_st*, which is
/// cudaStream_t), so the tests compile in every build; CPU builds get a stub
/// (ops/cuda_stub/split_tf32_stub.cpp) that applies nowhere and throws Unsupported.

#include <cstdint>

#include "spindle/dense.hpp"
#include "spindle/vector.hpp"

struct CUstream_st;

namespace spindle::detail::cuda {

/// Whether gemm_split_tf32 can run C (m x n) = A (m x k) · B (k x n), all row-major and dense
/// (leading dimensions k, n, n): the device is sm_80 or newer and this build has the kernel for
/// it, k and n are multiples of 4 (rows are whole 16-byte vectors) and the three pointers are
/// 16-byte aligned, and n is at most 65535 column tiles. Otherwise callers use cuBLAS.
bool split_tf32_applies(int m, int n, int k, const float* a, const float* b, const float* c);

/// C = A · B (see above) on `stream`; C's old content is not read. m, n > 0, k ≥ 0.
/// Infinities and NaNs propagate as in an FP32 product (an infinite x is held as a finite hi plus
/// an infinite lo). One difference: an infinity times a nonzero value below 2^-136 in magnitude
/// (whose TF32 hi part is 0) gives NaN where FP32 gives an infinity.
/// @throws DeviceError on a launch failure.
void gemm_split_tf32(int m, int n, int k, const float* a, const float* b, float* c,
                     CUstream_st* stream);

/// Two dense products in one kernel on Hopper: T = act(A · W1 + b1) · W2, with act ReLU where
/// `relu` (UnaryOp::Relu: max(x, 0), a NaN becomes 0) and b1 nullptr for none; the hidden A · W1
/// rows never leave registers (split_tf32_wgmma.hpp), so a GCN layer aggregated first writes only
/// the next layer's narrow input. Runs where the device has compute capability 9.0 and this build
/// has its sm_90a code, k = A's columns <= 128 and a multiple of 4, n1 = W1's columns <= 128,
/// n2 = W2's columns <= 32 and a multiple of 4, A has rows, and A's and T's storage are 16-byte
/// aligned; returns false (T untouched) elsewhere. T is resized to A's rows x n2 and written
/// whole. Accuracy: split-TF32's (each of the two products, above).
/// @throws DimensionMismatch when W1 has not A's columns as rows or W2 not W1's columns, or b1
/// not W1's columns as entries; DeviceError on a launch failure.
bool gemm_split_tf32_mlp(DenseMatrix<float>& T, const DenseMatrix<float>& A,
                         const DenseMatrix<float>& W1, const Vector<float>* b1, bool relu,
                         const DenseMatrix<float>& W2);

/// Whether gemm_split_tf32_mlp runs for A (m x k), W1 (k x n1), W2 (n1 x n2) on this device
/// (sizes, device and kernel image; storage alignment is checked by the call itself).
bool split_tf32_mlp_applies(std::int64_t m, std::int64_t k, std::int64_t n1, std::int64_t n2);

/// Whether this build has the Hopper (wgmma, sm_90a) form of the kernel, which gemm_split_tf32
/// runs on compute capability 9.0 devices for k, n <= 128 (split_tf32_wgmma.hpp).
bool split_tf32_has_wgmma() noexcept;

/// The name of the blocking gemm_split_tf32 runs for n and k (for logs: "resident 64x128 w2x2
/// s3"; see debug_split_tf32_force).
const char* split_tf32_blocking(int n, int k) noexcept;

/// Test hook: C = A · B by gemm_split_tf32 on the matrices' device copies (uploaded as needed,
/// C's device copy marked newest), on the context's stream, whatever SPINDLE_GEMM_SPLIT_TF32
/// says. Returns false, running nothing, where split_tf32_applies() refuses the operands.
bool debug_split_tf32_gemm(DenseMatrix<float>& C, const DenseMatrix<float>& A,
                           const DenseMatrix<float>& B);

/// Test and benchmark hook: the number of blockings the kernel is built with, and forcing one of
/// them (index in [0, count)) for every later call, process-wide; returns its name ("128x128 w2x4
/// s3 b2": rows x columns per block, warp grid, pipeline stages, blocks per SM; "wgmma 2x64x128":
/// two warpgroups of 64 x 128), or nullptr for an index outside, which restores the default choice
/// by n. A forced blocking that cannot take the shape, or cannot run on this device (the wgmma
/// ones off Hopper), gives way to the default. Not for production use.
int debug_split_tf32_blockings() noexcept;
const char* debug_split_tf32_force(int index) noexcept;

}  // namespace spindle::detail::cuda
