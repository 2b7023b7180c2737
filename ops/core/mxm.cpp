// SPDX-License-Identifier: Apache-2.0
// Public mxm (SpMM): validate -> degenerate shapes -> resolve device -> plan -> log -> backend.
#include "spindle/ops/mxm.hpp"

#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/core/planner.hpp"
#include "ops/core/tuned.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/detail/prologue.hpp"

namespace spindle {

namespace detail {

template <class S, class I, class V>
void mxm_builtin(DenseMatrix<typename S::value_type>& C, Accum accum, const Graph<I, V>& A,
                 const DenseMatrix<typename S::value_type>& B, const Descriptor& desc) {
  const Device device = resolve_device(desc.device);  // Unsupported first, whatever the sizes
  detail::OutputStage<DenseMatrix<typename S::value_type>> out(C);
  if (!detail::mxm_prologue("mxm", out, accum, A, B, desc, S::identity(), device != Device::Cuda))
    return;
  const Graph<I, V>& G = desc.transpose_a ? A.transpose() : A;
  const detail::MxmTuned tuned =
      detail::tuned_mxm_for<S>(device == Device::Cuda, G, out.get().cols());
  const Plan plan =
      detail::plan_mxm(G.stats(), detail::mxm_info<S, I, V>(out.get().cols(), accum.enabled, desc),
                       device, detail::caps_for(device), desc, tuned.mxm_ptr(), tuned.mxv_ptr());
  log_plan(plan);
  if (plan.device == Device::Cuda) {
    detail::cuda::mxm<S>(plan, out.get(), accum, A, B, desc.transpose_a, desc.transpose_b);
  } else {
    detail::cpu::mxm<S>(plan, out.get(), accum, A, B, desc.transpose_a, desc.transpose_b);
  }
  out.commit();
}

template <class S, class I, class V>
Plan plan_for_mxm_builtin(const Graph<I, V>& A, std::int64_t n_cols, const Descriptor& desc,
                          const DeviceCaps* target) {
  const Device device = target == nullptr
                            ? resolve_device(desc.device)
                            : detail::resolve_target_device("plan_for_mxm", desc.device, *target);
  const Graph<I, V>& G = desc.transpose_a ? A.transpose() : A;
  // Tuned winners are this process's device's: a plan for another target ignores them.
  const detail::MxmTuned tuned =
      detail::tuned_mxm_for<S>(device == Device::Cuda && target == nullptr, G, n_cols);
  return detail::plan_mxm(G.stats(), detail::mxm_info<S, I, V>(n_cols, false, desc), device,
                          target != nullptr ? *target : detail::caps_for(device), desc,
                          tuned.mxm_ptr(), tuned.mxv_ptr());
}

#define SPINDLE_INSTANTIATE_MXM_(S, I, V)                                                          \
  template void mxm_builtin<S, I, V>(DenseMatrix<S::value_type>&, Accum, const Graph<I, V>&,       \
                                     const DenseMatrix<S::value_type>&, const Descriptor&);        \
  template Plan plan_for_mxm_builtin<S, I, V>(const Graph<I, V>&, std::int64_t, const Descriptor&, \
                                              const DeviceCaps*);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_INSTANTIATE_MXM_)

}  // namespace detail
}  // namespace spindle
