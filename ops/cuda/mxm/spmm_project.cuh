// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file spmm_project.cuh
/// @brief nnz_balanced_seq's group form with a dense product in its epilogue:
/// Z = ReLU(A·B + bias)·W, the GCN hidden layer followed by the next layer's transform, in one
/// pass over A (mxm_project.hpp is the entry).
///
/// A group of G lanes holds a finished row h of N ≤ G·VEC columns (VEC per lane). ProjectStore
/// adds the bias, applies ReLU and multiplies the row by W (N x M, staged in shared memory once
/// per block): the group puts h in a shared row buffer, then lane q computes outputs q, q + G,
/// ... (at most kProjectPerLane) over k = 0 .. N - 1 in a fixed order. The row of N values is
/// never written to global memory: Z has M columns. Rows that cross chunks are finished by
/// spmm_balanced_fixup_project_kernel from the same partials as the plain form's fix-up.
///
/// Measured on R-MAT 22 with N = 128, M = 32 (a harness outside `spindle bench`,
/// H100): in a warp-per-row kernel the projection made the pass 0.29 ms faster, not slower, since
/// it writes M instead of N columns per row and its arithmetic hides behind the gathers.

#include <cstdint>
#include <type_traits>

#include "ops/cuda/mxm/nnz_balanced_seq.cuh"

namespace spindle::detail::cuda {

/// Outputs per lane: Z may have up to kProjectPerLane·G columns.
constexpr int kProjectPerLane = 2;
/// W (N x M values) is staged in shared memory up to this size.
constexpr std::int64_t kProjectMaxWeightBytes = 32 << 10;
/// The fix-up's row buffer: N ≤ 32·VEC values, 128 for float and 64 for double.
constexpr int kProjectMaxWidth = 128;

/// The group form's finisher (GroupStore's contract, nnz_balanced_seq.cuh) for
/// Z(orow, :) = ReLU(acc + bias)·W.
template <class T>
struct ProjectStore {
  const T* bias = nullptr;  ///< N values
  const T* w = nullptr;     ///< N x M, row-major (global; staged by prepare)
  T* z = nullptr;           ///< rows x ldz
  std::int64_t ldz = 0;
  int n = 0;
  int m = 0;

  /// W, then the groups' row buffers (kSpmmBlock·VEC values per block, G·VEC per group).
  __device__ __forceinline__ T* staged() const {
    extern __shared__ __align__(16) unsigned char spmm_project_smem[];
    return reinterpret_cast<T*>(spmm_project_smem);
  }

  /// Dynamic shared memory of a block for fragments of VEC values.
  static std::size_t shared_bytes(int n, int m, int vec) {
    return (static_cast<std::size_t>(weight_slots(n, m)) + kSpmmBlock * vec) * sizeof(T);
  }
  /// W's slots, rounded up to 16 bytes so that the row buffers after it stay aligned.
  __host__ __device__ static int weight_slots(int n, int m) {
    const int per16 = static_cast<int>(16 / sizeof(T));
    return (n * m + per16 - 1) / per16 * per16;
  }

  __device__ __forceinline__ void prepare() const {
    T* ws = staged();
    const int count = n * m;
    const int units = static_cast<int>(count * sizeof(T) / 16);
    if ((count * sizeof(T)) % 16 == 0 && (reinterpret_cast<std::uintptr_t>(w) & 15) == 0) {
      const uint4* src = reinterpret_cast<const uint4*>(w);
      uint4* dst = reinterpret_cast<uint4*>(ws);
      for (int i = static_cast<int>(threadIdx.x); i < units; i += static_cast<int>(blockDim.x)) {
        dst[i] = __ldg(src + i);
      }
    } else {
      for (int i = static_cast<int>(threadIdx.x); i < count; i += static_cast<int>(blockDim.x)) {
        ws[i] = __ldg(w + i);
      }
    }
    __syncthreads();
  }

  /// The group writes ReLU(acc + bias) to its row buffer (one vector store per lane), then lane
  /// q sums h[k]·W[k][j] for its outputs j = q, q + G, ..., reading h by broadcast loads: fewer
  /// instructions than taking h from the lanes by shuffles (4.8 K per row at N = 128, 4.6x the
  /// unfused kernel's time on R-MAT 22; docs/design/mxm.md).
  template <class I, class V, int VEC>
  __device__ __forceinline__ void store(const SpmmArgs<I, V, T>& /*a*/, std::int64_t orow,
                                        std::int64_t col, bool col_ok, const T (&acc)[VEC],
                                        unsigned gmask, int G, int qlane) const {
    T* const ws = staged();
    T* const hb =
        ws + weight_slots(n, m) + (static_cast<int>(threadIdx.x) & ~(G - 1)) * VEC;  // G·VEC
    Frag<T, VEC> h;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      const T x = col_ok ? acc[v] + __ldg(bias + col + v) : T(0);
      h.v[v] = x > T(0) ? x : T(0);
    }
    __syncwarp(gmask);  // the group's lanes are done with the previous row's h
    *reinterpret_cast<Frag<T, VEC>*>(hb + qlane * VEC) = h;
    __syncwarp(gmask);
    T* const zrow = z + orow * ldz;
#pragma unroll
    for (int i = 0; i < kProjectPerLane; ++i) {
      const int j = qlane + i * G;
      if (j >= m) break;
      T z0 = T(0), z1 = T(0);  // two chains: even and odd k
      const T* wj = ws + j;
#pragma unroll 4
      for (int k = 0; k < n; k += VEC) {  // VEC divides N
        const Frag<T, VEC> hk = *reinterpret_cast<const Frag<T, VEC>*>(hb + k);
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
          if (v % 2 == 0) {
            z0 = fma_of(hk.v[v], wj[(k + v) * m], z0);
          } else {
            z1 = fma_of(hk.v[v], wj[(k + v) * m], z1);
          }
        }
      }
      zrow[j] = z0 + z1;
    }
  }

  __device__ __forceinline__ static T fma_of(T a, T b, T c) {
    if constexpr (std::is_same_v<T, float>) {
      return fmaf(a, b, c);
    } else {
      return fma(a, b, c);
    }
  }
};

/// The fix-up of the projected form: one warp per chunk (blocks of 256) whose last owned row
/// runs past its end, as spmm_balanced_fixup_kernel: the row's tail plus the heads of the
/// chunks it covers, in chunk order, then bias, ReLU and the product with W (read from global
/// memory: at most one row per chunk comes here). plus_times only.
template <class I, class T>
__global__ void spmm_balanced_fixup_project_kernel(const I* __restrict__ row_ptr,
                                                   BalancedArgs<I, T> w, ProjectStore<T> p) {
  constexpr int kWarps = kSpmmBlock / kWarp;
  __shared__ T hrow[kWarps][kProjectMaxWidth];
  const std::int64_t c = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int warp = static_cast<int>(threadIdx.x) / kWarp;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const CrossingRow x = balanced_crossing_row(row_ptr, w, c);
  if (x.row < 0) return;
  const std::int64_t n = p.n;
  for (std::int64_t col = lane; col < n; col += kWarp) {
    const T acc = balanced_crossing_sum<semiring::plus_times<T>>(w, c, x.last, n, col);
    const T v = acc + p.bias[col];
    hrow[warp][col] = v > T(0) ? v : T(0);
  }
  __syncwarp();
  T* zrow = p.z + out_row(w, x.row) * p.ldz;
  for (int j = lane; j < p.m; j += kWarp) {
    T z = T(0);
    for (int k = 0; k < p.n; ++k) z = ProjectStore<T>::fma_of(hrow[warp][k], p.w[k * p.m + j], z);
    zrow[j] = z;
  }
}

/// Whether the projected form can run for width n, Z width m and value type T with the group
/// form's fragment width vec and G lanes: one column tile covers N, Z's columns fit the lanes
/// and W fits the shared memory budget.
template <class T>
bool project_fits(std::int64_t n, std::int64_t m, int vec, int G) {
  return n >= 1 && m >= 1 && n <= static_cast<std::int64_t>(G) * vec && n <= kProjectMaxWidth &&
         m <= static_cast<std::int64_t>(kProjectPerLane) * G &&
         n * m * static_cast<std::int64_t>(sizeof(T)) <= kProjectMaxWeightBytes;
}

/// The projected group form at fragment width VEC. W and the row buffers (dynamic shared
/// memory) come on top of the windows (52 KB a block in all for float / int32 at N = 128,
/// M = 32), so the kernel asks for all of L1 as shared memory: kGroupMinBlocks blocks then fit
/// an SM.
template <class I, class T, int VEC>
void launch_project_vec(const SpmmArgs<I, T, T>& a, const BalancedArgs<I, T>& w,
                        const ProjectStore<T>& p, std::size_t smem, cudaStream_t stream) {
  using S = semiring::plus_times<T>;
  SPINDLE_CUDA_CHECK(cudaFuncSetAttribute(
      spmm_nnz_balanced_group_kernel<S, I, T, T, VEC, ProjectStore<T>>,
      cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  launch_balanced_group_fin<S, I, T, T, VEC>(a, w, 0, p, smem, stream);
}

/// Launches the projected group form and its fix-up on a prepared balanced setup (group form,
/// one tile), with the group form's fragment width.
template <class I, class T>
void launch_balanced_project(const SpmmArgs<I, T, T>& a, const BalancedArgs<I, T>& w,
                             const ProjectStore<T>& p, cudaStream_t stream) {
  // The group form's two fragment widths (spmm_group_form_fits: the caller checks N).
  const int gvec = balanced_group_vec(a);
  const std::size_t smem = ProjectStore<T>::shared_bytes(p.n, p.m, gvec);
  if (gvec * sizeof(T) == 16) {
    launch_project_vec<I, T, static_cast<int>(16 / sizeof(T))>(a, w, p, smem, stream);
  } else if (gvec * sizeof(T) == 8) {
    launch_project_vec<I, T, static_cast<int>(8 / sizeof(T))>(a, w, p, smem, stream);
  } else {
    throw InvalidArgument("mxm_relu_project: N = " + std::to_string(a.n) +
                          " has no group-form fragment width");
  }
  SPINDLE_CUDA_CHECK_LAUNCH("spmm_nnz_balanced_group (projected)");
  if (w.nchunks > 1) {
    const std::int64_t threads = (w.nchunks - 1) * 32;
    spmm_balanced_fixup_project_kernel<I, T>
        <<<static_cast<unsigned>((threads + kSpmmBlock - 1) / kSpmmBlock), kSpmmBlock, 0, stream>>>(
            a.row_ptr, w, p);
    SPINDLE_CUDA_CHECK_LAUNCH("spmm_balanced_fixup_project");
  }
}

}  // namespace spindle::detail::cuda
