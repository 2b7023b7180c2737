// SPDX-License-Identifier: Apache-2.0
// CPU backend: deterministic scalar reductions.
#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "spindle/ops/cpu/reduce_impl.hpp"

namespace spindle::detail::cpu {

template <class T>
T reduce(MonoidKind monoid, const Vector<T>& u) {
  return cpu_kernels::reduce_vector(monoid, u);
}

template <class T>
T l1_distance(const Vector<T>& u, const Vector<T>& v) {
  return cpu_kernels::l1_distance(u, v);
}

#define SPINDLE_INSTANTIATE_CPU_REDUCE_(T)            \
  template T reduce<T>(MonoidKind, const Vector<T>&); \
  template T l1_distance<T>(const Vector<T>&, const Vector<T>&);
SPINDLE_FOR_EACH_VECTOR_TYPE(SPINDLE_INSTANTIATE_CPU_REDUCE_)

}  // namespace spindle::detail::cpu
