// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mxm_impl.hpp
/// @brief CPU SpMM (sparse x dense) kernel as a template for any semiring.
///
/// Rows of C are split into nnz-balanced blocks (cost nnz * N per block); row i of C starts at
/// the identity and adds mul(A(i,k), B(k, :)) for each stored A(i,k) in column order, with the
/// loop over the N contiguous columns innermost (it vectorizes for the arithmetic semirings).
/// Every C(i,n) is reduced by one thread in a fixed order: bit-identical for any thread count.

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "spindle/dense.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/graph.hpp"
#include "spindle/operators.hpp"
#include "spindle/ops/cpu/parallel.hpp"
#include "spindle/ops/detail/checks.hpp"
#include "spindle/ops/detail/prologue.hpp"
#include "spindle/semiring.hpp"

namespace spindle::detail::cpu_kernels {

/// B^T as a new row-major matrix (for transpose_b).
template <class T>
DenseMatrix<T> transposed(const DenseMatrix<T>& B) {
  DenseMatrix<T> t = host_allocation(dense_bytes<T>(B.cols(), B.rows()), "mxm transposed B",
                                     [&] { return DenseMatrix<T>(B.cols(), B.rows()); });
  const std::int64_t r = B.rows();
  const std::int64_t c = B.cols();
  // Both host arrays made before the parallel region (t's allocation, through the hook, here).
  const T* b = B.data();
  T* tv = t.data();
  for_each_index_block(c, [&](std::int64_t j0, std::int64_t j1) {
    for (std::int64_t j = j0; j < j1; ++j) {
      for (std::int64_t i = 0; i < r; ++i) tv[j * r + i] = b[i * c + j];
    }
  });
  return t;
}

/// C = accum(C, G ⊕.⊗ B) with C already rows(G) x N and B cols(G) x N.
template <class S, class I, class V>
void mxm_rows(DenseMatrix<typename S::value_type>& C, Accum accum, const Graph<I, V>& G,
              const DenseMatrix<typename S::value_type>& B) {
  using T = typename S::value_type;
  const std::int64_t n = B.cols();
  const I* rp = G.row_ptr().data();
  const I* ci = G.col_idx().data();
  const V* av = G.value_ptr();
  const T* b = B.data();
  T* c = C.data();
  // One accumulator row per thread, allocated before the parallel region (a std::bad_alloc
  // thrown inside one would end the process) and through the allocation hook.
  const int slots = worker_threads();
  std::vector<T> scratch =
      accum.enabled ? workspace<T>(static_cast<std::size_t>(n) * static_cast<std::size_t>(slots),
                                   "mxm accumulator rows")
                    : std::vector<T>{};
  for_each_row_block(
      rp, G.rows(),
      [&](std::int64_t r0, std::int64_t r1) {
        T* row_scratch =
            accum.enabled ? scratch.data() + (slots > 1 ? omp_get_thread_num() : 0) * n : nullptr;
        for (std::int64_t i = r0; i < r1; ++i) {
          T* __restrict out = accum.enabled ? row_scratch : c + i * n;
          std::fill(out, out + n, S::identity());
          for (I k = rp[i]; k < rp[i + 1]; ++k) {
            const T a = entry_value<T, V>(av, k);
            const T* __restrict brow = b + static_cast<std::int64_t>(ci[k]) * n;
            for (std::int64_t j = 0; j < n; ++j) out[j] = S::add(out[j], S::mul(a, brow[j]));
          }
          if (accum.enabled) {
            T* crow = c + i * n;
            for (std::int64_t j = 0; j < n; ++j) crow[j] = apply_binary(accum.op, crow[j], out[j]);
          }
        }
      },
      std::max<std::int64_t>(n, 1));
}

/// mxm on already-checked, non-degenerate arguments.
template <class S, class I, class V>
void mxm_run(DenseMatrix<typename S::value_type>& C, Accum accum, const Graph<I, V>& A,
             const DenseMatrix<typename S::value_type>& B, bool transpose_a, bool transpose_b) {
  const Graph<I, V>& G = transpose_a ? A.transpose() : A;
  if (transpose_b) {
    mxm_rows<S>(C, accum, G, transposed(B));
  } else {
    mxm_rows<S>(C, accum, G, B);
  }
}

}  // namespace spindle::detail::cpu_kernels

namespace spindle::cpu {

/// spindle::mxm on the CPU backend for any semiring S, including user-defined ones (same
/// semantics, checks and exceptions; no planner).
template <class S, class I, class V>
void mxm(DenseMatrix<typename S::value_type>& C, Accum accum, S /*s*/, const Graph<I, V>& A,
         const DenseMatrix<typename S::value_type>& B, const Descriptor& desc = {}) {
  detail::OutputStage<DenseMatrix<typename S::value_type>> out(C);
  if (!detail::mxm_prologue("mxm", out, accum, A, B, desc, S::identity(), true)) return;
  detail::cpu_kernels::mxm_run<S>(out.get(), accum, A, B, desc.transpose_a, desc.transpose_b);
  out.commit();
}

}  // namespace spindle::cpu
