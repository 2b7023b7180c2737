// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mxm_fused.hpp
/// @brief The CUDA backend's SpMM with a fused epilogue (bias and activation, the GCN layer),
/// declared beside backend.hpp's entries: C = accum(C, act(op(A) ⊕.⊗ op(B) + bias)). Plain C++;
/// CPU builds get a stub (ops/cuda_stub/mxm_fused_stub.cpp) that throws Unsupported.

#include <cstdint>
#include <vector>

#include "spindle/cuda/tune.hpp"  // tune_mxm / tune_sddmm, defined with the entries
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
