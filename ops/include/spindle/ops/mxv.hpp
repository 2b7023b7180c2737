// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mxv.hpp
/// @brief Sparse matrix x vector over a semiring (SpMV), GraphBLAS GrB_mxv / GrB_vxm.

#include "spindle/descriptor.hpp"
#include "spindle/executor.hpp"
#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/ops/cpu/mxv_impl.hpp"
#include "spindle/ops/custom_semiring.hpp"
#include "spindle/semiring.hpp"
#include "spindle/vector.hpp"

namespace spindle {

namespace detail {
// The library's entries for the built-in semirings (ops/core/mxv.cpp).
template <class S, class I, class V>
void mxv_builtin(Vector<typename S::value_type>& w, const Mask& mask, Accum accum,
                 const Graph<I, V>& A, const Vector<typename S::value_type>& u,
                 const Descriptor& desc);
template <class S, class I, class V>
void vxm_builtin(Vector<typename S::value_type>& w, const Mask& mask, Accum accum,
                 const Vector<typename S::value_type>& u, const Graph<I, V>& A,
                 const Descriptor& desc);
template <class S, class I, class V>
Plan plan_for_mxv_builtin(OpKind op, const Graph<I, V>& A, const Mask& mask, Accum accum,
                          const Descriptor& desc, const DeviceCaps* target);

/// mxv / vxm through a user-defined semiring: on CUDA (the generic kernels) or the CPU.
template <class S, class I, class V>
void mxv_custom(OpKind op, Vector<typename S::value_type>& w, const Mask& mask, Accum accum,
                const Graph<I, V>& A, const Vector<typename S::value_type>& u,
                const Descriptor& desc) {
  using T = typename S::value_type;
  const bool vxm = op == OpKind::Vxm;
  if (!custom_runs_on_cuda<T>(typeid(S), desc.device)) {
    if (vxm) {
      cpu::vxm(w, mask, accum, S{}, u, A, desc);
    } else {
      cpu::mxv(w, mask, accum, S{}, A, u, desc);
    }
    return;
  }
  OutputStage<Vector<T>> out(w);
  if (!mxv_prologue(vxm ? "vxm" : "mxv", out, mask, accum, A, u, desc, vxm, false)) return;
  custom_mxv(custom_semiring<S>(), op, out.get(), mask, accum, A, u, desc);
  out.commit();
}
}  // namespace detail

/// w<mask> = accum(w, A ⊕.⊗ u): t(i) = ⊕_j mul(A(i,j), u(j)) over the stored A(i,j) whose u(j)
/// is present; t(i) is absent when no term exists. With desc.transpose_a, A^T is used.
/// Then for each i: where the mask selects i, w(i) = accum(w(i), t(i)) (or t(i) without an
/// accumulator; an absent t(i) removes w(i) then); elsewhere w(i) is kept, or removed when
/// desc.replace is set.
/// @param w       output, size rows(A) (cols(A) with transpose_a); also an input with accum.
///                Without mask and accumulator w is overwritten entirely and is resized if its
///                size differs; otherwise a wrong size throws DimensionMismatch.
/// @param mask    write mask over w (Mask{} for none), size must equal w's
/// @param accum   Accum::none() or an accumulator
/// @param s       semiring traits object (semiring.hpp), value type T
/// @param A       the graph; pattern graphs contribute 1 for each stored entry
/// @param u       input vector, size cols(A) (rows(A) with transpose_a); must not alias w
/// @param desc    transpose_a, replace, device, forced kernel
/// @throws DimensionMismatch on shape errors, InvalidArgument if u aliases w,
///         Unsupported for Device::Cuda in a build without CUDA, DeviceError on CUDA failures.
/// Deterministic: results are bit-identical run to run and for any thread count.
/// Compiled into the library for every built-in semiring over float / double, int32 / int64
/// indices and float / double / Pattern graphs. A user-defined semiring (kind Custom) runs on the
/// CPU through spindle::cpu::mxv, and on CUDA through the generic kernels once a .cu file of the
/// program instantiates them with SPINDLE_CUDA_SEMIRING (spindle/cuda/semiring.cuh).
template <class S, class I, class V>
void mxv(Vector<typename S::value_type>& w, const Mask& mask, Accum accum, S /*s*/,
         const Graph<I, V>& A, const Vector<typename S::value_type>& u,
         const Descriptor& desc = {}) {
  if constexpr (S::kind == SemiringKind::Custom) {
    detail::mxv_custom<S>(OpKind::Mxv, w, mask, accum, A, u, desc);
  } else {
    detail::mxv_builtin<S>(w, mask, accum, A, u, desc);
  }
}

/// w<mask> = accum(w, u ⊕.⊗ A): t(j) = ⊕_i mul(u(i), A(i,j)) (built-in semirings evaluate it as
/// mul(A(i,j), u(i)): see semiring.hpp). Runs as mxv over the cached transpose. Same parameters
/// and throws as mxv.
template <class S, class I, class V>
void vxm(Vector<typename S::value_type>& w, const Mask& mask, Accum accum, S /*s*/,
         const Vector<typename S::value_type>& u, const Graph<I, V>& A,
         const Descriptor& desc = {}) {
  if constexpr (S::kind == SemiringKind::Custom) {
    detail::mxv_custom<S>(OpKind::Vxm, w, mask, accum, A, u, desc);
  } else {
    detail::vxm_builtin<S>(w, mask, accum, u, A, desc);
  }
}

/// The plan mxv would use for this call (without running it): for `spindle info --explain`,
/// tests and logs. Plans for the device desc.device resolves to here (Auto: this machine's GPU
/// if there is one); u is taken to be full.
/// @throws Unsupported for Device::Cuda where no CUDA device can be used (as mxv would).
template <class S, class I, class V>
Plan plan_for_mxv(const Graph<I, V>& A, const Mask& mask, Accum accum,
                  const Descriptor& desc = {}) {
  if constexpr (S::kind == SemiringKind::Custom) {
    return detail::custom_plan<typename S::value_type>(OpKind::Mxv, A, 0, mask, accum, desc,
                                                       nullptr);
  } else {
    return detail::plan_for_mxv_builtin<S>(OpKind::Mxv, A, mask, accum, desc, nullptr);
  }
}

/// The plan vxm would use for this call: mxv's rules over the rows of A^T (the cached
/// transpose's statistics; A's own with desc.transpose_a). Same device rules and throws as
/// plan_for_mxv.
template <class S, class I, class V>
Plan plan_for_vxm(const Graph<I, V>& A, const Mask& mask, Accum accum,
                  const Descriptor& desc = {}) {
  if constexpr (S::kind == SemiringKind::Custom) {
    return detail::custom_plan<typename S::value_type>(OpKind::Vxm, A, 0, mask, accum, desc,
                                                       nullptr);
  } else {
    return detail::plan_for_mxv_builtin<S>(OpKind::Vxm, A, mask, accum, desc, nullptr);
  }
}

/// What-if planning: the plan for a device described by `target` rather than the one present,
/// so a machine without a GPU can show (or a test can check) what a given GPU would run. A
/// target with `available` set is a CUDA device (reference_hopper_caps(), or device_caps() of
/// another machine); DeviceCaps{} is "no GPU". desc.device picks as usual: Cpu plans for the
/// CPU; Auto plans for the target's GPU if it has one, else the CPU; Cuda needs one.
/// @throws InvalidArgument for desc.device == Cuda with a target that has no CUDA device.
template <class S, class I, class V>
Plan plan_for_mxv(const Graph<I, V>& A, const Mask& mask, Accum accum, const Descriptor& desc,
                  const DeviceCaps& target) {
  if constexpr (S::kind == SemiringKind::Custom) {
    return detail::custom_plan<typename S::value_type>(OpKind::Mxv, A, 0, mask, accum, desc,
                                                       &target);
  } else {
    return detail::plan_for_mxv_builtin<S>(OpKind::Mxv, A, mask, accum, desc, &target);
  }
}

/// vxm's what-if plan (see the plan_for_mxv overload with a target).
template <class S, class I, class V>
Plan plan_for_vxm(const Graph<I, V>& A, const Mask& mask, Accum accum, const Descriptor& desc,
                  const DeviceCaps& target) {
  if constexpr (S::kind == SemiringKind::Custom) {
    return detail::custom_plan<typename S::value_type>(OpKind::Vxm, A, 0, mask, accum, desc,
                                                       &target);
  } else {
    return detail::plan_for_mxv_builtin<S>(OpKind::Vxm, A, mask, accum, desc, &target);
  }
}

}  // namespace spindle
