// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file coo_rows.cuh
/// @brief The row index of every stored entry (the COO row array), expanded once per graph from
/// the device row offsets and cached on the graph. Kernels that walk the nonzeros in storage
/// order across row boundaries (nnz_balanced_seq, the SDDMM kernels) read it instead of
/// searching the offsets: 4 more bytes per entry, coalesced.

#include <memory>
#include <string>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "ops/cuda/mxm/spmm_common.cuh"
#include "spindle/graph.hpp"

namespace spindle::detail::cuda {

/// row_idx[e] = i for every entry e of row i: one warp per row writes its range.
template <class I>
__global__ void expand_rows_kernel(const I* __restrict__ row_ptr, std::int64_t rows,
                                   I* __restrict__ row_idx) {
  const std::int64_t r = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if (r >= rows) return;
  const std::int64_t end = static_cast<std::int64_t>(row_ptr[r + 1]);
  for (std::int64_t e = static_cast<std::int64_t>(row_ptr[r]) + lane; e < end; e += 32) {
    row_idx[e] = static_cast<I>(r);
  }
}

template <class I>
struct CooRowsSlot : ExtensionSlot {
  DeviceBuffer rows;
};

/// The COO rows of a CSR with `rows` rows and `nnz` entries at d_row_ptr, cached on G under
/// `tag` (G's own structure: "csr"; a derived CSR such as ASpT's long rows: its own tag).
template <class I, class V>
const I* cached_coo_rows(const Graph<I, V>& G, const I* d_row_ptr, std::int64_t rows,
                         std::int64_t nnz, const std::string& tag, cudaStream_t stream) {
  const auto& slot = G.template extension<CooRowsSlot<I>>("cuda.coo_rows." + tag, [&] {
    auto s = std::make_unique<CooRowsSlot<I>>();
    s->rows = DeviceBuffer(static_cast<std::size_t>(nnz) * sizeof(I), "COO row indices");
    const int block = 256;
    const auto grid = static_cast<unsigned>((rows * 32 + block - 1) / block);
    expand_rows_kernel<I><<<grid, block, 0, stream>>>(d_row_ptr, rows, s->rows.template as<I>());
    SPINDLE_CUDA_CHECK_LAUNCH("expand_rows");
    return s;
  });
  return slot.rows.template as<const I>();
}

}  // namespace spindle::detail::cuda
