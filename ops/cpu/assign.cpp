// SPDX-License-Identifier: Apache-2.0
// CPU backend: assignment into vectors.
#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "spindle/ops/cpu/assign_impl.hpp"

namespace spindle::detail::cpu {

template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, T s, bool replace) {
  cpu_kernels::assign_scalar_all(w, mask, accum, s, replace);
}

template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, T s, const std::vector<std::int64_t>& idx,
            bool replace) {
  cpu_kernels::assign_scalar_list(w, mask, accum, s, idx, replace);
}

template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u,
            const std::vector<std::int64_t>& idx, bool replace) {
  cpu_kernels::assign_vector_list(w, mask, accum, u, idx, replace);
}

template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u, bool replace) {
  cpu_kernels::assign_vector_all(w, mask, accum, u, replace);
}

#define SPINDLE_INSTANTIATE_CPU_ASSIGN_(T)                                                     \
  template void assign<T>(Vector<T>&, const Mask&, Accum, T, bool);                            \
  template void assign<T>(Vector<T>&, const Mask&, Accum, T, const std::vector<std::int64_t>&, \
                          bool);                                                               \
  template void assign<T>(Vector<T>&, const Mask&, Accum, const Vector<T>&,                    \
                          const std::vector<std::int64_t>&, bool);                             \
  template void assign<T>(Vector<T>&, const Mask&, Accum, const Vector<T>&, bool);
SPINDLE_FOR_EACH_VECTOR_TYPE(SPINDLE_INSTANTIATE_CPU_ASSIGN_)

}  // namespace spindle::detail::cpu
