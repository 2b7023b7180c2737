// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file sddmm_impl.hpp
/// @brief CPU SDDMM (sampled dense-dense product) kernel as a template for any semiring.
///
/// Rows of S are split into nnz-balanced blocks (cost nnz * K). Each stored S(i,j) gets
/// out[k] = accum(out[k], mul(S(i,j), X(i,:) ⊕.⊗ Y(j,:))). The dot product runs in
/// kDotLanes fixed lanes (lane = column index mod kDotLanes, combined pairwise), so it
/// vectorizes and its order depends only on K: bit-identical for any thread count.

#include <cstdint>
#include <vector>

#include "spindle/dense.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/graph.hpp"
#include "spindle/operators.hpp"
#include "spindle/ops/cpu/mxm_impl.hpp"
#include "spindle/ops/cpu/parallel.hpp"
#include "spindle/ops/detail/prologue.hpp"
#include "spindle/semiring.hpp"

namespace spindle::detail::cpu_kernels {

inline constexpr int kDotLanes = 8;

/// ⊕_c mul(x[c], y[c]) for c in [0, k), in kDotLanes lanes combined as
/// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).
template <class S>
typename S::value_type semiring_dot(const typename S::value_type* __restrict x,
                                    const typename S::value_type* __restrict y, std::int64_t k) {
  using T = typename S::value_type;
  T lane[kDotLanes];
  for (int l = 0; l < kDotLanes; ++l) lane[l] = S::identity();
  std::int64_t c = 0;
  for (; c + kDotLanes <= k; c += kDotLanes) {
    for (int l = 0; l < kDotLanes; ++l) lane[l] = S::add(lane[l], S::mul(x[c + l], y[c + l]));
  }
  for (int l = 0; c < k; ++c, ++l) lane[l] = S::add(lane[l], S::mul(x[c], y[c]));
  return S::add(S::add(S::add(lane[0], lane[1]), S::add(lane[2], lane[3])),
                S::add(S::add(lane[4], lane[5]), S::add(lane[6], lane[7])));
}

/// out (nnz(S) values) = accum(out, S ∘ (X Y^T)) with X rows(S) x K, Y cols(S) x K.
template <class Sr, class I, class V>
void sddmm_rows(std::vector<typename Sr::value_type>& out, Accum accum, const Graph<I, V>& S,
                const DenseMatrix<typename Sr::value_type>& X,
                const DenseMatrix<typename Sr::value_type>& Y) {
  using T = typename Sr::value_type;
  const std::int64_t k = X.cols();
  const I* rp = S.row_ptr().data();
  const I* ci = S.col_idx().data();
  const V* sv = S.value_ptr();
  T* o = out.data();
  // The operands' host arrays, made (or downloaded) before the parallel region.
  const T* xd = X.data();
  const T* yd = Y.data();
  const std::int64_t y_cols = Y.cols();
  for_each_row_block(
      rp, S.rows(),
      [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t i = r0; i < r1; ++i) {
          const T* x = xd + i * k;
          for (I e = rp[i]; e < rp[i + 1]; ++e) {
            const T* y = yd + static_cast<std::int64_t>(ci[e]) * y_cols;
            const T v = Sr::mul(entry_value<T, V>(sv, e), semiring_dot<Sr>(x, y, k));
            o[e] = accum.enabled ? apply_binary(accum.op, o[e], v) : v;
          }
        }
      },
      std::max<std::int64_t>(k, 1));
}

/// sddmm on already-checked, non-degenerate arguments.
template <class Sr, class I, class V>
void sddmm_run(std::vector<typename Sr::value_type>& out, Accum accum, const Graph<I, V>& S,
               const DenseMatrix<typename Sr::value_type>& X,
               const DenseMatrix<typename Sr::value_type>& Y, bool transpose_b) {
  if (transpose_b) {
    sddmm_rows<Sr>(out, accum, S, X, transposed(Y));
  } else {
    sddmm_rows<Sr>(out, accum, S, X, Y);
  }
}

}  // namespace spindle::detail::cpu_kernels

namespace spindle::cpu {

/// spindle::sddmm on the CPU backend for any semiring, including user-defined ones (same
/// semantics, checks and exceptions; no planner).
template <class Sr, class I, class V>
void sddmm(std::vector<typename Sr::value_type>& out, Accum accum, Sr /*s*/, const Graph<I, V>& S,
           const DenseMatrix<typename Sr::value_type>& X,
           const DenseMatrix<typename Sr::value_type>& Y, const Descriptor& desc = {}) {
  detail::OutputStage<std::vector<typename Sr::value_type>> stage(out);
  if (!detail::sddmm_prologue<Sr>("sddmm", stage, accum, S, X, Y, desc)) return;
  detail::cpu_kernels::sddmm_run<Sr>(stage.get(), accum, S, X, Y, desc.transpose_b);
  stage.commit();
}

}  // namespace spindle::cpu
