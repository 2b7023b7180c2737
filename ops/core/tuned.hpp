// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file tuned.hpp
/// @brief Winners of tuning mode (spindle/cuda/tune.hpp) cached on a graph: the public entries
/// look them up and hand them to the planner, which runs them in place of its rules' pick where
/// they apply (plan_mxv_cuda, plan_mxm_cuda, plan_sddmm_cuda). Host code, in every build.

#include <cstdint>
#include <optional>
#include <string>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"
#include "spindle/types.hpp"

namespace spindle::detail {

/// The tuned plan for mxv over M's rows with this semiring kind and value type, if any.
template <class I, class V>
std::optional<Plan> tuned_mxv_plan(const Graph<I, V>& M, SemiringKind s, ValueKind t);

/// Stores a tuned mxv plan on M.
template <class I, class V>
void set_tuned_mxv_plan(const Graph<I, V>& M, SemiringKind s, ValueKind t, const Plan& p);

/// The key of an mxm / sddmm winner: (op, width, semiring, value type, pattern or values).
std::string tuned_key(const char* op, std::int64_t width, SemiringKind s, ValueKind t,
                      bool pattern);

/// The mxm / sddmm winner cached on G under `key`, if any.
template <class I, class V>
std::optional<Plan> find_tuned(const Graph<I, V>& G, const std::string& key);

/// Stores an mxm / sddmm winner on G.
template <class I, class V>
void store_tuned(const Graph<I, V>& G, const std::string& key, const Plan& p);

/// The tuned winners an SpMM through semiring S at width n on G may run (its own, and the mxv
/// winner for the N = 1 SpMV); empty off CUDA.
struct MxmTuned {
  std::optional<Plan> mxm;
  std::optional<Plan> mxv;
  const Plan* mxm_ptr() const { return mxm ? &*mxm : nullptr; }
  const Plan* mxv_ptr() const { return mxv ? &*mxv : nullptr; }
};
template <class S, class I, class V>
MxmTuned tuned_mxm_for(bool on_cuda, const Graph<I, V>& G, std::int64_t n) {
  MxmTuned t;
  if (!on_cuda) return t;
  constexpr bool kPattern = is_pattern_v<V> || S::mul_code == MulOp::Pair;
  t.mxm = find_tuned(
      G, tuned_key("mxm", n, S::kind, value_kind_of<typename S::value_type>(), kPattern));
  t.mxv = tuned_mxv_plan(G, S::kind, value_kind_of<typename S::value_type>());
  return t;
}

}  // namespace spindle::detail
