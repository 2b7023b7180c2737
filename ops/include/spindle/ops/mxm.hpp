// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mxm.hpp
/// @brief Sparse x dense matrix product over a semiring (SpMM).

#include "spindle/dense.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/executor.hpp"
#include "spindle/graph.hpp"
#include "spindle/operators.hpp"
#include "spindle/ops/cpu/mxm_impl.hpp"
#include "spindle/ops/custom_semiring.hpp"
#include "spindle/semiring.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// C = accum(C, A ⊕.⊗ B): C(i,n) = ⊕_k mul(A(i,k), B(k,n)) for n in [0, N).
/// Dense outputs have no absent entries: a row of A with no stored entries gives the semiring's
/// identity. (GraphBLAS matrix masks need sparse outputs and are not offered on dense C.)
/// @param C      output, rows(A) x N, row-major; resized if its shape differs and accum is none
/// @param accum  Accum::none() or an accumulator applied elementwise with C's old values
/// @param s      semiring over T
/// @param A      the graph (A^T with desc.transpose_a)
/// @param B      dense operand, cols(A) x N, row-major (N x cols(A) with desc.transpose_b);
///               must not be C itself (InvalidArgument)
/// @throws DimensionMismatch, Unsupported, DeviceError.
template <class S, class I, class V>
void mxm(DenseMatrix<typename S::value_type>& C, Accum accum, S s, const Graph<I, V>& A,
         const DenseMatrix<typename S::value_type>& B, const Descriptor& desc = {});

namespace detail {
// The library's entries for the built-in semirings (ops/core/mxm.cpp, mxm_epilogue.cpp).
template <class S, class I, class V>
void mxm_builtin(DenseMatrix<typename S::value_type>& C, Accum accum, const Graph<I, V>& A,
                 const DenseMatrix<typename S::value_type>& B, const Descriptor& desc);
template <class S, class I, class V>
Plan plan_for_mxm_builtin(const Graph<I, V>& A, std::int64_t n_cols, const Descriptor& desc,
                          const DeviceCaps* target);
}  // namespace detail

template <class S, class I, class V>
void mxm(DenseMatrix<typename S::value_type>& C, Accum accum, S s, const Graph<I, V>& A,
         const DenseMatrix<typename S::value_type>& B, const Descriptor& desc) {
  using T = typename S::value_type;
  if constexpr (S::kind == SemiringKind::Custom) {
    if (!detail::custom_runs_on_cuda<T>(typeid(S), desc.device)) {
      cpu::mxm(C, accum, s, A, B, desc);
      return;
    }
    detail::OutputStage<DenseMatrix<T>> out(C);
    if (!detail::mxm_prologue("mxm", out, accum, A, B, desc, S::identity(), false)) return;
    detail::custom_mxm(detail::custom_semiring<S>(), out.get(), accum, A, B,
                       static_cast<const Vector<T>*>(nullptr), Unary<T>{}, desc);
    out.commit();
  } else {
    detail::mxm_builtin<S>(C, accum, A, B, desc);
  }
}

/// Shorthand without an accumulator.
template <class S, class I, class V>
void mxm(DenseMatrix<typename S::value_type>& C, S s, const Graph<I, V>& A,
         const DenseMatrix<typename S::value_type>& B, const Descriptor& desc = {}) {
  mxm(C, Accum::none(), s, A, B, desc);
}

/// What happens to each finished element t = (A ⊕.⊗ B)(i, n) before the accumulator: the GCN
/// layer epilogue t = act(t + bias(n)). Fused into the SpMM on the CUDA backend (no extra pass
/// over C); the CPU backend runs mxm, then add_row_bias.
template <class T>
struct MxmEpilogue {
  const Vector<T>* bias = nullptr;  ///< N entries, all present; nullptr: no bias
  UnaryOp act = UnaryOp::Identity;  ///< applied after the bias (Relu between GCN layers)
  T act_scalar = T(0);              ///< the bound scalar of act, where it takes one
};

/// C = accum(C, act(A ⊕.⊗ B + bias)), bias broadcast over the rows. Shapes, accumulator and
/// degenerate cases as mxm above (a row of A with no entries gives act(identity + bias)).
/// @throws as mxm; DimensionMismatch when the bias does not have N entries; InvalidArgument
///         when it has absent entries.
namespace detail {
template <class S, class I, class V>
void mxm_epilogue_builtin(DenseMatrix<typename S::value_type>& C, Accum accum, const Graph<I, V>& A,
                          const DenseMatrix<typename S::value_type>& B,
                          const MxmEpilogue<typename S::value_type>& epilogue,
                          const Descriptor& desc);
/// The epilogue composed from public operations (apply, add_row_bias): t = A ⊕.⊗ B, then
/// act(t + bias), then C = accum(C, t). ops/core/mxm_epilogue.cpp, for T float and double.
template <class T>
void finish_mxm_epilogue(DenseMatrix<T>& C, Accum accum, DenseMatrix<T>& t,
                         const MxmEpilogue<T>& epilogue, const Descriptor& desc);
}  // namespace detail

template <class S, class I, class V>
void mxm(DenseMatrix<typename S::value_type>& C, Accum accum, S s, const Graph<I, V>& A,
         const DenseMatrix<typename S::value_type>& B,
         const MxmEpilogue<typename S::value_type>& epilogue, const Descriptor& desc = {}) {
  using T = typename S::value_type;
  if constexpr (S::kind == SemiringKind::Custom) {
    if (detail::custom_runs_on_cuda<T>(typeid(S), desc.device)) {
      detail::OutputStage<DenseMatrix<T>> out(C);
      if (!detail::mxm_prologue("mxm", out, accum, A, B, desc, S::identity(), false)) return;
      detail::custom_mxm(detail::custom_semiring<S>(), out.get(), accum, A, B, epilogue.bias,
                         Unary<T>::make(epilogue.act, epilogue.act_scalar), desc);
      out.commit();
      return;
    }
    DenseMatrix<T> t;
    cpu::mxm(t, Accum::none(), s, A, B, desc);
    detail::finish_mxm_epilogue(C, accum, t, epilogue, desc);
  } else {
    detail::mxm_epilogue_builtin<S>(C, accum, A, B, epilogue, desc);
  }
}

/// Shorthand without an accumulator.
template <class S, class I, class V>
void mxm(DenseMatrix<typename S::value_type>& C, S s, const Graph<I, V>& A,
         const DenseMatrix<typename S::value_type>& B,
         const MxmEpilogue<typename S::value_type>& epilogue, const Descriptor& desc = {}) {
  mxm(C, Accum::none(), s, A, B, epilogue, desc);
}

/// The plan mxm would use for C = A ⊕.⊗ B with B `n_cols` wide (without running it), for the
/// device desc.device resolves to here. @throws Unsupported as mxm would for Device::Cuda.
template <class S, class I, class V>
Plan plan_for_mxm(const Graph<I, V>& A, std::int64_t n_cols, const Descriptor& desc = {}) {
  if constexpr (S::kind == SemiringKind::Custom) {
    return detail::custom_plan<typename S::value_type>(OpKind::Mxm, A, n_cols, Mask{},
                                                       Accum::none(), desc, nullptr);
  } else {
    return detail::plan_for_mxm_builtin<S>(A, n_cols, desc, nullptr);
  }
}

/// What-if planning for the device `target` describes (see plan_for_mxv's overload with a
/// target in mxv.hpp for the device rules). @throws InvalidArgument for desc.device == Cuda
/// with a target that has no CUDA device.
template <class S, class I, class V>
Plan plan_for_mxm(const Graph<I, V>& A, std::int64_t n_cols, const Descriptor& desc,
                  const DeviceCaps& target) {
  if constexpr (S::kind == SemiringKind::Custom) {
    return detail::custom_plan<typename S::value_type>(OpKind::Mxm, A, n_cols, Mask{},
                                                       Accum::none(), desc, &target);
  } else {
    return detail::plan_for_mxm_builtin<S>(A, n_cols, desc, &target);
  }
}

}  // namespace spindle
