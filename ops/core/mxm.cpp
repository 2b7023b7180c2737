// SPDX-License-Identifier: Apache-2.0
// Public mxm (SpMM): validate -> degenerate shapes -> resolve device -> plan -> log -> backend.
#include "spindle/ops/mxm.hpp"

#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/core/planner.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/detail/prologue.hpp"

namespace spindle {

template <class S, class I, class V>
void mxm(DenseMatrix<typename S::value_type>& C, Accum accum, S /*s*/, const Graph<I, V>& A,
         const DenseMatrix<typename S::value_type>& B, const Descriptor& desc) {
  const Device device = resolve_device(desc.device);  // Unsupported first, whatever the sizes
  detail::OutputStage<DenseMatrix<typename S::value_type>> out(C);
  if (!detail::mxm_prologue("mxm", out, accum, A, B, desc, S::identity(), device != Device::Cuda))
    return;
  const GraphStats& stats = desc.transpose_a ? A.transpose().stats() : A.stats();
  const Plan plan =
      detail::plan_mxm(stats, detail::mxm_info<S, I, V>(out.get().cols(), accum.enabled, desc),
                       device, device_caps(), desc);
  log_plan(plan);
  if (plan.device == Device::Cuda) {
    detail::cuda::mxm<S>(plan, out.get(), accum, A, B, desc.transpose_a, desc.transpose_b);
  } else {
    detail::cpu::mxm<S>(plan, out.get(), accum, A, B, desc.transpose_a, desc.transpose_b);
  }
  out.commit();
}

template <class S, class I, class V>
Plan plan_for_mxm(const Graph<I, V>& A, std::int64_t n_cols, const Descriptor& desc) {
  const Device device = resolve_device(desc.device);
  const GraphStats& stats = desc.transpose_a ? A.transpose().stats() : A.stats();
  return detail::plan_mxm(stats, detail::mxm_info<S, I, V>(n_cols, false, desc), device,
                          device_caps(), desc);
}

template <class S, class I, class V>
Plan plan_for_mxm(const Graph<I, V>& A, std::int64_t n_cols, const Descriptor& desc,
                  const DeviceCaps& target) {
  const Device device = detail::resolve_target_device("plan_for_mxm", desc.device, target);
  const GraphStats& stats = desc.transpose_a ? A.transpose().stats() : A.stats();
  return detail::plan_mxm(stats, detail::mxm_info<S, I, V>(n_cols, false, desc), device, target,
                          desc);
}

#define SPINDLE_INSTANTIATE_MXM_(S, I, V)                                                   \
  template void mxm<S, I, V>(DenseMatrix<S::value_type>&, Accum, S, const Graph<I, V>&,     \
                             const DenseMatrix<S::value_type>&, const Descriptor&);         \
  template Plan plan_for_mxm<S, I, V>(const Graph<I, V>&, std::int64_t, const Descriptor&); \
  template Plan plan_for_mxm<S, I, V>(const Graph<I, V>&, std::int64_t, const Descriptor&,  \
                                      const DeviceCaps&);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_INSTANTIATE_MXM_)

}  // namespace spindle
