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

/// Test hook for the group form's gather hints (ops/cuda/mxm/hot_columns.hpp): with budget > 0
/// they apply on every graph (not only where a pass's slab of B outgrows L2), for the hot columns
/// whose B rows fill `budget` bytes (read in place where one pass covers N, else from a copy of
/// at most `budget` bytes), so that small test graphs have cold columns; budget < 0 turns them off
/// everywhere (the benchmarks' A/B switch); 0 restores the rule. debug_spmm_hot_copy(true) makes
/// a budget read the copy at one pass too. No-ops in CPU builds.
void debug_spmm_gather_hints(std::int64_t budget) noexcept;
std::int64_t spmm_gather_hints_override() noexcept;
void debug_spmm_hot_copy(bool on) noexcept;

/// Test hooks: launches of the group form's hinted kernel (flagged hot columns, evict-first
/// gathers of the rest) since the process started (0 in CPU builds), and, with `on`, every later
/// build of a graph's flagged column ids failing as if the GPU were out of memory (the gathers
/// must then run without hints). No-op in CPU builds.
std::int64_t debug_spmm_hinted_launches() noexcept;
/// Test hook: hot copies of B made since the process started (0 in CPU builds).
std::int64_t debug_spmm_hot_copies() noexcept;
void debug_spmm_hot_columns_no_room(bool on) noexcept;

/// Test hook: for each entry of `col_idx` (column ids of a graph with `cols` columns), its slot
/// in the hot copy for a hot count of `hot` columns, or -1 for a cold column; built on the
/// device as for a graph, and checked there against the copy's slot order and against the
/// in-place ids for the same count (a mismatch throws DeviceError). I: int32_t or int64_t. CPU
/// builds throw Unsupported.
template <class I>
std::vector<std::int64_t> debug_spmm_hot_slots(const std::vector<I>& col_idx, std::int64_t cols,
                                               std::int64_t hot);

}  // namespace spindle::detail::cuda
