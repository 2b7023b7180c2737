// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file generic.cuh
/// @brief The generic CUDA kernel family: mxv / vxm, SpMM and SDDMM for any semiring, written
/// against a semiring *object* `s` (`s.add(a, b)`, `s.mul(a, b)`), so that one template serves
/// the built-in semirings a build did not precompile (spindle::RuntimeSemiring, operators as
/// run-time codes) and user-defined semirings (their static members; SPINDLE_CUDA_SEMIRING in
/// spindle/cuda/semiring.cuh instantiates them).
///
/// The kernels favour few instantiations and plain, deterministic reductions over the last
/// percent: a row (or an entry) is reduced by a power-of-two group of lanes, each lane walking a
/// strided share sequentially, the group combined by a butterfly in a fixed order; rows longer
/// than the plan's `long_row` get a block of their own, its warps combined in warp order. The
/// same inputs therefore give bit-identical outputs run to run.

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "spindle/cuda/kernels/generic_args.hpp"
#include "spindle/cuda/kernels/output.cuh"
#include "spindle/semiring.hpp"
#include "spindle/types.hpp"

namespace spindle::detail::cuda {
namespace generic {

inline constexpr int kBlock = 256;
inline constexpr int kWarps = kBlock / 32;
inline constexpr unsigned kFull = 0xffffffffu;
/// Output columns each lane of the SpMM rows kernel keeps in registers per pass over a row.
inline constexpr int kSpmmCols = 4;

/// A(k) as T: the stored value, or 1 for pattern matrices.
template <class T, class VV>
__device__ __forceinline__ T value_at(const VV* values, std::int64_t k) {
  if constexpr (is_pattern_v<VV>) {
    (void)values;
    (void)k;
    return T(1);
  } else {
    return static_cast<T>(values[k]);
  }
}

/// mul(a, x), or mul(x, a) when kSwap.
template <bool kSwap, class Sem, class T>
__device__ __forceinline__ T product(const Sem& s, T a, T x) {
  if constexpr (kSwap) {
    return s.mul(x, a);
  } else {
    return s.mul(a, x);
  }
}

/// ⊕ over the `width` lanes of each group (a power of two), in the same order every run; every
/// lane of the warp calls it and every lane of a group ends with the group's total.
template <class Sem, class T>
__device__ __forceinline__ T group_reduce(const Sem& s, T v, int width) {
  for (int off = width >> 1; off > 0; off >>= 1)
    v = s.add(v, __shfl_xor_sync(kFull, v, off, width));
  return v;
}

__device__ __forceinline__ bool group_any(bool h, int width) {
  int v = h ? 1 : 0;
  for (int off = width >> 1; off > 0; off >>= 1) v |= __shfl_xor_sync(kFull, v, off, width);
  return v != 0;
}

/// ⊕ over the block (kBlock threads): warps first, then warp 0 over the warps in order. Every
/// thread calls it; thread 0 gets the total. `red` holds kWarps values.
template <class Sem, class T>
__device__ __forceinline__ T block_reduce(const Sem& s, T v, T identity, T* red) {
  v = group_reduce(s, v, 32);
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  __syncthreads();  // red may still be read from the previous call
  if (lane == 0) red[warp] = v;
  __syncthreads();
  T total = identity;
  if (threadIdx.x == 0) {
    for (int w = 0; w < kWarps; ++w) total = s.add(total, red[w]);
  }
  return total;
}

inline unsigned blocks_for(std::int64_t threads) {
  const std::int64_t b = (threads + kBlock - 1) / kBlock;
  return static_cast<unsigned>(b > 0 ? b : 1);
}

inline int log2_of(int x) {
  int l = 0;
  while ((1 << l) < x) ++l;
  return l;
}

}  // namespace generic

// ---- mxv / vxm ---------------------------------------------------------------------------------

template <class Sem, bool kSwap, class T, class I, class VV>
__global__ void __launch_bounds__(generic::kBlock)
    generic_mxv_rows_kernel(Sem s, GenericMxvArgs<T, I, VV> a, int log2_lanes) {
  const int lanes = 1 << log2_lanes;
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t row = t >> log2_lanes;
  const int lane = static_cast<int>(threadIdx.x) & (lanes - 1);
  T acc = a.out.identity;
  bool has = false;
  bool mine = row < a.M.rows;
  if (mine) {
    const std::int64_t k0 = a.M.row_ptr[row];
    const std::int64_t k1 = a.M.row_ptr[row + 1];
    mine = a.long_row <= 0 || k1 - k0 <= a.long_row;
    if (mine) {
      for (std::int64_t k = k0 + lane; k < k1; k += lanes) {
        const std::int64_t j = a.M.col_idx[k];
        if (a.u_present != nullptr && a.u_present[j] == 0) continue;
        acc = s.add(acc, generic::product<kSwap>(s, generic::value_at<T>(a.M.values, k), a.u[j]));
        has = true;
      }
    }
  }
  // The whole warp takes part in the shuffles; rows it does not own hold the identity.
  acc = generic::group_reduce(s, acc, lanes);
  has = generic::group_any(has, lanes);
  if (mine && lane == 0) write_result<true>(a.out, row, acc, has);
}

template <class Sem, bool kSwap, class T, class I, class VV>
__global__ void __launch_bounds__(generic::kBlock)
    generic_mxv_long_kernel(Sem s, GenericMxvArgs<T, I, VV> a) {
  __shared__ T red[generic::kWarps];
  __shared__ int red_has[generic::kWarps];
  const std::int64_t row = a.long_rows[blockIdx.x];
  const std::int64_t k1 = a.M.row_ptr[row + 1];
  T acc = a.out.identity;
  bool has = false;
  for (std::int64_t k = a.M.row_ptr[row] + threadIdx.x; k < k1; k += blockDim.x) {
    const std::int64_t j = a.M.col_idx[k];
    if (a.u_present != nullptr && a.u_present[j] == 0) continue;
    acc = s.add(acc, generic::product<kSwap>(s, generic::value_at<T>(a.M.values, k), a.u[j]));
    has = true;
  }
  has = generic::group_any(has, 32);
  if ((threadIdx.x & 31) == 0) red_has[threadIdx.x >> 5] = has ? 1 : 0;
  acc = generic::block_reduce(s, acc, a.out.identity, red);
  if (threadIdx.x == 0) {
    bool any = false;
    for (int w = 0; w < generic::kWarps; ++w) any = any || red_has[w] != 0;
    write_result<true>(a.out, row, acc, any);
  }
}

/// Enqueues the generic mxv (both kernels; check the launch with cudaGetLastError).
template <class Sem, bool kSwap, class T, class I, class VV>
void launch_generic_mxv(const Sem& s, const GenericMxvArgs<T, I, VV>& a, cudaStream_t stream) {
  const int log2 = generic::log2_of(a.lanes > 0 && a.lanes <= 32 ? a.lanes : 32);
  if (a.M.rows > 0) {
    generic_mxv_rows_kernel<Sem, kSwap>
        <<<generic::blocks_for(a.M.rows << log2), generic::kBlock, 0, stream>>>(s, a, log2);
  }
  if (a.n_long > 0) {
    generic_mxv_long_kernel<Sem, kSwap>
        <<<static_cast<unsigned>(a.n_long), generic::kBlock, 0, stream>>>(s, a);
  }
}

// ---- SpMM ------------------------------------------------------------------------------------

template <class Sem, class T, class I, class VV>
__global__ void __launch_bounds__(generic::kBlock)
    generic_spmm_rows_kernel(Sem s, GenericSpmmArgs<T, I, VV> a, int log2_lanes) {
  constexpr int R = generic::kSpmmCols;
  const int lanes = 1 << log2_lanes;
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t row = t >> log2_lanes;
  const int lane = static_cast<int>(threadIdx.x) & (lanes - 1);
  if (row >= a.A.rows) return;
  const std::int64_t k0 = a.A.row_ptr[row];
  const std::int64_t k1 = a.A.row_ptr[row + 1];
  if (a.long_row > 0 && k1 - k0 > a.long_row) return;  // the long-row kernel's
  T* crow = a.c + row * a.ldc;
  // Each pass covers lanes * R columns; lane l owns columns c0 + l + r * lanes.
  for (std::int64_t c0 = 0; c0 < a.n; c0 += static_cast<std::int64_t>(lanes) * R) {
    T acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = a.identity;
    for (std::int64_t k = k0; k < k1; ++k) {
      const T av = generic::value_at<T>(a.A.values, k);
      const T* brow = a.b + static_cast<std::int64_t>(a.A.col_idx[k]) * a.ldb;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const std::int64_t col = c0 + lane + static_cast<std::int64_t>(r) * lanes;
        if (col < a.n) acc[r] = s.add(acc[r], s.mul(av, brow[col]));
      }
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const std::int64_t col = c0 + lane + static_cast<std::int64_t>(r) * lanes;
      if (col < a.n) store_finished(a.epi, crow + col, acc[r], col);
    }
  }
}

template <class Sem, class T, class I, class VV>
__global__ void __launch_bounds__(generic::kBlock)
    generic_spmm_long_kernel(Sem s, GenericSpmmArgs<T, I, VV> a) {
  __shared__ T part[generic::kWarps][32];
  const std::int64_t row = a.long_rows[blockIdx.x];
  const std::int64_t k0 = a.A.row_ptr[row];
  const std::int64_t k1 = a.A.row_ptr[row + 1];
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  T* crow = a.c + row * a.ldc;
  // Slabs of 32 columns; warp w walks entries k0 + w, k0 + w + kWarps, ...; the warps' partial
  // sums are combined in warp order.
  for (std::int64_t c0 = 0; c0 < a.n; c0 += 32) {
    const std::int64_t col = c0 + lane;
    T acc = a.identity;
    if (col < a.n) {
      for (std::int64_t k = k0 + warp; k < k1; k += generic::kWarps) {
        const T av = generic::value_at<T>(a.A.values, k);
        acc = s.add(acc, s.mul(av, a.b[static_cast<std::int64_t>(a.A.col_idx[k]) * a.ldb + col]));
      }
    }
    __syncthreads();  // the previous slab's partials are read
    part[warp][lane] = acc;
    __syncthreads();
    if (warp == 0 && col < a.n) {
      T total = part[0][lane];
      for (int w = 1; w < generic::kWarps; ++w) total = s.add(total, part[w][lane]);
      store_finished(a.epi, crow + col, total, col);
    }
  }
}

/// Enqueues the generic SpMM (both kernels).
template <class Sem, class T, class I, class VV>
void launch_generic_spmm(const Sem& s, const GenericSpmmArgs<T, I, VV>& a, cudaStream_t stream) {
  const int log2 = generic::log2_of(a.lanes > 0 && a.lanes <= 32 ? a.lanes : 32);
  if (a.A.rows > 0) {
    generic_spmm_rows_kernel<Sem>
        <<<generic::blocks_for(a.A.rows << log2), generic::kBlock, 0, stream>>>(s, a, log2);
  }
  if (a.n_long > 0) {
    generic_spmm_long_kernel<Sem>
        <<<static_cast<unsigned>(a.n_long), generic::kBlock, 0, stream>>>(s, a);
  }
}

// ---- SDDMM -----------------------------------------------------------------------------------

/// Each warp takes 32 consecutive entries; each group of `lanes` lanes one entry at a time, its
/// lanes splitting the dot product's K columns. The row of an entry comes from one binary search
/// per group, then advances with the entries.
template <class Sem, class T, class I, class VV>
__global__ void __launch_bounds__(generic::kBlock)
    generic_sddmm_kernel(Sem s, GenericSddmmArgs<T, I, VV> a, int log2_lanes) {
  const int lanes = 1 << log2_lanes;
  const int groups = 32 >> log2_lanes;
  const int lane = static_cast<int>(threadIdx.x) & (lanes - 1);
  const int group = (static_cast<int>(threadIdx.x) & 31) >> log2_lanes;
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::int64_t e0 = warp * 32;
  if (e0 >= a.S.nnz) return;
  const std::int64_t e1 = e0 + 32 < a.S.nnz ? e0 + 32 : a.S.nnz;
  // Row of entry e0 + group: the last r with row_ptr[r] <= e.
  std::int64_t lo = 0;
  std::int64_t hi = a.S.rows;
  const std::int64_t first = e0 + group;
  while (lo < hi) {
    const std::int64_t mid = lo + ((hi - lo + 1) >> 1);
    if (static_cast<std::int64_t>(a.S.row_ptr[mid]) <= first) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  std::int64_t row = lo;
  // Every group runs the same number of rounds, so the warp's shuffles stay converged.
  for (std::int64_t base = e0; base < e1; base += groups) {
    const std::int64_t e = base + group;
    const bool live = e < e1;
    T acc = a.identity;
    if (live) {
      while (static_cast<std::int64_t>(a.S.row_ptr[row + 1]) <= e) ++row;
      const T* x = a.x + row * a.ldx;
      const T* y = a.y + static_cast<std::int64_t>(a.S.col_idx[e]) * a.ldy;
      for (std::int64_t c = lane; c < a.k; c += lanes) acc = s.add(acc, s.mul(x[c], y[c]));
    }
    acc = generic::group_reduce(s, acc, lanes);
    if (live && lane == 0) {
      const T v = s.mul(generic::value_at<T>(a.S.values, e), acc);
      a.out[e] = a.accum.enabled ? apply_binary(a.accum.op, a.out[e], v) : v;
    }
  }
}

/// Enqueues the generic SDDMM.
template <class Sem, class T, class I, class VV>
void launch_generic_sddmm(const Sem& s, const GenericSddmmArgs<T, I, VV>& a, cudaStream_t stream) {
  if (a.S.nnz <= 0 || a.S.rows <= 0) return;
  const int log2 = generic::log2_of(a.lanes > 0 && a.lanes <= 32 ? a.lanes : 32);
  const std::int64_t warps = (a.S.nnz + 31) / 32;
  generic_sddmm_kernel<Sem>
      <<<generic::blocks_for(warps * 32), generic::kBlock, 0, stream>>>(s, a, log2);
}

// ---- launcher tables -------------------------------------------------------------------------

namespace generic {

/// The semiring object a launcher passes to its kernels: the run-time codes for
/// RuntimeSemiring, a value of the user's (stateless) semiring otherwise.
template <class Sem, class T>
Sem semiring_object(const RuntimeSemiring<T>& codes) {
  if constexpr (std::is_same_v<Sem, RuntimeSemiring<T>>) {
    return codes;
  } else {
    (void)codes;
    return Sem{};
  }
}

template <class Sem, bool kSwap, class T, class I, class VV>
void mxv_launcher(const RuntimeSemiring<T>& codes, const GenericMxvArgs<T, I, VV>& a,
                  cudaStream_t stream) {
  launch_generic_mxv<Sem, kSwap>(semiring_object<Sem>(codes), a, stream);
}
template <class Sem, class T, class I, class VV>
void spmm_launcher(const RuntimeSemiring<T>& codes, const GenericSpmmArgs<T, I, VV>& a,
                   cudaStream_t stream) {
  launch_generic_spmm<Sem>(semiring_object<Sem>(codes), a, stream);
}
template <class Sem, class T, class I, class VV>
void sddmm_launcher(const RuntimeSemiring<T>& codes, const GenericSddmmArgs<T, I, VV>& a,
                    cudaStream_t stream) {
  launch_generic_sddmm<Sem>(semiring_object<Sem>(codes), a, stream);
}

/// The launcher set of semiring Sem for (I, VV). kSwapped: also instantiate the swapped mxv
/// (vxm with a multiply that is not commutative); otherwise mxv_swapped stays null.
template <class Sem, bool kSwapped, class I, class VV, class T = typename Sem::value_type>
GenericKernelSet<T, I, VV> kernel_set() {
  GenericKernelSet<T, I, VV> k;
  k.mxv = &mxv_launcher<Sem, false, T, I, VV>;
  if constexpr (kSwapped) k.mxv_swapped = &mxv_launcher<Sem, true, T, I, VV>;
  k.spmm = &spmm_launcher<Sem, T, I, VV>;
  k.sddmm = &sddmm_launcher<Sem, T, I, VV>;
  return k;
}

/// Every launcher set of semiring Sem.
template <class Sem, bool kSwapped, class T = typename Sem::value_type>
GenericKernels<T> kernels() {
  GenericKernels<T> k;
  k.i32_values = kernel_set<Sem, kSwapped, std::int32_t, T>();
  k.i32_pattern = kernel_set<Sem, kSwapped, std::int32_t, Pattern>();
  k.i64_values = kernel_set<Sem, kSwapped, std::int64_t, T>();
  k.i64_pattern = kernel_set<Sem, kSwapped, std::int64_t, Pattern>();
  return k;
}

}  // namespace generic
}  // namespace spindle::detail::cuda
