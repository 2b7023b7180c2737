// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file rank_backend.hpp
/// @brief Backend entries of the fused steps that hand their scalars back pending
/// (spindle/ops/rank.hpp: teleport_residual_and_scale, normalize_and_distance). It sits beside
/// backend.hpp rather than in it because only the rank sources need it: backend.hpp is included by
/// every kernel family, the mxm ones among them.

#include "ops/core/backend.hpp"
#include "spindle/ops/rank.hpp"

/// teleport_and_residual, then scale_and_leak(w, leak, x_new, scale), in one pass; and power
/// iteration's normalization with its L1 change (inputs checked full, sizes equal, outputs
/// distinct from the inputs).
#define SPINDLE_RANK_STEP_DECLARATION                                              \
  template <class T>                                                               \
  PendingScalar<T> teleport_residual_and_scale(                                    \
      Vector<T>& x_new, const Vector<T>& x, Vector<T>& leak, double t0, double t1, \
      const Vector<T>* teleport, Vector<T>& w, const Vector<T>& scale);            \
  template <class T>                                                               \
  NormalizedStep<T> normalize_and_distance(Vector<T>& y, const Vector<T>& x);

#define SPINDLE_INSTANTIATE_RANK_STEP_BACKEND(T)                                              \
  template PendingScalar<T> teleport_residual_and_scale<T>(                                   \
      Vector<T>&, const Vector<T>&, Vector<T>&, double, double, const Vector<T>*, Vector<T>&, \
      const Vector<T>&);                                                                      \
  template NormalizedStep<T> normalize_and_distance<T>(Vector<T>&, const Vector<T>&);

namespace spindle::detail {
namespace cpu {
SPINDLE_RANK_STEP_DECLARATION
}  // namespace cpu
namespace cuda {
SPINDLE_RANK_STEP_DECLARATION
}  // namespace cuda
}  // namespace spindle::detail
