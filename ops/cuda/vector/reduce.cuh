// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file reduce.cuh
/// @brief Deterministic reductions on the device. A vector is cut into blocks of a fixed size
/// (kReduceTile elements, never dependent on the device); each block reduces its tile with a
/// fixed tree (strided per-thread partials, then a shared-memory tree) and a single block
/// combines the tile results in a fixed tree: the same bits every run, no atomics. Absent
/// entries take no part; "any" keeps the first present entry in index order.

#include <cstdint>

#include "spindle/operators.hpp"

namespace spindle::detail::cuda {

inline constexpr int kReduceThreads = 256;
inline constexpr std::int64_t kReduceTile = 8192;  // elements per block

template <class T>
__device__ __forceinline__ T monoid_apply(MonoidKind m, T a, T b) {
  switch (m) {
    case MonoidKind::Plus:
      return a + b;
    case MonoidKind::Times:
      return a * b;
    case MonoidKind::Min:
      return b < a ? b : a;
    case MonoidKind::Max:
      return a < b ? b : a;
    case MonoidKind::LOr:
      return (a != T(0) || b != T(0)) ? T(1) : T(0);
    case MonoidKind::LAnd:
      return (a != T(0) && b != T(0)) ? T(1) : T(0);
    case MonoidKind::Any:
      return a;
  }
  return a;
}

/// A reduction's value after its first element x: op(identity, x), as if the fold started from
/// the identity (Min / Max skip a NaN; LOr / LAnd give 0 / 1), except Any, which keeps x. The same
/// rule as the CPU backend's monoid_first (spindle/ops/cpu/functors.hpp), so both skip NaN terms
/// wherever they stand.
template <class T>
__device__ __forceinline__ T monoid_first(MonoidKind m, T identity, T x) {
  return m == MonoidKind::Any ? x : monoid_apply(m, identity, x);
}

/// (value, present) pairs combined left to right: an absent side is skipped.
template <class T>
struct Partial {
  T v;
  bool has;
};
template <class T>
__device__ __forceinline__ Partial<T> combine(MonoidKind m, Partial<T> a, Partial<T> b) {
  if (!a.has) return b;
  if (!b.has) return a;
  return {monoid_apply(m, a.v, b.v), true};
}

/// What is reduced: the monoid over u's present entries, or (l1) |u - v| summed over entries
/// present in both.
template <class T>
struct ReduceInput {
  std::int64_t n = 0;
  const T* u = nullptr;
  const std::uint8_t* up = nullptr;
  const T* v = nullptr;  ///< l1 only
  const std::uint8_t* vp = nullptr;
  MonoidKind monoid = MonoidKind::Plus;
  T identity{};  ///< the monoid's identity (not used for l1)
  bool l1 = false;
};

template <class T>
__device__ __forceinline__ Partial<T> element(const ReduceInput<T>& in, std::int64_t i) {
  // The value slot of an absent entry is never read: it may never have been written (initcheck).
  if (in.l1) {
    const bool p = (in.up == nullptr || in.up[i] != 0) && (in.vp == nullptr || in.vp[i] != 0);
    if (!p) return {T(0), false};
    const T a = in.u[i], b = in.v[i];
    return {a < b ? b - a : a - b, true};
  }
  const bool p = in.up == nullptr || in.up[i] != 0;
  return {p ? monoid_first(in.monoid, in.identity, in.u[i]) : T(0), p};
}

/// Block-wide fixed-tree combination of one Partial per thread; thread 0 gets the result.
template <class T>
__device__ Partial<T> block_combine(MonoidKind m, Partial<T> p) {
  __shared__ T s_v[kReduceThreads];
  __shared__ bool s_h[kReduceThreads];
  s_v[threadIdx.x] = p.v;
  s_h[threadIdx.x] = p.has;
  __syncthreads();
  for (int off = kReduceThreads / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) {
      const Partial<T> r = combine(m, Partial<T>{s_v[threadIdx.x], s_h[threadIdx.x]},
                                   Partial<T>{s_v[threadIdx.x + off], s_h[threadIdx.x + off]});
      s_v[threadIdx.x] = r.v;
      s_h[threadIdx.x] = r.has;
    }
    __syncthreads();
  }
  return {s_v[0], s_h[0]};
}

/// Tile t -> parts[t]. Each thread reduces a contiguous run of the tile in index order, so "any"
/// (keep the left operand) returns the first present entry.
template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_tiles_kernel(const ReduceInput<T> in, T* part_v, std::uint8_t* part_h) {
  const std::int64_t t0 = static_cast<std::int64_t>(blockIdx.x) * kReduceTile;
  const std::int64_t t1 = min(t0 + kReduceTile, in.n);
  constexpr std::int64_t per = kReduceTile / kReduceThreads;
  const std::int64_t i0 = t0 + threadIdx.x * per;
  const std::int64_t i1 = min(i0 + per, t1);
  const MonoidKind m = in.l1 ? MonoidKind::Plus : in.monoid;
  Partial<T> acc{T(0), false};
  for (std::int64_t i = i0; i < i1; ++i) acc = combine(m, acc, element(in, i));
  const Partial<T> r = block_combine(m, acc);
  if (threadIdx.x == 0) {
    part_v[blockIdx.x] = r.v;
    part_h[blockIdx.x] = r.has ? 1 : 0;
  }
}

/// parts[0..tiles) -> out (one block; each thread folds a contiguous run of tiles).
template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_parts_kernel(const T* part_v, const std::uint8_t* part_h, std::int64_t tiles,
                        MonoidKind m, T identity, T* out) {
  const std::int64_t per = (tiles + kReduceThreads - 1) / kReduceThreads;
  const std::int64_t i0 = threadIdx.x * per;
  const std::int64_t i1 = min(i0 + per, tiles);
  Partial<T> acc{T(0), false};
  for (std::int64_t i = i0; i < i1; ++i)
    acc = combine(m, acc, Partial<T>{part_v[i], part_h[i] != 0});
  const Partial<T> r = block_combine(m, acc);
  if (threadIdx.x == 0) *out = r.has ? r.v : identity;
}

}  // namespace spindle::detail::cuda
