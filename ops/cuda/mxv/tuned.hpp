// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file tuned.hpp
/// @brief Tuned mxv winners cached on a graph (spindle/cuda/tune.hpp): read by the CUDA mxv entry.

#include <optional>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"

namespace spindle::detail::cuda {

/// The tuned plan for mxv over M's rows with this semiring kind and value type, if any.
template <class I, class V>
std::optional<Plan> tuned_mxv_plan(const Graph<I, V>& M, SemiringKind s, ValueKind t);

/// Stores a tuned plan on M.
template <class I, class V>
void set_tuned_mxv_plan(const Graph<I, V>& M, SemiringKind s, ValueKind t, const Plan& p);

}  // namespace spindle::detail::cuda
