// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file spmv_dense.hpp
/// @brief w = M ⊕.⊗ u on raw device arrays with mxv's kernels: how an SpMM of width 1 without an
/// epilogue runs (MxmKernel::Spmv). Defined in mxv_entry.cuh and instantiated with mxv, so the
/// SpMM translation units do not compile the mxv kernels again.

#include <cuda_runtime.h>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"

namespace spindle::detail::cuda {

/// w(i) = ⊕_j M(i,j) ⊗ u(j) for every row i of M (the semiring's identity for empty rows), on
/// the stream. u has M.cols() values and w M.rows(), both on the device. plan.mxv and
/// plan.params name the mxv kernel (the mxv rules choose when plan.mxv is Auto); a tuned mxv
/// winner for M replaces a rule-based choice.
template <class S, class I, class V>
void spmv_dense(const Plan& plan, const Graph<I, V>& M, const typename S::value_type* u,
                typename S::value_type* w, cudaStream_t stream);

}  // namespace spindle::detail::cuda
