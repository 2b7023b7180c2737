// SPDX-License-Identifier: Apache-2.0
#pragma once
// detail::cpu::mxv / vxm: the CPU backend entries over the kernel templates. Instantiated per
// value type in mxv_f32.cpp / mxv_f64.cpp (two smaller translation units build in parallel).
#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "spindle/ops/cpu/mxv_impl.hpp"

namespace spindle::detail::cpu {

template <class S, class I, class V>
void mxv(const Plan& /*plan*/, Vector<typename S::value_type>& w, const Mask& mask, Accum accum,
         const Graph<I, V>& A, const Vector<typename S::value_type>& u, bool transpose_a,
         bool replace) {
  cpu_kernels::mxv_run<S>(w, mask, accum, A, u, transpose_a, replace);
}

template <class S, class I, class V>
void vxm(const Plan& /*plan*/, Vector<typename S::value_type>& w, const Mask& mask, Accum accum,
         const Vector<typename S::value_type>& u, const Graph<I, V>& A, bool transpose_a,
         bool replace) {
  cpu_kernels::vxm_run<S>(w, mask, accum, u, A, transpose_a, replace);
}

}  // namespace spindle::detail::cpu

#define SPINDLE_INSTANTIATE_CPU_MXV_(S, I, V)                                                 \
  template void spindle::detail::cpu::mxv<S, I, V>(const Plan&, Vector<S::value_type>&,       \
                                                   const Mask&, Accum, const Graph<I, V>&,    \
                                                   const Vector<S::value_type>&, bool, bool); \
  template void spindle::detail::cpu::vxm<S, I, V>(                                           \
      const Plan&, Vector<S::value_type>&, const Mask&, Accum, const Vector<S::value_type>&,  \
      const Graph<I, V>&, bool, bool);
