// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file carry_fixup.cuh
/// @brief The deterministic second phase of the load-balanced mxv kernels (nnz_split_segmented,
/// merge_path): rows that cross a work-chunk boundary are combined here in a fixed order instead
/// of with atomics, so float results are bit-identical run to run.
///
/// Each chunk (a warp's nnz range, or a merge-path tile) leaves at most two partial results:
///   - head: the row containing its first entry, when that row started in an earlier chunk
///     (including a chunk lying entirely inside one long row);
///   - tail: the row containing its last entry, when that row started in this chunk and goes on.
/// The chunk owning a tail folds its tail with the heads of the following chunks, left to right,
/// while they belong to the same row, then writes the row. One thread per chunk; cost measured in
/// the benchmark (a few microseconds: one small launch).

#include <cstdint>

#include "ops/cuda/mxv/carry_fixup_debug.hpp"
#include "ops/cuda/mxv/mxv_args.cuh"

namespace spindle::detail::cuda {

/// Per-chunk partial results in the workspace (row -1: none).
template <class T>
struct ChunkPartials {
  std::int64_t* head_row = nullptr;
  std::int64_t* tail_row = nullptr;
  T* head_val = nullptr;
  T* tail_val = nullptr;
  std::uint8_t* head_has = nullptr;
  std::uint8_t* tail_has = nullptr;

  /// Workspace bytes for `chunks` chunks.
  static std::size_t bytes(std::int64_t chunks) {
    const auto c = static_cast<std::size_t>(chunks);
    return align(2 * c * sizeof(std::int64_t)) + align(2 * c * sizeof(T)) + align(2 * c);
  }
  /// Carves the arrays out of `ws` (at least bytes(chunks), 256-byte aligned).
  static ChunkPartials carve(void* ws, std::int64_t chunks) {
    const auto c = static_cast<std::size_t>(chunks);
    auto* p = static_cast<unsigned char*>(ws);
    ChunkPartials r;
    r.head_row = reinterpret_cast<std::int64_t*>(p);
    r.tail_row = r.head_row + c;
    p += align(2 * c * sizeof(std::int64_t));
    r.head_val = reinterpret_cast<T*>(p);
    r.tail_val = r.head_val + c;
    p += align(2 * c * sizeof(T));
    r.head_has = p;
    r.tail_has = p + c;
    return r;
  }

 private:
  static std::size_t align(std::size_t b) { return (b + 255) & ~std::size_t{255}; }
};

template <class S, bool kGeneral, class T>
__global__ void __launch_bounds__(256)
    mxv_carry_fixup_kernel(const ChunkPartials<T> part, std::int64_t chunks,
                           const VectorResult<T> out) {
  const std::int64_t w = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= chunks) return;
  const std::int64_t row = part.tail_row[w];
  if (row < 0) return;
  T acc = part.tail_val[w];
  bool has = part.tail_has[w] != 0;
  for (std::int64_t c = w + 1; c < chunks && part.head_row[c] == row; ++c) {
    acc = S::add(acc, part.head_val[c]);
    has = has || part.head_has[c] != 0;
  }
  write_result<kGeneral>(out, row, acc, has);
}

template <class S, bool kGeneral, class T>
void launch_carry_fixup(const ChunkPartials<T>& part, std::int64_t chunks,
                        const VectorResult<T>& out, cudaStream_t stream) {
  if (carry_fixup_skipped()) return;
  const std::int64_t blocks = (chunks + 255) / 256;
  mxv_carry_fixup_kernel<S, kGeneral>
      <<<static_cast<unsigned>(blocks), 256, 0, stream>>>(part, chunks, out);
}

}  // namespace spindle::detail::cuda
