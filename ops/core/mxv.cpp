// SPDX-License-Identifier: Apache-2.0
// Public mxv / vxm: validate -> degenerate shapes -> resolve device -> plan -> log -> backend.
#include "spindle/ops/mxv.hpp"

#include <optional>
#include <string>
#include <utility>

#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/core/planner.hpp"
#include "ops/core/tuned.hpp"
#include "ops/core/vxm_push.hpp"
#include "spindle/detail/transpose_builder.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/detail/prologue.hpp"

namespace spindle {
namespace {

// Who builds A^T if the call needs it and the graph has none cached: on CUDA the device
// (spindle/detail/transpose_builder.hpp: the same arrays, plus the device copy the call then
// uses), elsewhere the host.
detail::TransposeBuilder* transpose_builder(Device device) {
  return device == Device::Cuda ? detail::cuda_transpose_builder() : nullptr;
}

// The graph whose rows produce the output (what a pull kernel iterates).
template <class I, class V>
const Graph<I, V>& output_rows(const Graph<I, V>& A, bool transpose_a, bool vxm) {
  return transpose_a != vxm ? A.transpose() : A;
}
template <class I, class V>
const GraphStats& output_row_stats(const Graph<I, V>& A, bool transpose_a, bool vxm) {
  return output_rows(A, transpose_a, vxm).stats();
}

// A winner of tuning mode for a plain call on CUDA over the rows of M (the planner runs it in
// place of its rules' pick; spindle/cuda/tune.hpp).
template <class S, class I, class V>
std::optional<Plan> tuned_for(Device device, const Graph<I, V>& M, const Mask& mask, Accum accum,
                              bool input_full) {
  if (device != Device::Cuda || !mask.empty() || accum.enabled || !input_full) return std::nullopt;
  return detail::tuned_mxv_plan(M, S::kind, value_kind_of<typename S::value_type>());
}

}  // namespace

namespace detail {

template <class S, class I, class V>
void mxv_builtin(Vector<typename S::value_type>& w, const Mask& mask, Accum accum,
                 const Graph<I, V>& A, const Vector<typename S::value_type>& u,
                 const Descriptor& desc) {
  const Device device = resolve_device(desc.device);  // Unsupported first, whatever the sizes
  const detail::ScopedTransposeBuilder transpose_on(transpose_builder(device));
  detail::OutputStage<Vector<typename S::value_type>> out(w);
  if (!detail::mxv_prologue("mxv", out, mask, accum, A, u, desc, false, device != Device::Cuda))
    return;
  const Graph<I, V>& M = output_rows(A, desc.transpose_a, false);
  const std::optional<Plan> tuned = tuned_for<S>(device, M, mask, accum, u.is_full());
  const Plan plan = detail::plan_mxv(
      M.stats(), detail::mxv_info<S, I, V>(OpKind::Mxv, mask, accum, u.is_full(), desc), device,
      detail::caps_for(device), desc, tuned ? &*tuned : nullptr);
  log_plan(plan);
  if (plan.device == Device::Cuda) {
    detail::cuda::mxv<S>(plan, out.get(), mask, accum, A, u, desc.transpose_a, desc.replace);
  } else {
    detail::cpu::mxv<S>(plan, out.get(), mask, accum, A, u, desc.transpose_a, desc.replace);
  }
  out.commit();
}

template <class S, class I, class V>
void vxm_builtin(Vector<typename S::value_type>& w, const Mask& mask, Accum accum,
                 const Vector<typename S::value_type>& u, const Graph<I, V>& A,
                 const Descriptor& desc) {
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
  const detail::MxvInfo info =
      detail::mxv_info<S, I, V>(OpKind::Vxm, mask, accum, u.is_full(), desc);
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
  const Graph<I, V>& M = output_rows(A, desc.transpose_a, true);
  const std::optional<Plan> tuned = tuned_for<S>(device, M, mask, accum, u.is_full());
  Plan plan = detail::plan_mxv(M.stats(), info, device, detail::caps_for(device), desc,
                               tuned ? &*tuned : nullptr);
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
// `current`: planned for this process's device, where tuned winners apply.
template <class S, class I, class V>
Plan plan_call(OpKind op, const Graph<I, V>& A, const Mask& mask, Accum accum,
               const Descriptor& desc, Device device, const DeviceCaps& caps, bool current) {
  const Graph<I, V>& M = output_rows(A, desc.transpose_a, op == OpKind::Vxm);
  const std::optional<Plan> tuned =
      current ? tuned_for<S>(device, M, mask, accum, true) : std::nullopt;
  return detail::plan_mxv(M.stats(), detail::mxv_info<S, I, V>(op, mask, accum, true, desc), device,
                          caps, desc, tuned ? &*tuned : nullptr);
}

}  // namespace

template <class S, class I, class V>
Plan plan_for_mxv_builtin(OpKind op, const Graph<I, V>& A, const Mask& mask, Accum accum,
                          const Descriptor& desc, const DeviceCaps* target) {
  if (target == nullptr) {
    const Device device = resolve_device(desc.device);
    return plan_call<S>(op, A, mask, accum, desc, device, detail::caps_for(device), true);
  }
  return plan_call<S>(
      op, A, mask, accum, desc,
      detail::resolve_target_device(op == OpKind::Vxm ? "plan_for_vxm" : "plan_for_mxv",
                                    desc.device, *target),
      *target, false);
}

#define SPINDLE_INSTANTIATE_MXV_(S, I, V)                                                     \
  template void mxv_builtin<S, I, V>(Vector<S::value_type>&, const Mask&, Accum,              \
                                     const Graph<I, V>&, const Vector<S::value_type>&,        \
                                     const Descriptor&);                                      \
  template void vxm_builtin<S, I, V>(Vector<S::value_type>&, const Mask&, Accum,              \
                                     const Vector<S::value_type>&, const Graph<I, V>&,        \
                                     const Descriptor&);                                      \
  template Plan plan_for_mxv_builtin<S, I, V>(OpKind, const Graph<I, V>&, const Mask&, Accum, \
                                              const Descriptor&, const DeviceCaps*);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_INSTANTIATE_MXV_)

}  // namespace detail
}  // namespace spindle
