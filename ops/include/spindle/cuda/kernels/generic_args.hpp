// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file generic_args.hpp
/// @brief Arguments of the generic CUDA kernel family (generic_mxv.cuh, generic_spmm.cuh,
/// generic_sddmm.cuh) and the table of their launchers for one semiring. Plain host code: the
/// library's host entries fill these and call the launchers through the table, which is built
/// either by the library (the built-in semirings it did not precompile, with run-time operator
/// codes) or by SPINDLE_CUDA_SEMIRING in a user's .cu file (a user-defined semiring).

#include <cstdint>
#include <type_traits>

#include "spindle/cuda/device_views.hpp"
#include "spindle/semiring.hpp"
#include "spindle/types.hpp"

// The CUDA runtime's stream handle, declared as driver_types.h declares it, so that host code of
// builds without CUDA (the registry of user semirings) compiles without CUDA headers.
struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;  // NOLINT(modernize-use-using): must match CUDA's

namespace spindle::detail::cuda {

/// t(i) = ⊕_j mul(M(i,j), u(j)) over the rows of M (mul(u(j), M(i,j)) for the swapped form),
/// then w<mask> = accum(w, t). Rows of more than `long_row` entries run one block each (their ids
/// in `long_rows`); the others run `lanes` lanes each.
template <class T, class I, class VV>
struct GenericMxvArgs {
  DeviceCsr<I, VV> M;
  const T* u = nullptr;
  const std::uint8_t* u_present = nullptr;  ///< nullptr: every u(j) is present
  VectorResult<T> out;                      ///< out.identity is the semiring's identity
  const I* long_rows = nullptr;
  std::int64_t n_long = 0;
  std::int64_t long_row = 0;  ///< 0: no row is long
  int lanes = 32;             ///< power of two in [1, 32]
};

/// C = epilogue(A ⊕.⊗ B), B cols(A) x n and C rows(A) x n row-major on the device. Long rows
/// (more than `long_row` entries, ids in `long_rows`) run one block each; the others `lanes`
/// lanes each, every lane owning columns lane, lane + lanes, ...
template <class T, class I, class VV>
struct GenericSpmmArgs {
  DeviceCsr<I, VV> A;
  const T* b = nullptr;
  std::int64_t ldb = 0;
  T* c = nullptr;
  std::int64_t ldc = 0;
  std::int64_t n = 0;
  DenseEpilogue<T> epi;
  T identity{};
  const I* long_rows = nullptr;
  std::int64_t n_long = 0;
  std::int64_t long_row = 0;
  int lanes = 32;
};

/// out[e] = accum(out[e], mul(S(e), ⊕_c mul(X(i,c), Y(j,c)))) for every stored e = (i, j) of S;
/// X rows(S) x k, Y cols(S) x k row-major. `lanes` lanes (a power of two) per entry.
template <class T, class I, class VV>
struct GenericSddmmArgs {
  DeviceCsr<I, VV> S;
  const T* x = nullptr;
  std::int64_t ldx = 0;
  const T* y = nullptr;
  std::int64_t ldy = 0;
  std::int64_t k = 0;
  T* out = nullptr;
  Accum accum;
  T identity{};
  int lanes = 32;
};

/// The launchers of the generic kernels for one semiring, one index type and the matrix's values
/// read as T or not at all (VV = Pattern). `codes` are the run-time operators of a built-in
/// semiring; a user-defined semiring's launchers ignore them.
template <class T, class I, class VV>
struct GenericKernelSet {
  void (*mxv)(const RuntimeSemiring<T>& codes, const GenericMxvArgs<T, I, VV>&,
              cudaStream_t) = nullptr;
  /// mul(u(j), M(i,j)): vxm over the transpose for semirings whose multiply is not commutative.
  void (*mxv_swapped)(const RuntimeSemiring<T>& codes, const GenericMxvArgs<T, I, VV>&,
                      cudaStream_t) = nullptr;
  void (*spmm)(const RuntimeSemiring<T>& codes, const GenericSpmmArgs<T, I, VV>&,
               cudaStream_t) = nullptr;
  void (*sddmm)(const RuntimeSemiring<T>& codes, const GenericSddmmArgs<T, I, VV>&,
                cudaStream_t) = nullptr;
};

/// Every launcher set of one semiring over T.
template <class T>
struct GenericKernels {
  GenericKernelSet<T, std::int32_t, T> i32_values;
  GenericKernelSet<T, std::int32_t, Pattern> i32_pattern;
  GenericKernelSet<T, std::int64_t, T> i64_values;
  GenericKernelSet<T, std::int64_t, Pattern> i64_pattern;

  template <class I, class VV>
  const GenericKernelSet<T, I, VV>& set() const {
    if constexpr (std::is_same_v<I, std::int32_t>) {
      if constexpr (is_pattern_v<VV>) {
        return i32_pattern;
      } else {
        return i32_values;
      }
    } else {
      if constexpr (is_pattern_v<VV>) {
        return i64_pattern;
      } else {
        return i64_values;
      }
    }
  }
};

}  // namespace spindle::detail::cuda
