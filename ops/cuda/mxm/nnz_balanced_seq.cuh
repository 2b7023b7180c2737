// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nnz_balanced_seq.cuh
/// @brief SpMM `nnz_balanced_seq` (seed 000 §2.2: workload balancing with sequential reduction
/// and coalesced row caching) for skewed row lengths.
///
/// The nonzeros are cut into chunks of W consecutive entries regardless of row boundaries; a
/// group of G lanes (G·VEC output columns, as in row_cache_seq) walks one chunk. A row belongs
/// to the chunk holding its first entry (empty rows: the chunk holding the position where they
/// start; trailing empty rows: the last chunk). A chunk
///   - finishes every row it owns that also ends inside it (epilogue, store to C),
///   - writes the part of a row that started in an earlier chunk as its *head* partial,
///   - writes the part of its last owned row that runs past its end as its *tail* partial.
/// A fix-up pass then combines, for each row that crosses chunks, the owner's tail with the
/// following chunks' heads in chunk order. No atomics: the result is bit-identical run to run,
/// for every semiring. The cost: 2·N·sizeof(T) bytes of workspace per chunk, and one more small
/// launch (plus a partition launch, cached per graph and W).

#include "ops/cuda/mxm/row_cache_seq.cuh"

namespace spindle::detail::cuda {

/// The balanced kernels' extra arguments.
template <class I, class T>
struct BalancedArgs {
  const I* __restrict__ chunk_row = nullptr;  ///< nchunks + 1 entries (spmm_chunk_rows_kernel)
  std::int64_t nnz = 0;
  std::int64_t chunk = 0;  ///< W: nonzeros per chunk
  std::int64_t nchunks = 0;
  T* __restrict__ ws_head = nullptr;  ///< nchunks x N partials
  T* __restrict__ ws_tail = nullptr;  ///< nchunks x N partials
  /// Output row of CSR row r (nullptr: r itself). Lets ASpT run its long rows through this
  /// kernel as a separate CSR whose rows map into C.
  const I* __restrict__ row_map = nullptr;
};

/// chunk_row[c] = first row r with row_ptr[r] >= c·W (rows if none) for c < nchunks, and
/// chunk_row[nchunks] = rows.
template <class I>
__global__ void spmm_chunk_rows_kernel(const I* __restrict__ row_ptr, std::int64_t rows,
                                       std::int64_t chunk, std::int64_t nchunks,
                                       I* __restrict__ chunk_row) {
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c > nchunks) return;
  if (c == nchunks) {
    chunk_row[c] = static_cast<I>(rows);
    return;
  }
  chunk_row[c] = static_cast<I>(lower_bound_dev(row_ptr, 0, rows, static_cast<I>(c * chunk)));
}

template <class I>
void launch_spmm_chunk_rows(const I* row_ptr, std::int64_t rows, std::int64_t chunk,
                            std::int64_t nchunks, I* chunk_row, cudaStream_t stream) {
  const int block = 256;
  const auto grid = static_cast<unsigned>((nchunks + 1 + block - 1) / block);
  spmm_chunk_rows_kernel<I><<<grid, block, 0, stream>>>(row_ptr, rows, chunk, nchunks, chunk_row);
}

template <class I, class T>
__device__ __forceinline__ std::int64_t out_row(const BalancedArgs<I, T>& w, std::int64_t r) {
  return w.row_map != nullptr ? static_cast<std::int64_t>(w.row_map[r]) : r;
}

/// grid.x: nchunks·G threads in blocks of 256; grid.y: column tiles of G·VEC. VEC divides N.
template <class S, class I, class V, class T, int VEC>
__global__ void __launch_bounds__(kSpmmBlock)
    spmm_nnz_balanced_seq_kernel(SpmmArgs<I, V, T> a, BalancedArgs<I, T> w, int g_log2) {
  __shared__ SeqCache<I, V, T> cache;
  const int G = 1 << g_log2;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int qlane = lane & (G - 1);
  const int slot0 = static_cast<int>(threadIdx.x) & ~(G - 1);
  const unsigned gmask = group_mask(lane, G);
  const std::int64_t c =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> g_log2;
  if (c >= w.nchunks) return;  // whole groups leave together
  const std::int64_t col =
      static_cast<std::int64_t>(blockIdx.y) * (static_cast<std::int64_t>(G) * VEC) + qlane * VEC;
  const bool col_ok = col < a.n;
  const std::int64_t s = c * w.chunk;
  const std::int64_t e = s + w.chunk < w.nnz ? s + w.chunk : w.nnz;
  const std::int64_t r0 = static_cast<std::int64_t>(w.chunk_row[c]);
  const std::int64_t r1 = static_cast<std::int64_t>(w.chunk_row[c + 1]);
  std::int64_t start = static_cast<std::int64_t>(a.row_ptr[r0]);  // row_ptr[rows] = nnz
  T acc[VEC];
  if (start > s) {
    // Head: row r0 - 1 began in an earlier chunk and runs into this one.
#pragma unroll
    for (int v = 0; v < VEC; ++v) acc[v] = a.identity;
    accumulate_segment<S, I, V, T, VEC>(a, cache, s, start < e ? start : e, G, qlane, slot0, gmask,
                                        col, col_ok, acc);
    if (col_ok) {
#pragma unroll
      for (int v = 0; v < VEC; ++v) w.ws_head[c * a.n + col + v] = acc[v];
    }
  }
  for (std::int64_t r = r0; r < r1; ++r) {
    const std::int64_t next = static_cast<std::int64_t>(a.row_ptr[r + 1]);
#pragma unroll
    for (int v = 0; v < VEC; ++v) acc[v] = a.identity;
    accumulate_segment<S, I, V, T, VEC>(a, cache, start, next < e ? next : e, G, qlane, slot0,
                                        gmask, col, col_ok, acc);
    if (col_ok) {
      if (next <= e) {
        store_row_frag<T, VEC>(a.epi, a.c + out_row(w, r) * a.ldc + col, col, acc);
      } else {  // only the last owned row can run past the chunk
#pragma unroll
        for (int v = 0; v < VEC; ++v) w.ws_tail[c * a.n + col + v] = acc[v];
      }
    }
    start = next;
  }
}

/// One warp per chunk: a chunk whose last owned row runs past its end combines its tail with
/// the heads of the chunks that row covers, in chunk order, and stores the row.
template <class S, class I, class T>
__global__ void spmm_balanced_fixup_kernel(const I* __restrict__ row_ptr, BalancedArgs<I, T> w,
                                           std::int64_t n, T* __restrict__ c_out, std::int64_t ldc,
                                           DenseEpilogue<T> epi) {
  const std::int64_t c = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if (c + 1 >= w.nchunks) return;  // the last chunk ends at nnz: no tail
  const std::int64_t e = (c + 1) * w.chunk;
  const std::int64_t r0 = static_cast<std::int64_t>(w.chunk_row[c]);
  const std::int64_t r1 = static_cast<std::int64_t>(w.chunk_row[c + 1]);
  if (r1 == r0) return;  // owns no row
  const std::int64_t r = r1 - 1;
  const std::int64_t rend = static_cast<std::int64_t>(row_ptr[r + 1]);
  if (rend <= e) return;  // its last row ends inside it
  T* crow = c_out + out_row(w, r) * ldc;
  for (std::int64_t col = lane; col < n; col += 32) {
    T acc = w.ws_tail[c * n + col];
    for (std::int64_t c2 = c + 1; c2 < w.nchunks && c2 * w.chunk < rend; ++c2) {
      acc = S::add(acc, w.ws_head[c2 * n + col]);
    }
    store_finished(epi, crow + col, acc, col);
  }
}

/// Chunk size for nnz_balanced_seq: `requested` (0 = default 256 nonzeros, about 16 average
/// R-MAT rows), raised so the two partial buffers stay under `ws_budget` bytes.
inline std::int64_t balanced_chunk(std::int64_t nnz, std::int64_t n, std::size_t elem,
                                   std::int64_t requested, std::int64_t ws_budget) {
  std::int64_t w = requested > 0 ? requested : 256;
  const std::int64_t per_chunk = 2 * n * static_cast<std::int64_t>(elem);
  while (w < nnz && ((nnz + w - 1) / w) * per_chunk > ws_budget) w *= 2;
  return w;
}

/// Launches the main pass and the fix-up (the partition in w.chunk_row must be ready).
template <class S, class I, class V, class T>
void launch_spmm_nnz_balanced_seq(const SpmmArgs<I, V, T>& a, const BalancedArgs<I, T>& w,
                                  std::int64_t tile, cudaStream_t stream) {
  constexpr int kWide = static_cast<int>(16 / sizeof(T));
  const int vec = seq_vec_for(a) == kWide ? kWide : 1;
  const int G = seq_group_lanes(a.n, vec, tile);
  const std::int64_t width = static_cast<std::int64_t>(G) * vec;
  const dim3 grid(static_cast<unsigned>((w.nchunks * G + kSpmmBlock - 1) / kSpmmBlock),
                  static_cast<unsigned>((a.n + width - 1) / width));
  if (vec == kWide) {
    spmm_nnz_balanced_seq_kernel<S, I, V, T, kWide>
        <<<grid, kSpmmBlock, 0, stream>>>(a, w, log2_int(G));
  } else {
    spmm_nnz_balanced_seq_kernel<S, I, V, T, 1><<<grid, kSpmmBlock, 0, stream>>>(a, w, log2_int(G));
  }
  if (w.nchunks > 1) {
    const std::int64_t threads = (w.nchunks - 1) * 32;
    spmm_balanced_fixup_kernel<S, I, T>
        <<<static_cast<unsigned>((threads + kSpmmBlock - 1) / kSpmmBlock), kSpmmBlock, 0, stream>>>(
            a.row_ptr, w, a.n, a.c, a.ldc, a.epi);
  }
}

}  // namespace spindle::detail::cuda
