// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file spmm_common.cuh
/// @brief Shared pieces of the SpMM kernels (C = accum(C, epilogue(A ⊕.⊗ B)), B and C dense
/// row-major): the argument block, the epilogue, vector loads of dense rows and the warp
/// reductions. Internal; every kernel variant lives in its own .cuh beside this one.
///
/// Kernels are templates over the semiring S (value type T = S::value_type), the index type I and
/// the stored value type V ∈ {T, Pattern}; a graph of another value type is converted once by
/// the backend before launching. Vector widths are compile-time (VEC), everything else about
/// the shape (N, lanes per entry, column tiles) is a run-time launch parameter, which keeps the
/// number of compiled kernels per semiring small.

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "ops/cuda/common/l2_policy.cuh"
#include "spindle/cuda/kernels/output.cuh"
#include "spindle/operators.hpp"
#include "spindle/semiring.hpp"
#include "spindle/types.hpp"

namespace spindle::detail::cuda {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarp = 32;

/// The epilogue's shape as a kernel template parameter. A kernel that stores finished rows in
/// a hot loop is instantiated per kind, because the generic epilogue's code cost the group form
/// of nnz_balanced_seq 7-10% even when nothing was applied (docs/design/mxm.md).
///   Plain     nothing: rows are stored as summed (any semiring)
///   Bias      t + bias[n]                    (GCN's last layer)
///   BiasRelu  relu(t + bias[n])              (GCN's hidden layers)
///   Generic   finish_value + accumulator: every DenseEpilogue
enum class EpiKind : std::uint8_t { Plain, Bias, BiasRelu, Generic };

/// Semirings that get the Bias / BiasRelu instantiations: plus_times, the GCN aggregation.
/// Others run those epilogues through Generic (same results), which keeps the number of
/// compiled kernels per translation unit down.
template <class S>
constexpr bool kFusedBiasEpilogue = S::kind == SemiringKind::PlusTimes;

/// Raw device view of one SpMM call. `vals` is nullptr for pattern graphs (every entry is 1).
template <class I, class V, class T>
struct SpmmArgs {
  std::int64_t rows = 0;  ///< rows of A (and C)
  std::int64_t n = 0;     ///< dense width N
  const I* __restrict__ row_ptr = nullptr;
  const I* __restrict__ col_idx = nullptr;
  const V* __restrict__ vals = nullptr;
  const T* __restrict__ b = nullptr;  ///< cols(A) x ldb, row-major
  std::int64_t ldb = 0;
  T* __restrict__ c = nullptr;  ///< rows x ldc, row-major
  std::int64_t ldc = 0;
  DenseEpilogue<T> epi;
  /// S::identity(), computed on the host: kernels never call numeric_limits<T>::infinity(), a
  /// constexpr host function.
  T identity{};
};

/// The kind of epilogue e needs, on the host.
template <class T>
EpiKind epi_kind(const DenseEpilogue<T>& e) {
  if (e.accum.enabled) return EpiKind::Generic;
  if (e.act == UnaryOp::Identity) return e.bias != nullptr ? EpiKind::Bias : EpiKind::Plain;
  if (e.act == UnaryOp::Relu && e.bias != nullptr) return EpiKind::BiasRelu;
  return EpiKind::Generic;
}

/// Calls f(std::integral_constant<EpiKind, K>{}) for the instantiation that serves epilogue e
/// under semiring S: Bias and BiasRelu where kFusedBiasEpilogue<S>, else Generic.
template <class S, bool kFused = kFusedBiasEpilogue<S>, class T, class F>
void dispatch_epilogue(const DenseEpilogue<T>& e, F&& f) {
  switch (epi_kind(e)) {
    case EpiKind::Plain:
      f(std::integral_constant<EpiKind, EpiKind::Plain>{});
      return;
    case EpiKind::Bias:
      if constexpr (kFused) {
        f(std::integral_constant<EpiKind, EpiKind::Bias>{});
        return;
      }
      break;
    case EpiKind::BiasRelu:
      if constexpr (kFused) {
        f(std::integral_constant<EpiKind, EpiKind::BiasRelu>{});
        return;
      }
      break;
    case EpiKind::Generic:
      break;
  }
  f(std::integral_constant<EpiKind, EpiKind::Generic>{});
}

/// VEC consecutive values of T loaded or stored as one (or two) 8/16-byte accesses.
template <class T, int VEC>
struct alignas(sizeof(T) * VEC <= 16 ? sizeof(T) * VEC : 16) Frag {
  T v[VEC];
};

/// Stores VEC values at p through the vector types (float2/float4, double2) where there is one;
/// p aligned as for load_frag. Assigning the Frag itself copies its array member by member.
template <class T, int VEC>
__device__ __forceinline__ void store_frag(T* p, const Frag<T, VEC>& f) {
  if constexpr (std::is_same_v<T, float> && VEC == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(f.v[0], f.v[1], f.v[2], f.v[3]);
  } else if constexpr (std::is_same_v<T, float> && VEC == 2) {
    *reinterpret_cast<float2*>(p) = make_float2(f.v[0], f.v[1]);
  } else if constexpr (std::is_same_v<T, double> && VEC >= 2) {
#pragma unroll
    for (int h = 0; h < VEC / 2; ++h) {
      reinterpret_cast<double2*>(p)[h] = make_double2(f.v[2 * h], f.v[2 * h + 1]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < VEC; ++i) p[i] = f.v[i];
  }
}

/// Loads VEC values at p through the read-only path. p must be aligned to min(16, VEC*sizeof(T)).
template <class T, int VEC>
__device__ __forceinline__ Frag<T, VEC> load_frag(const T* p) {
  Frag<T, VEC> f;
  if constexpr (VEC == 1) {
    f.v[0] = __ldg(p);
  } else if constexpr (std::is_same_v<T, float> && VEC == 4) {
    const float4 x = __ldg(reinterpret_cast<const float4*>(p));
    f.v[0] = x.x;
    f.v[1] = x.y;
    f.v[2] = x.z;
    f.v[3] = x.w;
  } else if constexpr (std::is_same_v<T, float> && VEC == 2) {
    const float2 x = __ldg(reinterpret_cast<const float2*>(p));
    f.v[0] = x.x;
    f.v[1] = x.y;
  } else if constexpr (std::is_same_v<T, double> && VEC == 2) {
    const double2 x = __ldg(reinterpret_cast<const double2*>(p));
    f.v[0] = x.x;
    f.v[1] = x.y;
  } else if constexpr (std::is_same_v<T, double> && VEC == 4) {
    const double2 x = __ldg(reinterpret_cast<const double2*>(p));
    const double2 y = __ldg(reinterpret_cast<const double2*>(p) + 1);
    f.v[0] = x.x;
    f.v[1] = x.y;
    f.v[2] = y.x;
    f.v[3] = y.y;
  } else {
#pragma unroll
    for (int i = 0; i < VEC; ++i) f.v[i] = __ldg(p + i);
  }
  return f;
}

/// The widest vector (in elements, ≤ 16 bytes) usable for rows of `ld` elements starting at `p`.
template <class T>
inline int max_vec_for(const T* p, std::int64_t ld) {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  const int widest = static_cast<int>(16 / sizeof(T));
  for (int v = widest; v > 1; v /= 2) {
    if (ld % v == 0 && addr % (static_cast<std::uintptr_t>(v) * sizeof(T)) == 0) return v;
  }
  return 1;
}

/// Butterfly reduction over groups of `width` lanes (a power of two ≤ 32). Every lane of the
/// warp must call it. Lane 0 of each group ends with ⊕ of the group in the order
/// ((l0 ⊕ l_{w/2}) ⊕ ...), the same every run.
template <class S, class T>
__device__ __forceinline__ T group_reduce(T v, int width) {
  for (int off = width >> 1; off > 0; off >>= 1) {
    v = S::add(v, __shfl_xor_sync(kFullMask, v, off, width));
  }
  return v;
}

/// Stored value k of A as T (1 for pattern graphs).
template <class T, class V>
__device__ __forceinline__ T a_value(const V* __restrict__ vals, std::int64_t k) {
  if constexpr (is_pattern_v<V>) {
    (void)vals;
    (void)k;
    return T(1);
  } else {
    return static_cast<T>(__ldg(vals + k));
  }
}

/// First index r in [lo, hi) with ptr[r] > x, searching the monotone array ptr (hi if none).
template <class I>
__device__ __forceinline__ std::int64_t upper_bound_dev(const I* __restrict__ ptr, std::int64_t lo,
                                                        std::int64_t hi, I x) {
  while (lo < hi) {
    const std::int64_t mid = lo + ((hi - lo) >> 1);
    if (ptr[mid] <= x) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// First index r in [lo, hi) with ptr[r] >= x (hi if none).
template <class I>
__device__ __forceinline__ std::int64_t lower_bound_dev(const I* __restrict__ ptr, std::int64_t lo,
                                                        std::int64_t hi, I x) {
  while (lo < hi) {
    const std::int64_t mid = lo + ((hi - lo) >> 1);
    if (ptr[mid] < x) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Smallest power of two ≥ x (x ≥ 1), capped at 32.
inline int pow2_lanes(std::int64_t x) {
  int g = 1;
  while (g < 32 && g < x) g *= 2;
  return g;
}

inline int log2_int(int x) {
  int l = 0;
  while ((1 << l) < x) ++l;
  return l;
}

}  // namespace spindle::detail::cuda
