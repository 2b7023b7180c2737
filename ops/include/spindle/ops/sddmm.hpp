// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file sddmm.hpp
/// @brief Sampled dense-dense matrix product over a sparse pattern (SDDMM).

#include <vector>

#include "spindle/dense.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/executor.hpp"
#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/ops/cpu/sddmm_impl.hpp"
#include "spindle/ops/custom_semiring.hpp"
#include "spindle/semiring.hpp"

namespace spindle {

/// For every stored S(i,j), in S's storage order:
///   out[k] = accum(out[k], mul(S(i,j), ⊕_c mul(X(i,c), Y(j,c))))
/// i.e. the sampled product S ∘ (X Y^T) with X rows(S) x K and Y cols(S) x K, both row-major.
/// Pattern S contributes 1. With K = 0 the dot product is the identity of add, so
/// out[k] = accum(out[k], mul(S(i,j), identity)). With desc.transpose_b, Y is given as
/// K x cols(S). The dot product is combined in a fixed order that depends only on K.
/// @param out  nnz(S) values aligned with S.col_idx(); resized when accum is none
/// @throws DimensionMismatch (X.cols() != Y.cols(), X.rows() != rows(S), Y.rows() != cols(S),
///         out.size() != nnz(S) with an accumulator), Unsupported, DeviceError.
namespace detail {
// The library's entries for the built-in semirings (ops/core/sddmm.cpp).
template <class Sr, class I, class V>
void sddmm_builtin(std::vector<typename Sr::value_type>& out, Accum accum, const Graph<I, V>& S,
                   const DenseMatrix<typename Sr::value_type>& X,
                   const DenseMatrix<typename Sr::value_type>& Y, const Descriptor& desc);
template <class Sr, class I, class V>
Plan plan_for_sddmm_builtin(const Graph<I, V>& S, std::int64_t k, const Descriptor& desc,
                            const DeviceCaps* target);
}  // namespace detail

template <class Sr, class I, class V>
void sddmm(std::vector<typename Sr::value_type>& out, Accum accum, Sr s, const Graph<I, V>& S,
           const DenseMatrix<typename Sr::value_type>& X,
           const DenseMatrix<typename Sr::value_type>& Y, const Descriptor& desc = {}) {
  using T = typename Sr::value_type;
  if constexpr (Sr::kind == SemiringKind::Custom) {
    if (!detail::custom_runs_on_cuda<T>(typeid(Sr), desc.device)) {
      cpu::sddmm(out, accum, s, S, X, Y, desc);
      return;
    }
    detail::OutputStage<std::vector<T>> stage(out);
    if (!detail::sddmm_prologue<Sr>("sddmm", stage, accum, S, X, Y, desc)) return;
    detail::custom_sddmm(detail::custom_semiring<Sr>(), stage.get(), accum, S, X, Y, desc);
    stage.commit();
  } else {
    detail::sddmm_builtin<Sr>(out, accum, S, X, Y, desc);
  }
}

template <class Sr, class I, class V>
void sddmm(std::vector<typename Sr::value_type>& out, Sr s, const Graph<I, V>& S,
           const DenseMatrix<typename Sr::value_type>& X,
           const DenseMatrix<typename Sr::value_type>& Y, const Descriptor& desc = {}) {
  sddmm(out, Accum::none(), s, S, X, Y, desc);
}

/// The plan sddmm would use with inner dimension k (without running it), for the device
/// desc.device resolves to here. @throws Unsupported as sddmm would for Device::Cuda.
template <class Sr, class I, class V>
Plan plan_for_sddmm(const Graph<I, V>& S, std::int64_t k, const Descriptor& desc = {}) {
  if constexpr (Sr::kind == SemiringKind::Custom) {
    return detail::custom_plan<typename Sr::value_type>(OpKind::Sddmm, S, k, Mask{}, Accum::none(),
                                                        desc, nullptr);
  } else {
    return detail::plan_for_sddmm_builtin<Sr>(S, k, desc, nullptr);
  }
}

/// What-if planning for the device `target` describes (the rules of plan_for_mxv's overload
/// with a target, mxv.hpp). @throws InvalidArgument for desc.device == Cuda with a target that
/// has no CUDA device.
template <class Sr, class I, class V>
Plan plan_for_sddmm(const Graph<I, V>& S, std::int64_t k, const Descriptor& desc,
                    const DeviceCaps& target) {
  if constexpr (Sr::kind == SemiringKind::Custom) {
    return detail::custom_plan<typename Sr::value_type>(OpKind::Sddmm, S, k, Mask{}, Accum::none(),
                                                        desc, &target);
  } else {
    return detail::plan_for_sddmm_builtin<Sr>(S, k, desc, &target);
  }
}

}  // namespace spindle
