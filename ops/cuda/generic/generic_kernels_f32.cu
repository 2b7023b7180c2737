// SPDX-License-Identifier: Apache-2.0
// The generic kernels for the built-in semirings over float, with their operators as run-time codes
// (RuntimeSemiring): one instantiation serves every built-in semiring.
#include "ops/cuda/generic/generic_entry.hpp"
#include "spindle/cuda/kernels/generic.cuh"

namespace spindle::detail::cuda {

template <class T>
const GenericKernels<T>& builtin_generic_kernels() {
  // Every built-in multiply is commutative: no swapped mxv.
  static const GenericKernels<T> k = generic::kernels<RuntimeSemiring<T>, false>();
  return k;
}
template const GenericKernels<float>& builtin_generic_kernels<float>();

}  // namespace spindle::detail::cuda
