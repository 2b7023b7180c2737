// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nnz_split_segmented.cuh
/// @brief mxv, each warp takes a fixed chunk of stored entries across row boundaries and reduces
/// it with a warp-level segmented reduction in which only segment heads hold results (VSR:
/// Adaptive Workload-Balancing and Parallel-Reduction, Huang et al., §2.1.1; the load-balanced
/// COO kernel of Load-balancing SpMV Kernels on GPUs, Anzt et al., §3.2, Alg. 1).
///
/// Per step a warp reads 32 consecutive entries (coalesced column / value loads, independent
/// gathers of u; two steps' loads in flight at once). A window of 32 row offsets, one per lane,
/// gives the segment heads without any search: each row end falling inside the step marks the
/// next row's first lane, and one warp-wide OR (__reduce_or_sync) collects the marks. A 5-round
/// shuffle scan then sums each segment into its head (fixed tree: the same bits every run), and
/// the window lanes write the rows that ended in this step, coalesced, empty rows included (no
/// extra pass). About nine warp shuffles per 32 entries. A row still open at the end of a step is
/// carried in a register to the next step; a row open at the chunk's ends goes to the deterministic
/// carry fix-up (carry_fixup.cuh) instead of a float atomic.
///
/// Costs: rows are visited 32 per window, so chunks covering many more rows than entries (long
/// runs of empty rows) slow down; the planner sends such graphs to merge_path. The chunk start
/// rows are found once per graph and chunk size (a binary-search kernel) and cached.

#include <algorithm>
#include <cstdint>

#include "ops/cuda/mxv/carry_fixup.cuh"

namespace spindle::detail::cuda {

/// chunk_row[c] = the row containing entry c * chunk (largest r < n with row_ptr[r] <= c*chunk).
template <class I>
__global__ void nnz_split_partition_kernel(const I* row_ptr, std::int64_t n, std::int64_t chunk,
                                           std::int64_t chunks, std::int64_t* chunk_row) {
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= chunks) return;
  const std::int64_t key = c * chunk;
  std::int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi + 1) >> 1;
    if (static_cast<std::int64_t>(row_ptr[mid]) <= key) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  chunk_row[c] = lo;
}

namespace nnz_split {
constexpr unsigned kFull = 0xffffffffu;
constexpr std::int64_t kNoEnd = INT64_MAX;

/// Row end of window lane `lane` (row cur + lane), kNoEnd past the last row.
template <class I>
__device__ __forceinline__ std::int64_t window_end(const I* row_ptr, std::int64_t n,
                                                   std::int64_t cur, int lane) {
  const std::int64_t r = cur + 1 + lane;
  return r <= n ? static_cast<std::int64_t>(__ldg(row_ptr + r)) : kNoEnd;
}

/// OR of v over the warp (one REDUX instruction from sm_80 on).
__device__ __forceinline__ unsigned warp_or(unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_or_sync(kFull, v);
#else
  for (int off = 16; off > 0; off >>= 1) v |= __shfl_xor_sync(kFull, v, off);
  return v;
#endif
}

/// Bits [lo, hi) of a 32-bit mask (0 <= lo <= hi <= 32).
__device__ __forceinline__ unsigned bit_range(int lo, int hi) {
  const unsigned upto = hi >= 32 ? kFull : ((1u << hi) - 1u);
  return upto & ~((1u << lo) - 1u);
}

/// One past the last lane of the segment that starts at (or contains) lane `l`.
__device__ __forceinline__ int segment_end(unsigned heads, int l) {
  const unsigned later = l >= 31 ? 0u : heads & ~((2u << l) - 1u);
  return later ? __ffs(later) - 1 : 32;
}

/// The warp's state while it walks its chunk.
template <class T>
struct Walk {
  std::int64_t cur;   // first row not yet written
  std::int64_t rs;    // its start
  std::int64_t e;     // this lane's window entry: end of row cur + lane
  T carry;            // partial of row cur from earlier steps
  bool carry_has;     // ... with at least one term (general path)
  bool carry_active;  // row cur has entries in earlier steps of this chunk
  bool wrote_head;
};
}  // namespace nnz_split

/// Reduces one step of 32 consecutive entries [s, step_end) (lane l holds entry s + l as x with
/// presence `pres`) and writes every row that ends in it.
template <class S, bool kGeneral, class T, class I, class VV>
__device__ __forceinline__ void nnz_split_step(const MxvArgs<T, I, VV>& a, nnz_split::Walk<T>& st,
                                               T x, bool pres, std::int64_t s,
                                               std::int64_t step_end, std::int64_t cs,
                                               std::int64_t w, const ChunkPartials<T>& part) {
  using namespace nnz_split;
  const int lane = threadIdx.x & 31;
  const std::int64_t n = a.A.rows;
  // 1. Segment heads: a lane whose entry starts a row. Row starts inside the step are the row
  //    ends of the window that fall in (s, s + 32); a window that ends before step_end (more
  //    than 32 rows end in this step: empty rows) is followed by the next ones.
  unsigned heads = 1u;
  {
    std::int64_t ew = st.e;
    std::int64_t base = st.cur;
    for (;;) {
      const unsigned b = (ew > s && ew < s + 32) ? (1u << static_cast<int>(ew - s)) : 0u;
      heads |= warp_or(b);
      if (__ballot_sync(kFull, ew >= step_end) != 0) break;
      base += 32;
      ew = window_end(a.A.row_ptr, n, base, lane);
    }
  }
  // 2. Segmented suffix scan: each head ends up holding its segment's sum (fixed tree).
  const int seg_end = segment_end(heads, lane);
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const T o = __shfl_down_sync(kFull, x, off);
    if (lane + off < seg_end) x = S::add(x, o);
  }
  const unsigned has_bits = kGeneral ? __ballot_sync(kFull, pres) : kFull;
  // 3. Window lanes write the rows ending in this step, 32 rows per window.
  bool first_window = true;
  bool any_finished = false;
  for (;;) {
    const int cnt = __popc(__ballot_sync(kFull, st.e <= step_end));
    const std::int64_t prev_end = __shfl_up_sync(kFull, st.e, 1);
    const std::int64_t start = lane == 0 ? st.rs : prev_end;
    const std::int64_t lo = max(start, s);
    const bool in_step = lane < cnt && lo < st.e;
    const int h = in_step ? static_cast<int>(lo - s) : 0;
    const T step_val = __shfl_sync(kFull, x, h);
    if (lane < cnt) {
      bool has = in_step && (has_bits & bit_range(h, segment_end(heads, h))) != 0;
      T val = in_step ? step_val : a.identity;
      if (lane == 0 && first_window) {
        val = in_step ? S::add(st.carry, step_val) : st.carry;
        has = has || st.carry_has;
      }
      if constexpr (!kGeneral) has = st.e > start;
      if (lane == 0 && st.rs < cs) {
        // The chunk's first row began in an earlier chunk: a head partial for the fix-up.
        part.head_row[w] = st.cur;
        part.head_val[w] = val;
        part.head_has[w] = has ? 1 : 0;
        st.wrote_head = true;
      } else {
        write_result<kGeneral>(a.out, st.cur + lane, val, has);
      }
    }
    if (cnt == 0) break;
    any_finished = true;
    st.rs = __shfl_sync(kFull, st.e, cnt - 1);
    st.cur += cnt;
    st.e = window_end(a.A.row_ptr, n, st.cur, lane);
    first_window = false;
    if (cnt < 32) break;
  }
  // 4. The row still open at the step's end becomes the carry.
  if (st.rs < step_end) {
    const int h = any_finished ? static_cast<int>(st.rs - s) : 0;
    const T open_val = __shfl_sync(kFull, x, h);
    const bool open_has = (has_bits & bit_range(h, segment_end(heads, h))) != 0;
    if (any_finished) {
      st.carry = open_val;
      st.carry_has = open_has;
    } else {
      st.carry = S::add(st.carry, open_val);
      st.carry_has = st.carry_has || open_has;
    }
    st.carry_active = true;
  } else {
    st.carry = a.identity;
    st.carry_has = false;
    st.carry_active = false;
  }
}

/// One warp's chunk w (uniform across the warp); u(j) is read through `gather` (a functor, so a
/// variant can serve some entries of u from elsewhere; docs/design/mxv.md: the shared-memory
/// variant that was measured and dropped).
template <class S, bool kGeneral, class T, class I, class VV, class G>
__device__ __forceinline__ void nnz_split_warp(const MxvArgs<T, I, VV>& a, std::int64_t w,
                                               std::int64_t chunk,
                                               const std::int64_t* __restrict__ chunk_row,
                                               const ChunkPartials<T>& part, const G& gather) {
  using namespace nnz_split;
  const int lane = threadIdx.x & 31;
  const std::int64_t n = a.A.rows;
  const std::int64_t cs = w * chunk;
  const std::int64_t ce = min(cs + chunk, a.A.nnz);
  Walk<T> st;
  st.cur = chunk_row[w];  // the row containing entry cs
  st.rs = __ldg(a.A.row_ptr + st.cur);
  st.e = window_end(a.A.row_ptr, n, st.cur, lane);
  st.carry = a.identity;
  st.carry_has = false;
  st.carry_active = false;
  st.wrote_head = false;
  if (w == 0) {
    // Leading empty rows end at 0: no chunk's window reaches them.
    for (std::int64_t r = lane; r < st.cur; r += 32) {
      write_result<kGeneral>(a.out, r, a.identity, false);
    }
  }
  // Two steps per iteration: both steps' column, value and u loads are in flight together.
  for (std::int64_t s = cs; s < ce; s += 64) {
    const std::int64_t k0 = s + lane, k1 = s + 32 + lane;
    bool p0 = false, p1 = false;
    T x0 = a.identity, x1 = a.identity;
    if (k0 < ce) x0 = entry_product<S, kGeneral>(a, k0, p0, gather);
    if (k1 < ce) x1 = entry_product<S, kGeneral>(a, k1, p1, gather);
    // Terms folded from the identity, as the row kernels and the CPU backend fold a row: the
    // segmented scan below combines raw terms, and a NaN term would otherwise become its row's
    // value (or swallow a neighbour's partial) under min / max, which ignore NaN terms.
    x0 = p0 ? S::add(a.identity, x0) : a.identity;
    x1 = p1 ? S::add(a.identity, x1) : a.identity;
    nnz_split_step<S, kGeneral>(a, st, x0, p0, s, min(s + 32, ce), cs, w, part);
    if (s + 32 < ce)
      nnz_split_step<S, kGeneral>(a, st, x1, p1, s + 32, min(s + 64, ce), cs, w, part);
  }
  // Empty rows ending exactly at the chunk end that did not fit in the last window.
  for (;;) {
    const int cnt = __popc(__ballot_sync(kFull, st.e <= ce));
    if (cnt == 0) break;
    if (lane < cnt) write_result<kGeneral>(a.out, st.cur + lane, a.identity, false);
    st.cur += cnt;
    st.e = window_end(a.A.row_ptr, n, st.cur, lane);
    if (cnt < 32) break;
  }
  if (lane == 0) {
    const bool open = st.carry_active;
    const bool spans = open && st.rs < cs;  // the whole chunk lies inside one earlier row
    if (spans) {
      part.head_row[w] = st.cur;
      part.head_val[w] = st.carry;
      part.head_has[w] = st.carry_has ? 1 : 0;
    } else if (!st.wrote_head) {
      part.head_row[w] = -1;
    }
    if (open && !spans) {
      part.tail_row[w] = st.cur;
      part.tail_val[w] = st.carry;
      part.tail_has[w] = (kGeneral ? st.carry_has : true) ? 1 : 0;
    } else {
      part.tail_row[w] = -1;
    }
  }
}

template <class S, bool kGeneral, class T, class I, class VV>
__global__ void __launch_bounds__(128)
    mxv_nnz_split_kernel(const MxvArgs<T, I, VV> a, std::int64_t chunk, std::int64_t chunks,
                         const std::int64_t* __restrict__ chunk_row, const ChunkPartials<T> part) {
  const std::int64_t w = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  if (w >= chunks) return;  // uniform per warp
  nnz_split_warp<S, kGeneral>(a, w, chunk, chunk_row, part, GlobalGather<T>{a.u});
}

/// Launches the main kernel and the fix-up. `chunk_row` holds the cached partition for `chunk`
/// (a multiple of 32); `ws` at least ChunkPartials<T>::bytes(chunks).
template <class S, bool kGeneral, class T, class I, class VV>
void launch_nnz_split(const MxvArgs<T, I, VV>& a, std::int64_t chunk, std::int64_t chunks,
                      const std::int64_t* chunk_row, void* ws, cudaStream_t stream) {
  const ChunkPartials<T> part = ChunkPartials<T>::carve(ws, chunks);
  constexpr int kBlock = 128;
  const std::int64_t blocks = (chunks * 32 + kBlock - 1) / kBlock;
  mxv_nnz_split_kernel<S, kGeneral>
      <<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(a, chunk, chunks, chunk_row, part);
  launch_carry_fixup<S, kGeneral>(part, chunks, a.out, stream);
}

}  // namespace spindle::detail::cuda
