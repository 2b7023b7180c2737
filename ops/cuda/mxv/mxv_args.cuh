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
#include <cstring>
#include <type_traits>

#include "engine/src/cuda/graph_device.hpp"
#include "ops/cuda/common/l2_policy.cuh"
#include "spindle/cuda/kernels/output.cuh"
#include "spindle/semiring.hpp"
#include "spindle/types.hpp"

namespace spindle::detail::cuda {

/// Cache policies of the mxv loads:
///   0: plain read-only loads (__ldg) for everything;
///   1: matrix arrays (column indices, values) streamed: no L1 allocation, evicted first in L2;
///   2: as 1, and gathers of u kept longest in L2 (evict_last).
/// A compile-time choice: selecting it at run time put a branch around every load, which kept the
/// compiler from issuing a thread's loads together and cost 15% (subwarp) to 4x (row_per_thread,
/// one long row) on the H200. Measured under that handicap the policies differed by at most 8%
/// either way (H200 sweep in the session of commit d0b9b6e), so the plain loads stay the default.
/// row_block passes 1 for its streams (row_block.cuh): with its L1-resident hot set of u the
/// streams must not allocate in L1.
#ifdef SPINDLE_MXV_CACHE_HINTS  // exploration builds only: -DSPINDLE_MXV_CACHE_HINTS=N
inline constexpr int kCacheHintsDefault = SPINDLE_MXV_CACHE_HINTS;
#else
inline constexpr int kCacheHintsDefault = 0;
#endif

template <class T, class I, class VV>
struct MxvArgs {
  DeviceCsr<I, VV> A;
  const T* u = nullptr;
  const std::uint8_t* u_present = nullptr;  ///< nullptr: u is full
  VectorResult<T> out;
  T identity{};
  T terminal{};
};

/// One 4- or 8-byte load through the read-only path with cache hints (sm_80+; plain __ldg before,
/// and for other sizes): kL1Allocate false bypasses L1 (L1::no_allocate), kEvictLast picks the L2
/// policy (evict_last, else evict_first). The loads below are its three uses.
template <bool kL1Allocate, bool kEvictLast, class X>
__device__ __forceinline__ X ld_hinted(const X* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned long long pol;
  if constexpr (kEvictLast) {
    pol = l2_policy_evict_last();
  } else {
    pol = l2_policy_evict_first();
  }
  if constexpr (sizeof(X) == 4) {
    unsigned r;
    if constexpr (kL1Allocate) {
      asm("ld.global.nc.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(r) : "l"(p), "l"(pol));
    } else {
      asm("ld.global.nc.L1::no_allocate.L2::cache_hint.b32 %0, [%1], %2;"
          : "=r"(r)
          : "l"(p), "l"(pol));
    }
    X x;
    memcpy(&x, &r, 4);
    return x;
  } else if constexpr (sizeof(X) == 8) {
    unsigned long long r;
    if constexpr (kL1Allocate) {
      asm("ld.global.nc.L2::cache_hint.b64 %0, [%1], %2;" : "=l"(r) : "l"(p), "l"(pol));
    } else {
      asm("ld.global.nc.L1::no_allocate.L2::cache_hint.b64 %0, [%1], %2;"
          : "=l"(r)
          : "l"(p), "l"(pol));
    }
    X x;
    memcpy(&x, &r, 8);
    return x;
  }
#endif
  return __ldg(p);
}

/// Load of streamed data (read once): no L1 allocation, first out of L2.
template <int kHints, class X>
__device__ __forceinline__ X ld_stream(const X* p) {
  if constexpr (kHints >= 1) {
    return ld_hinted<false, false>(p);
  } else {
    return __ldg(p);
  }
}

/// Gather of u (reused across rows): cached in L1, kept last in L2 with hints == 2.
template <int kHints, class X>
__device__ __forceinline__ X ld_gather(const X* p) {
  if constexpr (kHints >= 2) {
    return ld_hinted<true, true>(p);
  } else {
    return __ldg(p);
  }
}

/// A(i,j) as T: the stored value, or 1 for pattern graphs.
template <class T, class VV, int kHints = kCacheHintsDefault>
__device__ __forceinline__ T matrix_value(const VV* values, std::int64_t k) {
  if constexpr (is_pattern_v<VV>) {
    (void)values;
    (void)k;
    return T(1);
  } else {
    return ld_stream<kHints>(values + k);
  }
}

/// Where a kernel reads u(j).
template <class T>
struct GlobalGather {
  const T* u;
  __device__ __forceinline__ T operator()(std::int64_t j) const {
    return ld_gather<kCacheHintsDefault>(u + j);
  }
};

/// mul(A(i,j), u(j)) for stored entry k; `present` says whether u(j) exists (always on the simple
/// path). Absent inputs contribute the identity. kHints: the cache policy of the column index and
/// value loads (see kCacheHintsDefault).
template <class S, bool kGeneral, int kHints = kCacheHintsDefault, class T, class I, class VV,
          class G>
__device__ __forceinline__ T entry_product(const MxvArgs<T, I, VV>& a, std::int64_t k,
                                           bool& present, const G& gather) {
  const I j = ld_stream<kHints>(a.A.col_idx + k);
  if constexpr (kGeneral) {
    present = a.u_present == nullptr || __ldg(a.u_present + j) != 0;
    if (!present) return a.identity;
  } else {
    present = true;
  }
  return S::mul(matrix_value<T, VV, kHints>(a.A.values, k), gather(j));
}
template <class S, bool kGeneral, class T, class I, class VV>
__device__ __forceinline__ T entry_product(const MxvArgs<T, I, VV>& a, std::int64_t k,
                                           bool& present) {
  return entry_product<S, kGeneral>(a, k, present, GlobalGather<T>{a.u});
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
