// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file parallel_reduce_vec.cuh
/// @brief SpMM `parallel_reduce_vec` (Adaptive Workload-Balancing and Parallel-Reduction, Huang
/// et al., §2.1.2: vector-type dense-row loading, VDL).
///
/// `lanes` lanes own one row (32 = the paper's warp per row; the planner takes fewer lanes for
/// short rows so a warp is not mostly idle) and split its nonzeros. Each lane loads the ≤ 4
/// columns of B's row k that the column tile needs with one float2/float4 access (two double2
/// for double), keeps one partial sum per column, and the lanes combine them with a butterfly
/// shuffle reduction. Meant for N ≤ 4; a wider N runs as ceil(N/4) column tiles (grid.y), correct
/// but re-reading A per tile.

#include "ops/cuda/mxm/spmm_common.cuh"

namespace spindle::detail::cuda {

/// Loads nc ≤ 4 values at p into out[0..nc) using the widest access `vec` allows (vec from
/// max_vec_for; p is aligned to it because the column tile starts at a multiple of 4).
template <class T>
__device__ __forceinline__ void load_tile4(const T* p, int nc, int vec, T (&out)[4]) {
  if (nc == 4 && vec >= 4) {
    const Frag<T, 4> f = load_frag<T, 4>(p);
#pragma unroll
    for (int c = 0; c < 4; ++c) out[c] = f.v[c];
  } else if (nc >= 2 && vec >= 2) {
    const Frag<T, 2> f = load_frag<T, 2>(p);
    out[0] = f.v[0];
    out[1] = f.v[1];
    if (nc == 4) {
      const Frag<T, 2> g = load_frag<T, 2>(p + 2);
      out[2] = g.v[0];
      out[3] = g.v[1];
    } else if (nc == 3) {
      out[2] = __ldg(p + 2);
    }
  } else {
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      if (c < nc) out[c] = __ldg(p + c);
    }
  }
}

/// grid.x covers rows << lanes_log2 threads (blocks of 256), grid.y = ceil(N / 4) column tiles.
template <class S, class I, class V, class T>
__global__ void __launch_bounds__(256)
    spmm_parallel_reduce_vec_kernel(SpmmArgs<I, V, T> a, int lanes_log2, int vec) {
  const int lanes = 1 << lanes_log2;
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t row = t >> lanes_log2;
  const int sub = static_cast<int>(threadIdx.x) & (lanes - 1);
  const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.y) * 4;
  const int nc = static_cast<int>(a.n - col0 < 4 ? a.n - col0 : 4);
  // Out-of-range rows run with an empty range: every lane must reach the shuffles below.
  const bool valid = row < a.rows;
  std::int64_t begin = 0;
  std::int64_t end = 0;
  if (valid) {
    begin = static_cast<std::int64_t>(a.row_ptr[row]);
    end = static_cast<std::int64_t>(a.row_ptr[row + 1]);
  }
  T acc[4];
#pragma unroll
  for (int c = 0; c < 4; ++c) acc[c] = a.identity;

  // Two nonzeros per lane per step: two independent B loads in flight before the first use.
  for (std::int64_t k = begin + sub; k < end; k += 2 * lanes) {
    const std::int64_t k2 = k + lanes;
    const bool has2 = k2 < end;
    const std::int64_t j1 = static_cast<std::int64_t>(__ldg(a.col_idx + k));
    const T a1 = a_value<T, V>(a.vals, k);
    std::int64_t j2 = j1;
    T a2 = a1;
    if (has2) {
      j2 = static_cast<std::int64_t>(__ldg(a.col_idx + k2));
      a2 = a_value<T, V>(a.vals, k2);
    }
    T b1[4];
    T b2[4];
    load_tile4<T>(a.b + j1 * a.ldb + col0, nc, vec, b1);
    load_tile4<T>(a.b + j2 * a.ldb + col0, nc, vec, b2);
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      if (c < nc) {
        acc[c] = S::add(acc[c], S::mul(a1, b1[c]));
        if (has2) acc[c] = S::add(acc[c], S::mul(a2, b2[c]));
      }
    }
  }
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    if (c < nc) acc[c] = group_reduce<S>(acc[c], lanes);  // nc is uniform over the block
  }
  if (valid && sub == 0) {
    T* crow = a.c + row * a.ldc + col0;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      if (c < nc) store_finished(a.epi, crow + c, acc[c], col0 + c);
    }
  }
}

/// Launches parallel_reduce_vec with `lanes` (power of two, 1..32) lanes per row.
template <class S, class I, class V, class T>
void launch_spmm_parallel_reduce_vec(const SpmmArgs<I, V, T>& a, int lanes, cudaStream_t stream) {
  const int lanes_log2 = log2_int(lanes);
  const int block = 256;
  const std::int64_t threads = a.rows << lanes_log2;
  const dim3 grid(static_cast<unsigned>((threads + block - 1) / block),
                  static_cast<unsigned>((a.n + 3) / 4));
  spmm_parallel_reduce_vec_kernel<S, I, V, T>
      <<<grid, block, 0, stream>>>(a, lanes_log2, max_vec_for(a.b, a.ldb));
}

}  // namespace spindle::detail::cuda
