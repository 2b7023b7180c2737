// SPDX-License-Identifier: Apache-2.0
// Public sddmm: validate -> degenerate shapes -> resolve device -> plan -> log -> backend.
#include "spindle/ops/sddmm.hpp"

#include <optional>

#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/core/planner.hpp"
#include "ops/core/tuned.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/detail/prologue.hpp"

namespace spindle {
namespace {

template <class Sr, class I, class V>
std::optional<Plan> tuned_sddmm(Device device, const Graph<I, V>& S, std::int64_t k) {
  if (device != Device::Cuda) return std::nullopt;
  return detail::find_tuned(
      S, detail::tuned_key("sddmm", k, Sr::kind, value_kind_of<typename Sr::value_type>(),
                           is_pattern_v<V>));
}

}  // namespace

namespace detail {

template <class Sr, class I, class V>
void sddmm_builtin(std::vector<typename Sr::value_type>& out, Accum accum, const Graph<I, V>& S,
                   const DenseMatrix<typename Sr::value_type>& X,
                   const DenseMatrix<typename Sr::value_type>& Y, const Descriptor& desc) {
  const Device device = resolve_device(desc.device);  // Unsupported first, whatever the sizes
  detail::OutputStage<std::vector<typename Sr::value_type>> stage(out);
  if (!detail::sddmm_prologue<Sr>("sddmm", stage, accum, S, X, Y, desc)) return;
  const std::optional<Plan> tuned = tuned_sddmm<Sr>(device, S, X.cols());
  const Plan plan =
      detail::plan_sddmm(S.stats(), detail::sddmm_info<Sr, I, V>(X.cols(), accum.enabled, desc),
                         device, detail::caps_for(device), desc, tuned ? &*tuned : nullptr);
  log_plan(plan);
  if (plan.device == Device::Cuda) {
    detail::cuda::sddmm<Sr>(plan, stage.get(), accum, S, X, Y, desc.transpose_b);
  } else {
    detail::cpu::sddmm<Sr>(plan, stage.get(), accum, S, X, Y, desc.transpose_b);
  }
  stage.commit();
}

template <class Sr, class I, class V>
Plan plan_for_sddmm_builtin(const Graph<I, V>& S, std::int64_t k, const Descriptor& desc,
                            const DeviceCaps* target) {
  const Device device = target == nullptr
                            ? resolve_device(desc.device)
                            : detail::resolve_target_device("plan_for_sddmm", desc.device, *target);
  const std::optional<Plan> tuned =
      target == nullptr ? tuned_sddmm<Sr>(device, S, k) : std::nullopt;
  return detail::plan_sddmm(S.stats(), detail::sddmm_info<Sr, I, V>(k, false, desc), device,
                            target != nullptr ? *target : detail::caps_for(device), desc,
                            tuned ? &*tuned : nullptr);
}

#define SPINDLE_INSTANTIATE_SDDMM_(Sr, I, V)                                                     \
  template void sddmm_builtin<Sr, I, V>(std::vector<Sr::value_type>&, Accum, const Graph<I, V>&, \
                                        const DenseMatrix<Sr::value_type>&,                      \
                                        const DenseMatrix<Sr::value_type>&, const Descriptor&);  \
  template Plan plan_for_sddmm_builtin<Sr, I, V>(const Graph<I, V>&, std::int64_t,               \
                                                 const Descriptor&, const DeviceCaps*);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_INSTANTIATE_SDDMM_)

}  // namespace detail
}  // namespace spindle
