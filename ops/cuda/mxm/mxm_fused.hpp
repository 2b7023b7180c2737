// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mxm_fused.hpp
/// @brief The CUDA backend's SpMM with a fused epilogue (bias and activation, the GCN layer),
/// declared beside backend.hpp's entries: C = accum(C, act(op(A) ⊕.⊗ op(B) + bias)). Plain C++;
/// CPU builds get a stub (ops/cuda_stub/mxm_fused_stub.cpp) that throws Unsupported.

#include <cstdint>

#include "spindle/cuda/tune.hpp"
#include "spindle/dense.hpp"
#include "spindle/graph.hpp"
#include "spindle/operators.hpp"
#include "spindle/plan.hpp"
#include "spindle/vector.hpp"

namespace spindle::detail::cuda {

/// bias: nullptr or a full vector of C.cols() entries; act: applied after the bias.
template <class S, class I, class V>
void mxm_fused(const Plan& plan, DenseMatrix<typename S::value_type>& C, Accum accum,
               const Graph<I, V>& A, const DenseMatrix<typename S::value_type>& B,
               const Vector<typename S::value_type>* bias, Unary<typename S::value_type> act,
               bool transpose_a, bool transpose_b);

}  // namespace spindle::detail::cuda

namespace spindle {

/// Tuning mode for mxm on CUDA: times the SpMM candidates (every kernel; column tiles for wide
/// N) once for C = A ⊕.⊗ B with B of width n (random data), and caches the winner on A. Later
/// CUDA mxm calls over A with this (n, semiring kind, value type) and no forced kernel run the
/// winner (logged with "tuned" under SPINDLE_LOG=plan). For transpose_a, tune A.transpose().
/// The cache is in memory (options.plan_cache is not used for mxm).
/// @throws Unsupported without CUDA or a device; DeviceError / OutOfMemory from the runs.
template <class S, class I, class V>
TuneResult tune_mxm(const Graph<I, V>& A, std::int64_t n, const TuneOptions& options = {});

/// The same for sddmm over the pattern of S with inner dimension k (vct, iir, wmt).
template <class Sr, class I, class V>
TuneResult tune_sddmm(const Graph<I, V>& S, std::int64_t k, const TuneOptions& options = {});

}  // namespace spindle
