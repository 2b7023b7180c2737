// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file custom_semiring.hpp
/// @brief How the public operations run a user-defined semiring (kind SemiringKind::Custom):
/// on the CPU through the templates of spindle/ops/cpu/*_impl.hpp, on CUDA through the generic
/// kernel family, which a .cu file of the program instantiates for the semiring with
/// SPINDLE_CUDA_SEMIRING (spindle/cuda/semiring.cuh) and registers under the semiring's type.
/// The public entries (spindle/ops/mxv.hpp, mxm.hpp, sddmm.hpp) call these; users need not.

#include <cstdint>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "spindle/cuda/kernels/generic_args.hpp"
#include "spindle/dense.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/executor.hpp"
#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"
#include "spindle/vector.hpp"

namespace spindle {

template <class T>
struct MxmEpilogue;

namespace detail {

/// What the library needs to know of a user-defined semiring over T at run time.
template <class T>
struct CustomSemiring {
  std::type_index key;  ///< the semiring's type: the registry's key
  T identity;           ///< S::identity(), computed on the host
};

template <class S>
CustomSemiring<typename S::value_type> custom_semiring() {
  static_assert(S::kind == SemiringKind::Custom);
  return {std::type_index(typeid(S)), S::identity()};
}

/// Registers the generic kernels instantiated for a user-defined semiring (SPINDLE_CUDA_SEMIRING).
template <class T>
void register_cuda_semiring(std::type_index key, const char* name,
                            const cuda::GenericKernels<T>& kernels);
/// The kernels registered for `key`, or nullptr.
template <class T>
const cuda::GenericKernels<T>* find_cuda_semiring(std::type_index key);

/// Where a call with a user-defined semiring runs: the CPU for Device::Cpu, CUDA for
/// Device::Cuda (an unregistered semiring then throws Unsupported naming the macro), and for
/// Device::Auto CUDA when a device is visible and the semiring's kernels are registered.
template <class T>
bool custom_runs_on_cuda(std::type_index key, Device requested);

/// The CUDA runs of the public operations for a user-defined semiring (the generic kernels).
template <class T, class I, class V>
void custom_mxv(const CustomSemiring<T>& s, OpKind op, Vector<T>& w, const Mask& mask, Accum accum,
                const Graph<I, V>& A, const Vector<T>& u, const Descriptor& desc);
template <class T, class I, class V>
void custom_mxm(const CustomSemiring<T>& s, DenseMatrix<T>& C, Accum accum, const Graph<I, V>& A,
                const DenseMatrix<T>& B, const Vector<T>* bias, Unary<T> act,
                const Descriptor& desc);
template <class T, class I, class V>
void custom_sddmm(const CustomSemiring<T>& s, std::vector<T>& out, Accum accum,
                  const Graph<I, V>& S, const DenseMatrix<T>& X, const DenseMatrix<T>& Y,
                  const Descriptor& desc);

/// The plan of a call with a user-defined semiring over T (plan_for_*): `width` is N for mxm and
/// K for sddmm; `target` the device planned for (nullptr: this process's).
template <class T, class I, class V>
Plan custom_plan(OpKind op, const Graph<I, V>& A, std::int64_t width, const Mask& mask, Accum accum,
                 const Descriptor& desc, const DeviceCaps* target);

}  // namespace detail
}  // namespace spindle
