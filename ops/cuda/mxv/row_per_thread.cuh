// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file row_per_thread.cuh
/// @brief mxv, one thread per row with a sequential reduction ("gbmv_s" of the CS/EE217 SpMV
/// lecture; classical CSR in Load-balancing SpMV Kernels on GPUs, Anzt et al., §3.3). Best when
/// rows are short and even: no inter-lane communication at all, but a
/// warp's loads are scattered over 32 rows, and one long row stalls its whole warp.
/// Deterministic (sequential order). Stops a row early at the semiring's terminal value.

#include "ops/cuda/mxv/mxv_args.cuh"

namespace spindle::detail::cuda {

template <class S, bool kGeneral, class T, class I, class VV>
__global__ void __launch_bounds__(256) mxv_row_per_thread_kernel(const MxvArgs<T, I, VV> a) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= a.A.rows) return;
  if constexpr (kGeneral) {
    if (!mask_selects(a.out.mask, i)) {  // unselected rows need no work
      write_result<true>(a.out, i, a.identity, false);
      return;
    }
  }
  const std::int64_t k0 = __ldg(a.A.row_ptr + i), k1 = __ldg(a.A.row_ptr + i + 1);
  T acc = a.identity;
  bool has = false;
  // Four consecutive entries per iteration, loaded before any is combined (in order).
  for (std::int64_t k = k0; k < k1; k += 4) {
    T v[4];
    bool p[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      p[j] = false;
      v[j] = a.identity;
      if (k + j < k1) v[j] = entry_product<S, kGeneral>(a, k + j, p[j]);
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
  write_result<kGeneral>(a.out, i, acc, has);
}

/// Launches the kernel on `stream` (block_threads <= 256).
template <class S, bool kGeneral, class T, class I, class VV>
void launch_row_per_thread(const MxvArgs<T, I, VV>& a, int block_threads, cudaStream_t stream) {
  const int bt = block_threads > 0 && block_threads <= 256 ? block_threads : 256;
  const std::int64_t blocks = (a.A.rows + bt - 1) / bt;
  mxv_row_per_thread_kernel<S, kGeneral><<<static_cast<unsigned>(blocks), bt, 0, stream>>>(a);
}

}  // namespace spindle::detail::cuda
