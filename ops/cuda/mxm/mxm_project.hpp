// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mxm_project.hpp
/// @brief The CUDA backend's SpMM with a dense product in its epilogue, for GCN:
/// Z = ReLU(A·B + bias)·W (plus_times) in one pass over A, where the planner's kernel for A at
/// width N has that form (nnz_balanced_seq's group form; ops/cuda/mxm/spmm_project.cuh). A
/// hidden GCN layer then writes the next layer's transformed input directly: no N-wide output,
/// no second dense product. Plain C++; CPU builds get a stub (ops/cuda_stub/mxm_project_stub.cpp)
/// that throws Unsupported.

#include "spindle/dense.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/graph.hpp"
#include "spindle/vector.hpp"

namespace spindle::detail::cuda {

/// Z = ReLU(A·B + bias)·W on the CUDA backend when the projected form applies, else returns
/// false without touching Z (the caller then runs mxm with the bias and ReLU, and gemm). It
/// applies when
///   - the kernel for A at width N = B.cols() (desc's forced kernel, else a tuned winner for
///     (A, N), else the planner's rule) is nnz_balanced_seq in its group form over one column
///     tile (or debug_mxm_project_force is on);
///   - N ≤ 32 fragments of the group form (128 floats, 64 doubles), M = W.cols() ≤ 2 outputs
///     per lane of the group (64 at N = 128 floats) and W takes at most 32 KB;
///   - A has entries and no transposes are asked for.
/// Logged under SPINDLE_LOG=plan as the plan with "+ ReLU(·+bias)·W epilogue".
/// @throws DimensionMismatch when B, bias and W do not chain with A; as mxm otherwise.
template <class T, class I>
bool mxm_relu_project(DenseMatrix<T>& Z, const Graph<I, T>& A, const DenseMatrix<T>& B,
                      const Vector<T>& bias, const DenseMatrix<T>& W, const Descriptor& desc);

/// Test hook: with `on`, mxm_relu_project runs the projected form wherever its shapes fit,
/// whatever kernel the planner picks (small test graphs run the warp form otherwise). No-op in
/// CPU builds.
void debug_mxm_project_force(bool on) noexcept;

}  // namespace spindle::detail::cuda
