// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mxv_args.cuh
/// @brief What every mxv kernel variant receives, and the per-entry product they share.
///
/// Kernels are templates over the semiring S, the index type I and the matrix value type
/// VV (T, or Pattern: no value array, every entry is 1) and a bool kGeneral:
///   - kGeneral = false, the simple path: no mask, no accumulator, u full (every row with a stored
///     entry has a term; the common SpMV / PageRank case);
///   - kGeneral = true: masks, accumulators, replace and an input u with absent entries.
/// The semiring's identity and terminal are passed as values (computed on the host) so kernels
/// never call constexpr host functions such as numeric_limits<T>::infinity().

#include <cstdint>
#include <type_traits>

#include "engine/src/cuda/graph_device.hpp"
#include "ops/cuda/common/device_output.cuh"
#include "spindle/semiring.hpp"
#include "spindle/types.hpp"

namespace spindle::detail::cuda {

template <class T, class I, class VV>
struct MxvArgs {
  DeviceCsr<I, VV> A;
  const T* u = nullptr;
  const std::uint8_t* u_present = nullptr;  ///< nullptr: u is full
  VectorResult<T> out;
  T identity{};
  T terminal{};
};

/// A(i,j) as T: the stored value, or 1 for pattern graphs.
template <class T, class VV>
__device__ __forceinline__ T matrix_value(const VV* values, std::int64_t k) {
  if constexpr (is_pattern_v<VV>) {
    (void)values;
    (void)k;
    return T(1);
  } else {
    return __ldg(values + k);
  }
}

/// mul(A(i,j), u(j)) for stored entry k; `present` says whether u(j) exists (always on the simple
/// path). Absent inputs contribute the identity.
template <class S, bool kGeneral, class T, class I, class VV>
__device__ __forceinline__ T entry_product(const MxvArgs<T, I, VV>& a, std::int64_t k,
                                           bool& present) {
  const I j = __ldg(a.A.col_idx + k);
  if constexpr (kGeneral) {
    present = a.u_present == nullptr || __ldg(a.u_present + j) != 0;
    if (!present) return a.identity;
  } else {
    present = true;
  }
  return S::mul(matrix_value<T, VV>(a.A.values, k), __ldg(a.u + j));
}

/// True when the reduction can stop: the semiring has a terminal (absorbing) value and acc is it.
template <class S, class T>
__device__ __forceinline__ bool at_terminal(T acc, T terminal) {
  if constexpr (S::has_terminal) {
    return acc == terminal;
  } else {
    (void)acc;
    (void)terminal;
    return false;
  }
}

}  // namespace spindle::detail::cuda
