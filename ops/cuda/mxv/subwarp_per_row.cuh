// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file subwarp_per_row.cuh
/// @brief mxv, L = 2..32 lanes per row (a power of two chosen from the row-length statistics),
/// shuffle-tree reduction ("gbmv_w" of the CS/EE217 SpMV lecture; Load-balancing SpMV Kernels on
/// GPUs, Anzt et al., Alg. 3/4). A row's entries are read
/// coalesced by its L lanes; each lane keeps four independent loads in flight per iteration so
/// the gathers of u overlap. L is a run-time value (shuffles take a width), which keeps one
/// compiled kernel per semiring instead of five.
/// Deterministic: each lane walks its entries in order, then a fixed shuffle tree combines them.
/// A lane stops at the semiring's terminal value (it absorbs add, so the lane's partial is final).

#include "ops/cuda/mxv/mxv_args.cuh"

namespace spindle::detail::cuda {

template <class S, bool kGeneral, class T, class I, class VV>
__global__ void __launch_bounds__(256)
    mxv_subwarp_kernel(const MxvArgs<T, I, VV> a, int log2_lanes) {
  const int lanes = 1 << log2_lanes;
  const std::int64_t g = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t i = g >> log2_lanes;
  const int lane = static_cast<int>(g & (lanes - 1));
  // Every lane of the warp reaches the shuffles below: no early return.
  bool active = i < a.A.rows;
  if constexpr (kGeneral) {
    if (active && !mask_selects(a.out.mask, i)) {
      if (lane == 0) write_result<true>(a.out, i, a.identity, false);
      active = false;
    }
  }
  std::int64_t k0 = 0, k1 = 0;
  if (active) {
    k0 = __ldg(a.A.row_ptr + i);
    k1 = __ldg(a.A.row_ptr + i + 1);
  }
  T acc = a.identity;
  bool has = false;
  // Four entries per lane per iteration, loaded before any is combined: their column, value and
  // u loads are all in flight together (predicated at the row's end).
  for (std::int64_t k = k0 + lane; k < k1; k += 4 * lanes) {
    T v[4];
    bool p[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const std::int64_t kj = k + j * lanes;
      p[j] = false;
      v[j] = a.identity;
      if (kj < k1) v[j] = entry_product<S, kGeneral>(a, kj, p[j]);
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (p[j]) {
        acc = S::add(acc, v[j]);
        has = true;
      }
    }
    if (at_terminal<S>(acc, a.terminal)) break;
  }
  for (int off = lanes >> 1; off > 0; off >>= 1) {
    const T o = __shfl_down_sync(0xffffffffu, acc, off, lanes);
    const int oh = __shfl_down_sync(0xffffffffu, has ? 1 : 0, off, lanes);
    // A lane without terms holds the identity, so combining it is harmless.
    acc = S::add(acc, o);
    has = has || oh != 0;
  }
  if (active && lane == 0) {
    if constexpr (!kGeneral) has = k1 > k0;
    write_result<kGeneral>(a.out, i, acc, has);
  }
}

/// Launches with `lanes` (power of two in [2, 32]) lanes per row.
template <class S, bool kGeneral, class T, class I, class VV>
void launch_subwarp_per_row(const MxvArgs<T, I, VV>& a, int lanes, int block_threads,
                            cudaStream_t stream) {
  int log2 = 1;
  while ((1 << log2) < lanes && log2 < 5) ++log2;
  const int bt = block_threads >= 32 && block_threads <= 256 ? block_threads : 256;
  const std::int64_t threads = a.A.rows << log2;
  const std::int64_t blocks = (threads + bt - 1) / bt;
  mxv_subwarp_kernel<S, kGeneral><<<static_cast<unsigned>(blocks), bt, 0, stream>>>(a, log2);
}

}  // namespace spindle::detail::cuda
