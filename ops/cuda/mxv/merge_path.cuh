// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file merge_path.cuh
/// @brief mxv by merge path (Merrill & Garland, Merge-based Parallel Sparse Matrix-Vector
/// Multiplication; Load-balancing SpMV Kernels on GPUs, Anzt et al., §3.3): the row ends and the
/// stored entries are merged into one list of rows + nnz items, and every thread consumes exactly K
/// items of it (an entry: accumulate; a row end: emit the row). Work per thread is equal whatever
/// the row lengths, including long runs of empty rows, which the nnz-split kernel walks slowly.
///
/// A block of 128 threads takes a tile of 128*K items: it stages the tile's row ends and the
/// products of its entries in shared memory with coalesced loads (K independent gathers of u per
/// thread in flight), then each thread finds its start on the merge path by a binary search in
/// shared memory and walks its K items. Rows crossing threads are combined in a fixed order (each
/// thread's first finished row folds the carries of the threads before it, left to right); rows
/// crossing tiles go to the deterministic carry fix-up (carry_fixup.cuh). No atomics: the same
/// bits every run. The tile start coordinates are found once per graph and K (a search kernel)
/// and cached.

#include <cstdint>

#include "ops/cuda/mxv/carry_fixup.cuh"

namespace spindle::detail::cuda {

namespace merge_path {
constexpr int kBlock = 128;

/// The point of the merge path on diagonal d: x row ends and d - x entries before it.
template <class I>
__device__ __forceinline__ std::int64_t search(const I* row_ptr, std::int64_t n, std::int64_t nnz,
                                               std::int64_t d) {
  std::int64_t lo = max(d - nnz, std::int64_t{0}), hi = min(d, n);
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) >> 1;
    // Row `mid` ends before entry d - mid - 1 is read: take the row end first.
    if (static_cast<std::int64_t>(row_ptr[mid + 1]) <= d - mid - 1) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Dynamic shared memory of a tile with K items per thread.
template <class T, class I>
constexpr std::size_t smem_bytes(int k) {
  const std::size_t items = static_cast<std::size_t>(kBlock) * k;
  return (items + 1) * sizeof(I) + items * sizeof(T) + items +
         kBlock * (sizeof(T) + sizeof(std::int32_t) + 2) + 64;
}
}  // namespace merge_path

/// tile_x[t], tile_y[t]: the merge-path point at diagonal t * items (t = 0..tiles).
template <class I>
__global__ void merge_path_partition_kernel(const I* row_ptr, std::int64_t n, std::int64_t nnz,
                                            std::int64_t items, std::int64_t tiles,
                                            std::int64_t* tile_x, std::int64_t* tile_y) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  const std::int64_t d = min(t * items, n + nnz);
  const std::int64_t x = merge_path::search(row_ptr, n, nnz, d);
  tile_x[t] = x;
  tile_y[t] = d - x;
}

template <class S, bool kGeneral, class T, class I, class VV>
__global__ void __launch_bounds__(merge_path::kBlock)
    mxv_merge_path_kernel(const MxvArgs<T, I, VV> a, int k_items,
                          const std::int64_t* __restrict__ tile_x,
                          const std::int64_t* __restrict__ tile_y, const ChunkPartials<T> part) {
  using merge_path::kBlock;
  extern __shared__ __align__(16) unsigned char smem[];
  const int tid = threadIdx.x;
  const std::int64_t t = blockIdx.x;
  const std::int64_t x0 = tile_x[t], y0 = tile_y[t];
  const std::int64_t x1 = tile_x[t + 1], y1 = tile_y[t + 1];
  const int nrows = static_cast<int>(x1 - x0);
  const int nz = static_cast<int>(y1 - y0);
  const int items = kBlock * k_items;

  // Shared layout: products (T), row ends (I), presence flags, per-thread carries.
  T* s_prod = reinterpret_cast<T*>(smem);
  I* s_end = reinterpret_cast<I*>(s_prod + items);
  T* s_carry_val = reinterpret_cast<T*>((reinterpret_cast<std::uintptr_t>(s_end + items + 1) + 15) &
                                        ~std::uintptr_t{15});
  std::int32_t* s_carry_row = reinterpret_cast<std::int32_t*>(s_carry_val + kBlock);
  std::uint8_t* s_carry_has = reinterpret_cast<std::uint8_t*>(s_carry_row + kBlock);
  std::uint8_t* s_carry_act = s_carry_has + kBlock;
  std::uint8_t* s_flag = s_carry_act + kBlock;

  if (tid == 0) {
    part.head_row[t] = -1;
    part.tail_row[t] = -1;
  }
  for (int i = tid; i < nrows; i += kBlock) s_end[i] = __ldg(a.A.row_ptr + x0 + 1 + i);
#pragma unroll 4
  for (int it = 0; it < k_items; ++it) {
    const int j = it * kBlock + tid;
    if (j < nz) {
      bool pres;
      const T p = entry_product<S, kGeneral>(a, y0 + j, pres);
      s_prod[j] = pres ? p : a.identity;
      if constexpr (kGeneral) s_flag[j] = pres ? 1 : 0;
    }
  }
  __syncthreads();

  // This thread's start on the merge path, searched within the tile.
  const std::int64_t d =
      min(static_cast<std::int64_t>(tid) * k_items, static_cast<std::int64_t>(nrows) + nz);
  int x, y;
  {
    int lo = static_cast<int>(max(d - nz, std::int64_t{0}));
    int hi = static_cast<int>(min(d, static_cast<std::int64_t>(nrows)));
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (static_cast<std::int64_t>(s_end[mid]) - y0 <= d - mid - 1) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    x = lo;
    y = static_cast<int>(d - lo);
  }
  const std::int64_t d_end = min(d + k_items, static_cast<std::int64_t>(nrows) + nz);
  T acc = a.identity;
  bool has = false, act = false, first_done = false;
  int first_row = -1;
  T first_val = a.identity;
  bool first_has = false;
  for (std::int64_t it = d; it < d_end; ++it) {
    if (x < nrows && static_cast<std::int64_t>(s_end[x]) - y0 <= y) {
      // Row x ends here.
      if (!first_done) {
        first_done = true;
        first_row = x;
        first_val = acc;
        first_has = has;
      } else {
        write_result<kGeneral>(a.out, x0 + x, acc, has);
      }
      acc = a.identity;
      has = false;
      act = false;
      ++x;
    } else {
      acc = S::add(acc, s_prod[y]);
      if constexpr (kGeneral) {
        has = has || s_flag[y] != 0;
      } else {
        has = true;
      }
      act = true;
      ++y;
    }
  }
  s_carry_val[tid] = acc;
  s_carry_row[tid] = x;
  s_carry_has[tid] = has ? 1 : 0;
  s_carry_act[tid] = act ? 1 : 0;
  __syncthreads();

  if (first_done) {
    // Fold the open carries of the threads before this one that were inside first_row.
    int q = tid - 1;
    while (q >= 0 && s_carry_row[q] == first_row) --q;
    T val = a.identity;
    bool h = false;
    for (int r = q + 1; r < tid; ++r) {
      val = S::add(val, s_carry_val[r]);
      h = h || s_carry_has[r] != 0;
    }
    val = S::add(val, first_val);
    h = h || first_has;
    if (q < 0 && first_row == 0 && static_cast<std::int64_t>(__ldg(a.A.row_ptr + x0)) < y0) {
      part.head_row[t] = x0;  // began in an earlier tile
      part.head_val[t] = val;
      part.head_has[t] = h ? 1 : 0;
    } else {
      write_result<kGeneral>(a.out, x0 + first_row, val, h);
    }
  }
  if (tid == kBlock - 1 && x1 < a.A.rows) {
    // The row open at the tile end (row x1): fold the carries of the threads inside it.
    int q = tid;
    while (q >= 0 && s_carry_row[q] == nrows) --q;
    T val = a.identity;
    bool h = false, active = false;
    for (int r = q + 1; r <= tid; ++r) {
      val = S::add(val, s_carry_val[r]);
      h = h || s_carry_has[r] != 0;
      active = active || s_carry_act[r] != 0;
    }
    if (active) {
      if (q < 0 && static_cast<std::int64_t>(__ldg(a.A.row_ptr + x1)) < y0) {
        part.head_row[t] = x1;  // the whole tile lies inside a row begun earlier
        part.head_val[t] = val;
        part.head_has[t] = h ? 1 : 0;
      } else {
        part.tail_row[t] = x1;
        part.tail_val[t] = val;
        part.tail_has[t] = h ? 1 : 0;
      }
    }
  }
}

/// Launches the main kernel and the fix-up; tile_x / tile_y: the cached partition for K items
/// per thread (tiles + 1 points); ws: at least ChunkPartials<T>::bytes(tiles).
template <class S, bool kGeneral, class T, class I, class VV>
void launch_merge_path(const MxvArgs<T, I, VV>& a, int k_items, std::int64_t tiles,
                       const std::int64_t* tile_x, const std::int64_t* tile_y, void* ws,
                       cudaStream_t stream) {
  const ChunkPartials<T> part = ChunkPartials<T>::carve(ws, tiles);
  const std::size_t smem = merge_path::smem_bytes<T, I>(k_items);
  mxv_merge_path_kernel<S, kGeneral>
      <<<static_cast<unsigned>(tiles), merge_path::kBlock, smem, stream>>>(a, k_items, tile_x,
                                                                           tile_y, part);
  launch_carry_fixup<S, kGeneral>(part, tiles, a.out, stream);
}

}  // namespace spindle::detail::cuda
