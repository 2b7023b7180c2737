// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file index_backend.hpp
/// @brief Backend entries of apply_index (spindle/ops/apply.hpp: t(i) = i + s over u's
/// structure). Beside backend.hpp rather than in it, as rank_backend.hpp is: only the element-wise
/// sources need it, and backend.hpp is included by every kernel family, the mxm ones among them.

#include "ops/core/backend.hpp"

#define SPINDLE_INDEX_APPLY_DECLARATION                                                  \
  template <class T>                                                                     \
  void apply_index(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u, T s, \
                   bool replace);

#define SPINDLE_INSTANTIATE_INDEX_APPLY_BACKEND(T) \
  template void apply_index<T>(Vector<T>&, const Mask&, Accum, const Vector<T>&, T, bool);

namespace spindle::detail {
namespace cpu {
SPINDLE_INDEX_APPLY_DECLARATION
}  // namespace cpu
namespace cuda {
SPINDLE_INDEX_APPLY_DECLARATION
}  // namespace cuda
}  // namespace spindle::detail
