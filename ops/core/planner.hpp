// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file planner.hpp
/// @brief The operation planner: pure functions from graph statistics, the call's arguments,
/// the device and its capabilities to a Plan. They never run a kernel and read no global state,
/// so tests check their decisions for any device (e.g. reference_hopper_caps()) on CPU builds.
///
/// planner.cpp holds the device-independent part (CPU plans, forced kernels); planner_cuda.cpp
/// holds the CUDA rules (owned by the CUDA backend; compiled in every build since it is plain
/// host code).

#include <cstdint>
#include <string>

#include "spindle/descriptor.hpp"
#include "spindle/detail/cuda_semirings.hpp"
#include "spindle/executor.hpp"
#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"
#include "spindle/types.hpp"

namespace spindle::detail {

/// What the planner knows about an mxv / vxm call besides the graph statistics.
struct MxvInfo {
  OpKind op = OpKind::Mxv;  ///< Mxv or Vxm
  SemiringKind semiring = SemiringKind::PlusTimes;
  ValueKind value = ValueKind::Float;         ///< the semiring's value type T
  ValueKind matrix_value = ValueKind::Float;  ///< the graph's V (Pattern: no value array)
  IndexKind index = IndexKind::Int32;
  bool masked = false;
  MaskKind mask_kind = MaskKind::Value;
  bool mask_complemented = false;
  bool accum = false;
  bool replace = false;
  bool input_full = true;  ///< u has no absent entries
  bool transpose_a = false;
  /// The semiring has specialized CUDA kernels in this build (cuda_precompiled); otherwise only
  /// the generic kernels run it on CUDA.
  bool precompiled = true;
};

/// An mxv / vxm call without mask or accumulator over a full u (the N = 1 SpMM, `info
/// --explain`): semiring s over values `value` on a graph storing `matrix_value`.
inline MxvInfo plain_mxv_info(SemiringKind s, ValueKind value, ValueKind matrix_value,
                              IndexKind index, OpKind op = OpKind::Mxv) {
  MxvInfo info;
  info.op = op;
  info.semiring = s;
  info.value = value;
  info.matrix_value = matrix_value;
  info.index = index;
  info.precompiled = cuda_precompiled(op, s);
  return info;
}

/// What the planner knows about an mxm (SpMM) call.
struct MxmInfo {
  SemiringKind semiring = SemiringKind::PlusTimes;
  ValueKind value = ValueKind::Float;
  ValueKind matrix_value = ValueKind::Float;
  IndexKind index = IndexKind::Int32;
  std::int64_t n = 0;  ///< dense width N
  bool accum = false;
  /// A fused bias or activation (mxm with an MxmEpilogue): the N = 1 SpMV cannot run it.
  bool epilogue = false;
  bool transpose_a = false;
  bool transpose_b = false;
  bool precompiled = true;  ///< as MxvInfo::precompiled
};

/// The MxmInfo of an mxm through semiring `s` over values `value` on a graph storing
/// `matrix_value` with `index` indices, at dense width n: the one place that fills it (the public
/// mxm, its fused epilogue, the projected form, tuning and user-defined semirings).
inline MxmInfo mxm_info_of(SemiringKind s, ValueKind value, ValueKind matrix_value, IndexKind index,
                           std::int64_t n, bool accum, const Descriptor& desc) {
  MxmInfo info;
  info.semiring = s;
  info.value = value;
  info.matrix_value = matrix_value;
  info.index = index;
  info.n = n;
  info.accum = accum;
  info.transpose_a = desc.transpose_a;
  info.transpose_b = desc.transpose_b;
  info.precompiled = cuda_precompiled(OpKind::Mxm, s);
  return info;
}
/// mxm_info_of for semiring S on a Graph<I, V>.
template <class S, class I, class V>
MxmInfo mxm_info(std::int64_t n, bool accum, const Descriptor& desc) {
  return mxm_info_of(S::kind, value_kind_of<typename S::value_type>(), value_kind_of<V>(),
                     index_kind_of<I>(), n, accum, desc);
}

/// What the planner knows about an sddmm call.
struct SddmmInfo {
  SemiringKind semiring = SemiringKind::PlusTimes;
  ValueKind value = ValueKind::Float;
  ValueKind matrix_value = ValueKind::Float;
  IndexKind index = IndexKind::Int32;
  std::int64_t k = 0;  ///< inner dimension K
  bool accum = false;
  bool transpose_b = false;
  bool precompiled = true;  ///< as MxvInfo::precompiled
};

/// The MxvInfo of an mxv / vxm call (op) through semiring `s`: the one place that fills it from a
/// call's arguments (the public mxv / vxm, plan_for_*, user-defined semirings).
inline MxvInfo mxv_info_of(OpKind op, SemiringKind s, ValueKind value, ValueKind matrix_value,
                           IndexKind index, const Mask& mask, Accum accum, bool input_full,
                           const Descriptor& desc) {
  MxvInfo info = plain_mxv_info(s, value, matrix_value, index, op);
  info.masked = !mask.empty();
  info.mask_kind = mask.kind();
  info.mask_complemented = mask.complemented();
  info.accum = accum.enabled;
  info.replace = desc.replace;
  info.input_full = input_full;
  info.transpose_a = desc.transpose_a;
  return info;
}
/// mxv_info_of for semiring S on a Graph<I, V>.
template <class S, class I, class V>
MxvInfo mxv_info(OpKind op, const Mask& mask, Accum accum, bool input_full,
                 const Descriptor& desc) {
  return mxv_info_of(op, S::kind, value_kind_of<typename S::value_type>(), value_kind_of<V>(),
                     index_kind_of<I>(), mask, accum, input_full, desc);
}

/// The SddmmInfo of an sddmm through semiring `s` at inner dimension k.
inline SddmmInfo sddmm_info_of(SemiringKind s, ValueKind value, ValueKind matrix_value,
                               IndexKind index, std::int64_t k, bool accum,
                               const Descriptor& desc) {
  SddmmInfo info;
  info.semiring = s;
  info.value = value;
  info.matrix_value = matrix_value;
  info.index = index;
  info.k = k;
  info.accum = accum;
  info.transpose_b = desc.transpose_b;
  info.precompiled = cuda_precompiled(OpKind::Sddmm, s);
  return info;
}
/// sddmm_info_of for semiring S on a Graph<I, V>.
template <class S, class I, class V>
SddmmInfo sddmm_info(std::int64_t k, bool accum, const Descriptor& desc) {
  return sddmm_info_of(S::kind, value_kind_of<typename S::value_type>(), value_kind_of<V>(),
                       index_kind_of<I>(), k, accum, desc);
}

/// The device capabilities a plan for the resolved `device` reads: this process's GPU's for CUDA,
/// an empty set for the CPU, whose plans never read them. device_caps() creates the CUDA context
/// on its first call, which a run on the CPU of a GPU machine must not pay for.
const DeviceCaps& caps_for(Device device);

/// Plans an mxv / vxm. `stats` are those of the graph whose rows produce the output entries
/// (A; A^T with transpose_a; for vxm A^T, or A with transpose_a). `device` is already resolved
/// (Cpu or Cuda). A kernel forced in desc.mxv_kernel is used when the device can run it;
/// otherwise the planner's choice is returned with a reason saying the force fell back.
Plan plan_mxv(const GraphStats& stats, const MxvInfo& info, Device device, const DeviceCaps& caps,
              const Descriptor& desc, const Plan* tuned = nullptr);
/// Plans an mxm (stats of A, or A^T with transpose_a); forcing through desc.mxm_kernel.
Plan plan_mxm(const GraphStats& stats, const MxmInfo& info, Device device, const DeviceCaps& caps,
              const Descriptor& desc, const Plan* tuned_mxm = nullptr,
              const Plan* tuned_mxv = nullptr);
/// Plans an sddmm (stats of S); forcing through desc.sddmm_kernel.
Plan plan_sddmm(const GraphStats& stats, const SddmmInfo& info, Device device,
                const DeviceCaps& caps, const Descriptor& desc, const Plan* tuned = nullptr);

/// The device a what-if plan (plan_for_* with a target) is made for: Cpu stays Cpu, Auto is
/// Cuda when `target` describes a CUDA device (target.available) and Cpu otherwise, Cuda needs
/// one. `what` names the entry point in the message.
/// @throws InvalidArgument for Cuda with a target that has no CUDA device.
Device resolve_target_device(const char* what, Device requested, const DeviceCaps& target);

/// The CUDA rules (planner_cuda.cpp), including the handling of forced kernels on CUDA and of a
/// winner of tuning mode cached for the graph (`tuned`, plain calls only). Every plan returned is
/// complete (finalize_mxv_cuda): the backend runs it as it is.
Plan plan_mxv_cuda(const GraphStats& stats, const MxvInfo& info, const DeviceCaps& caps,
                   const Descriptor& desc, const Plan* tuned = nullptr);
/// Completes plan `p` of a CUDA pull kernel (p.mxv with whatever launch parameters it carries)
/// for these statistics, call and device: defaults for parameters left at 0, the kernel's form
/// (row_block's warp or block form and its loads, sliced_coo's slot), and every other choice the
/// backend would otherwise make. Returns why the kernel cannot run this call ("" when it can;
/// then `p` may be half-changed).
std::string finalize_mxv_cuda(Plan& p, const GraphStats& stats, const MxvInfo& info,
                              const DeviceCaps& caps);
/// The plan that runs, from the rules' complete pick: the descriptor's forced kernel where it
/// can run (else the pick, its reason saying why not), or a tuned winner for plain calls.
Plan settle_mxv_plan(const Plan& rules, const GraphStats& stats, const MxvInfo& info,
                     const DeviceCaps& caps, const Descriptor& desc, const Plan* tuned);
/// mxm: `tuned_mxm` is a tuned SpMM winner for this graph and width, `tuned_mxv` a tuned mxv
/// winner for the graph (the N = 1 SpMV).
Plan plan_mxm_cuda(const GraphStats& stats, const MxmInfo& info, const DeviceCaps& caps,
                   const Descriptor& desc, const Plan* tuned_mxm = nullptr,
                   const Plan* tuned_mxv = nullptr);
/// Completes an SpMM plan as finalize_mxv_cuda does an mxv one (vector width, nnz_balanced_seq's
/// form and chunk, defaults; spmv: the mxv kernel and its parameters).
std::string finalize_mxm_cuda(Plan& p, const GraphStats& stats, const MxmInfo& info,
                              const DeviceCaps& caps, const Plan* tuned_mxv = nullptr);
Plan settle_mxm_plan(const Plan& rules, const GraphStats& stats, const MxmInfo& info,
                     const DeviceCaps& caps, const Descriptor& desc, const Plan* tuned_mxm,
                     const Plan* tuned_mxv);
Plan plan_sddmm_cuda(const GraphStats& stats, const SddmmInfo& info, const DeviceCaps& caps,
                     const Descriptor& desc, const Plan* tuned = nullptr);
std::string finalize_sddmm_cuda(Plan& p, const GraphStats& stats, const SddmmInfo& info);

/// The generic kernels' plans (planner_generic.cpp), used when the semiring has no specialized
/// kernels in this build or the descriptor forces `generic`; `why` opens the reason
/// (generic_why).
std::string generic_why(OpKind op, SemiringKind kind, ValueKind value, bool forced);
Plan plan_generic_mxv(const GraphStats& stats, const MxvInfo& info, const std::string& why);
Plan plan_generic_mxm(const GraphStats& stats, const MxmInfo& info, const std::string& why);
Plan plan_generic_sddmm(const GraphStats& stats, const SddmmInfo& info, const std::string& why);

/// Applies a forced kernel to the planner's choice `chosen`: with an empty `why_not` the result
/// runs `forced` (plan.forced = true; launch parameters kept only when the kernel is the same);
/// otherwise `chosen` is kept and its reason says that the force fell back and why.
template <class Kernel>
Plan apply_forced(Plan chosen, Kernel Plan::*slot, Kernel forced, const std::string& why_not) {
  if (!why_not.empty()) {
    chosen.reason = std::string("forced kernel ") + to_string(forced) + " cannot run here (" +
                    why_not + "); fell back to the planner's choice: " + chosen.reason;
    return chosen;
  }
  if (chosen.*slot != forced) chosen.params = LaunchParams{};
  chosen.*slot = forced;
  chosen.forced = true;
  chosen.reason = "forced by the descriptor";
  return chosen;
}

}  // namespace spindle::detail
