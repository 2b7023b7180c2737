// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file semiring.cuh
/// @brief User-defined semirings on CUDA from an installed package, in the manner of CUB: include
/// this header in one `.cu` file of the program and write, at namespace scope,
///
/// @code
///   struct tropical_max_min {                         // a user-defined semiring
///     using value_type = float;
///     static constexpr spindle::SemiringKind kind = spindle::SemiringKind::Custom;
///     static constexpr bool has_terminal = false;
///     SPINDLE_HD static constexpr float identity() { return 0.0f; }
///     SPINDLE_HD static constexpr float terminal() { return 0.0f; }
///     SPINDLE_HD static constexpr float add(float a, float b) { return a < b ? b : a; }
///     SPINDLE_HD static constexpr float mul(float a, float b) { return a < b ? a : b; }
///   };
///   SPINDLE_CUDA_SEMIRING(tropical_max_min);
/// @endcode
///
/// The macro instantiates the generic kernel family (spindle/cuda/kernels/generic.cuh: mxv,
/// vxm, SpMM and SDDMM, int32 and int64 indices, matrix values as the semiring's type or a
/// pattern) for the semiring, compiled by nvcc for the architectures the program is built for,
/// and registers the kernels with the library when the program starts. From then on
/// spindle::mxv / vxm / mxm / sddmm run the semiring on CUDA like a built-in one: planned
/// (`plan_for_*`, SPINDLE_LOG=plan: "generic: a user-defined semiring"), through the same
/// residency, masks, accumulators and transposes. Without the macro they run it on the CPU
/// (Device::Auto) or throw Unsupported naming the macro (Device::Cuda).
///
/// Requirements on S: value_type float or double; kind SemiringKind::Custom; identity(), add()
/// and mul() callable on the device (SPINDLE_HD); add associative and commutative with
/// identity() its identity. S's name must be one token (use an alias for a template-id).

#include <type_traits>
#include <typeindex>
#include <typeinfo>

#include "spindle/cuda/kernels/generic.cuh"
#include "spindle/ops/custom_semiring.hpp"
#include "spindle/semiring.hpp"

namespace spindle::detail::cuda {

/// Instantiates the generic kernels for S and registers them (what SPINDLE_CUDA_SEMIRING runs).
template <class S>
bool register_user_semiring(const char* name) {
  using T = typename S::value_type;
  static_assert(
      S::kind == SemiringKind::Custom,
      "SPINDLE_CUDA_SEMIRING is for user-defined semirings (kind = SemiringKind::Custom); "
      "the built-in ones are in the library");
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "SPINDLE_CUDA_SEMIRING: the semiring's value_type must be float or double");
  ::spindle::detail::register_cuda_semiring<T>(std::type_index(typeid(S)), name,
                                               generic::kernels<S, /*kSwapped=*/true>());
  return true;
}

}  // namespace spindle::detail::cuda

#define SPINDLE_CUDA_SEMIRING_CAT2_(a, b) a##b
#define SPINDLE_CUDA_SEMIRING_CAT_(a, b) SPINDLE_CUDA_SEMIRING_CAT2_(a, b)
/// Instantiates and registers the generic CUDA kernels of user-defined semiring S (see above).
#define SPINDLE_CUDA_SEMIRING(S)                                                   \
  static const bool SPINDLE_CUDA_SEMIRING_CAT_(spindle_cuda_semiring_, __LINE__) = \
      ::spindle::detail::cuda::register_user_semiring<S>(#S)
