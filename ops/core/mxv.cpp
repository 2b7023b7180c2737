// SPDX-License-Identifier: Apache-2.0
// Public mxv / vxm: validate -> degenerate shapes -> resolve device -> plan -> log -> backend.
#include "spindle/ops/mxv.hpp"

#include <string>
#include <utility>

#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/core/planner.hpp"
#include "ops/core/vxm_push.hpp"
#include "spindle/detail/transpose_builder.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/detail/prologue.hpp"

namespace spindle {
namespace {

template <class S, class I, class V>
detail::MxvInfo mxv_info(OpKind op, const Mask& mask, Accum accum, bool input_full,
                         const Descriptor& desc) {
  detail::MxvInfo info;
  info.op = op;
  info.semiring = S::kind;
  info.value = value_kind_of<typename S::value_type>();
  info.matrix_value = value_kind_of<V>();
  info.index = index_kind_of<I>();
  info.masked = !mask.empty();
  info.mask_kind = mask.kind();
  info.mask_complemented = mask.complemented();
  info.accum = accum.enabled;
  info.replace = desc.replace;
  info.input_full = input_full;
  info.transpose_a = desc.transpose_a;
  return info;
}

// Who builds A^T if the call needs it and the graph has none cached: on CUDA the device
// (spindle/detail/transpose_builder.hpp: the same arrays, plus the device copy the call then
// uses), elsewhere the host.
detail::TransposeBuilder* transpose_builder(Device device) {
  return device == Device::Cuda ? detail::cuda_transpose_builder() : nullptr;
}

// Statistics of the graph whose rows produce the output (what a pull kernel iterates).
template <class I, class V>
const GraphStats& output_row_stats(const Graph<I, V>& A, bool transpose_a, bool vxm) {
  return transpose_a != vxm ? A.transpose().stats() : A.stats();
}

}  // namespace

template <class S, class I, class V>
void mxv(Vector<typename S::value_type>& w, const Mask& mask, Accum accum, S /*s*/,
         const Graph<I, V>& A, const Vector<typename S::value_type>& u, const Descriptor& desc) {
  const Device device = resolve_device(desc.device);  // Unsupported first, whatever the sizes
  const detail::ScopedTransposeBuilder transpose_on(transpose_builder(device));
  detail::OutputStage<Vector<typename S::value_type>> out(w);
  if (!detail::mxv_prologue("mxv", out, mask, accum, A, u, desc, false, device != Device::Cuda))
    return;
  const Plan plan = detail::plan_mxv(output_row_stats(A, desc.transpose_a, false),
                                     mxv_info<S, I, V>(OpKind::Mxv, mask, accum, u.is_full(), desc),
                                     device, device_caps(), desc);
  log_plan(plan);
  if (plan.device == Device::Cuda) {
    detail::cuda::mxv<S>(plan, out.get(), mask, accum, A, u, desc.transpose_a, desc.replace);
  } else {
    detail::cpu::mxv<S>(plan, out.get(), mask, accum, A, u, desc.transpose_a, desc.replace);
  }
  out.commit();
}

template <class S, class I, class V>
void vxm(Vector<typename S::value_type>& w, const Mask& mask, Accum accum, S /*s*/,
         const Vector<typename S::value_type>& u, const Graph<I, V>& A, const Descriptor& desc) {
  const Device device = resolve_device(desc.device);  // Unsupported first, whatever the sizes
  const detail::ScopedTransposeBuilder transpose_on(transpose_builder(device));
  detail::OutputStage<Vector<typename S::value_type>> out(w);
  // Push or pull (ops/core/vxm_push.hpp): decided before anything builds A^T (the prologue for a
  // pull, the pull's statistics). Only calls that could push count their input's terms.
  const bool transpose_cached = A.has_transpose();
  const bool push_candidate =
      detail::push_candidate(device, S::kind, desc, u.is_full(), A.nnz(), transpose_cached);
  if (!detail::mxv_prologue("vxm", out, mask, accum, A, u, desc, true, device != Device::Cuda,
                            /*build_transpose=*/!push_candidate))
    return;
  const detail::MxvInfo info = mxv_info<S, I, V>(OpKind::Vxm, mask, accum, u.is_full(), desc);
  std::string push_note;
  if (push_candidate) {
    const detail::PushInput in = detail::cuda::vxm_push_input(u, A);
    detail::PushDecision d =
        detail::plan_vxm_push_cuda(A.stats(), info, in, transpose_cached, desc);
    if (d.push) {
      log_plan(d.plan);
      detail::cuda::vxm_push<S>(d.plan, in, out.get(), mask, accum, u, A, desc.replace);
      out.commit();
      return;
    }
    push_note = std::move(d.note);
  }
  Plan plan = detail::plan_mxv(output_row_stats(A, desc.transpose_a, true), info, device,
                               device_caps(), desc);
  if (!push_note.empty()) plan.reason += " (" + push_note + ")";
  log_plan(plan);
  if (plan.device == Device::Cuda) {
    detail::cuda::vxm<S>(plan, out.get(), mask, accum, u, A, desc.transpose_a, desc.replace);
  } else {
    detail::cpu::vxm<S>(plan, out.get(), mask, accum, u, A, desc.transpose_a, desc.replace);
  }
  out.commit();
}

namespace {

// The plan an mxv (vxm: op Vxm) over A would get on `device` with `caps`, u taken to be full.
template <class S, class I, class V>
Plan plan_call(OpKind op, const Graph<I, V>& A, const Mask& mask, Accum accum,
               const Descriptor& desc, Device device, const DeviceCaps& caps) {
  return detail::plan_mxv(output_row_stats(A, desc.transpose_a, op == OpKind::Vxm),
                          mxv_info<S, I, V>(op, mask, accum, true, desc), device, caps, desc);
}

}  // namespace

template <class S, class I, class V>
Plan plan_for_mxv(const Graph<I, V>& A, const Mask& mask, Accum accum, const Descriptor& desc) {
  return plan_call<S>(OpKind::Mxv, A, mask, accum, desc, resolve_device(desc.device),
                      device_caps());
}

template <class S, class I, class V>
Plan plan_for_vxm(const Graph<I, V>& A, const Mask& mask, Accum accum, const Descriptor& desc) {
  return plan_call<S>(OpKind::Vxm, A, mask, accum, desc, resolve_device(desc.device),
                      device_caps());
}

template <class S, class I, class V>
Plan plan_for_mxv(const Graph<I, V>& A, const Mask& mask, Accum accum, const Descriptor& desc,
                  const DeviceCaps& target) {
  return plan_call<S>(OpKind::Mxv, A, mask, accum, desc,
                      detail::resolve_target_device("plan_for_mxv", desc.device, target), target);
}

template <class S, class I, class V>
Plan plan_for_vxm(const Graph<I, V>& A, const Mask& mask, Accum accum, const Descriptor& desc,
                  const DeviceCaps& target) {
  return plan_call<S>(OpKind::Vxm, A, mask, accum, desc,
                      detail::resolve_target_device("plan_for_vxm", desc.device, target), target);
}

#define SPINDLE_INSTANTIATE_MXV_(S, I, V)                                                          \
  template void mxv<S, I, V>(Vector<S::value_type>&, const Mask&, Accum, S, const Graph<I, V>&,    \
                             const Vector<S::value_type>&, const Descriptor&);                     \
  template void vxm<S, I, V>(Vector<S::value_type>&, const Mask&, Accum, S,                        \
                             const Vector<S::value_type>&, const Graph<I, V>&, const Descriptor&); \
  template Plan plan_for_mxv<S, I, V>(const Graph<I, V>&, const Mask&, Accum, const Descriptor&);  \
  template Plan plan_for_vxm<S, I, V>(const Graph<I, V>&, const Mask&, Accum, const Descriptor&);  \
  template Plan plan_for_mxv<S, I, V>(const Graph<I, V>&, const Mask&, Accum, const Descriptor&,   \
                                      const DeviceCaps&);                                          \
  template Plan plan_for_vxm<S, I, V>(const Graph<I, V>&, const Mask&, Accum, const Descriptor&,   \
                                      const DeviceCaps&);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_INSTANTIATE_MXV_)

}  // namespace spindle
