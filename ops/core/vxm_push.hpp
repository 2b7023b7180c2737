// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file vxm_push.hpp
/// @brief vxm as a push (MxvKernel::PushScatter): w<mask> = accum(w, u ⊕.⊗ A) computed over the
/// rows of A itself, each present u(i) scattering mul(A(i,j), u(i)) into t(j), instead of a pull
/// over the cached transpose. Work follows the input's present entries and their out-entries, so
/// a sparse u (a BFS or SSSP frontier) costs its own edges plus a few passes over the rows and
/// columns (about 0.08 ms on R-MAT 22, H200), where the pull walks every entry of A^T; and no
/// transpose is built or uploaded.
///
/// Atomics land in no fixed order, so only monoids whose result does not depend on the order run
/// as a push (push_monoid): min and max (an atomic min / max of an order-preserving integer key;
/// NaN terms are skipped, as the pull's fold never lets one win: docs/numerics.md rule 2), lor and
/// any (every term stores the same 1). The one difference from the pull: a tie between -0 and +0
/// resolves by sign (min keeps -0, max +0) where the pull keeps the first term in row order.
/// Plus monoids always pull (a float sum would depend on the order the atomics land).
///
/// The planner's rule (plan_vxm_push_cuda) needs the input's present entries and their
/// out-entries: the CUDA backend counts them on the device (vxm_push_input: one pass over the
/// input's presence and A's row offsets, and a synchronizing read-back of three integers), only
/// for calls that could push (push_candidate). Such a call uploads A's structure even when the
/// planner then pulls, so a program that mixes both keeps A and A^T on the device.

#include <atomic>
#include <cstdint>
#include <string>

#include "ops/core/planner.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"
#include "spindle/vector.hpp"

namespace spindle::detail {

/// How a push combines the terms that land on one output: None for monoids it cannot run.
enum class PushMonoid : std::uint8_t { None, Min, Max, Or, Any };

constexpr PushMonoid push_monoid(SemiringKind k) noexcept {
  switch (k) {
    case SemiringKind::MinPlus:
    case SemiringKind::MinTimes:
      return PushMonoid::Min;
    case SemiringKind::MaxPlus:
    case SemiringKind::MaxTimes:
    case SemiringKind::MaxMin:
      return PushMonoid::Max;
    case SemiringKind::LorLand:
      return PushMonoid::Or;
    case SemiringKind::AnyPair:
      return PushMonoid::Any;
    default:
      return PushMonoid::None;
  }
}

/// What a push would touch: u's present entries, those with out-entries in A, and the
/// out-entries themselves (the terms it would scatter).
struct PushInput {
  std::int64_t present = 0;
  std::int64_t sources = 0;  ///< present entries whose row of A has entries
  std::int64_t edges = 0;
};

/// Graphs below this many entries never push on the planner's own choice: the pull is one
/// launch-bound kernel there (a few microseconds) and its transpose costs under a millisecond to
/// build, where the push is five launches and a read-back.
inline constexpr std::int64_t kPushMinNnz = std::int64_t{1} << 17;
/// Once A^T is built, the push's fixed cost is worth it from this many entries: R-MAT 18 (4.2 M
/// entries, H200) a tiny input 0.062 ms pushed against 0.041 pulled, R-MAT 20 (16.8 M) 0.063
/// against 0.121 (docs/design/mxv.md).
inline constexpr std::int64_t kPushMinNnzWithTranspose = std::int64_t{1} << 23;

/// Whether a vxm call is one the push could run: CUDA, a push monoid, vxm over A itself (not
/// transposed), and either forced or planned by rule (an input with absent entries on a graph of
/// at least kPushMinNnz entries, kPushMinNnzWithTranspose once A^T is built). Only such calls pay
/// for vxm_push_input's read-back.
inline bool push_candidate(Device device, SemiringKind s, const Descriptor& desc, bool input_full,
                           std::int64_t nnz, bool transpose_cached) {
  if (device != Device::Cuda || desc.transpose_a || push_monoid(s) == PushMonoid::None ||
      !cuda_precompiled(OpKind::Vxm, s)) {
    return false;
  }
  if (desc.mxv_kernel == MxvKernel::PushScatter) return true;
  return desc.mxv_kernel == MxvKernel::Auto && !input_full &&
         nnz >= (transpose_cached ? kPushMinNnzWithTranspose : kPushMinNnz);
}

/// The planner's decision between the push and the pull for a push candidate: `push` true with
/// the push's plan, or false with `note`, one clause saying why the pull runs instead (the pull's
/// plan then comes from plan_mxv and carries it). `a` are A's statistics (not A^T's);
/// `transpose_cached` says whether A^T exists already (Graph::has_transpose): the pull builds it
/// first otherwise (sorted on the device from 2^20 entries), which costs more than many pushes.
struct PushDecision {
  bool push = false;
  Plan plan;
  std::string note;
};
PushDecision plan_vxm_push_cuda(const GraphStats& a, const MxvInfo& info, const PushInput& in,
                                bool transpose_cached, const Descriptor& desc);

namespace cuda {

/// Most blocks a push's scatter launches; past that each block takes several tiles in turn (the
/// grid-stride loop). Tests lower it to exercise that loop on small inputs.
inline std::atomic<std::int64_t> push_scatter_max_blocks{std::int64_t{1} << 24};

/// Counts u's present entries and their out-entries in A on the device (one kernel, one read-back
/// of three integers; synchronizes the stream).
template <class T, class I, class V>
PushInput vxm_push_input(const Vector<T>& u, const Graph<I, V>& A);

/// w<mask> = accum(w, u ⊕.⊗ A) by the push; `in` is vxm_push_input's count for this u and A.
/// @throws Unsupported for a semiring without a push monoid (the planner never plans one).
template <class S, class I, class V>
void vxm_push(const Plan& plan, const PushInput& in, Vector<typename S::value_type>& w,
              const Mask& mask, Accum accum, const Vector<typename S::value_type>& u,
              const Graph<I, V>& A, bool replace);

}  // namespace cuda
}  // namespace spindle::detail
