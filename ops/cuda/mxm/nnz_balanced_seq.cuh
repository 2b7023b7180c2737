// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nnz_balanced_seq.cuh
/// @brief SpMM `nnz_balanced_seq` (Adaptive Workload-Balancing and Parallel-Reduction, Huang et
/// al., §2.2: workload balancing with sequential reduction
/// over cached sparse entries) for skewed row lengths.
///
/// The nonzeros are cut into chunks of W consecutive entries regardless of row boundaries and a
/// whole warp walks one chunk, so no lane waits on another's row (an earlier version gave each
/// group of lanes its own chunk: the groups of a warp then diverged and serialized, 10x slower
/// on R-MAT at small N). The warp splits into P = 32/G groups of G lanes (G·VEC output
/// columns); one step takes P consecutive entries, one per group, gathers their B rows (kSteps
/// steps are gathered before the first is reduced), and a segmented scan across the groups by
/// row id (the VSR of Adaptive Workload-Balancing and Parallel-Reduction, Huang et al., §2.1.1,
/// on VEC-wide vectors) sums the entries of each row. A row that
/// ends inside the step is finished; the last group's running sum carries into the next step.
/// Row ids come from the cached COO row array (coo_rows.cuh).
///
/// Ownership across chunks: a row belongs to the chunk holding its first entry. A chunk
///   - finishes the rows it owns that end inside it (epilogue, store to C),
///   - writes the part of a row that began in an earlier chunk as its *head* partial,
///   - writes the part of its last row that runs past its end as its *tail* partial.
/// A fix-up pass combines, for each row that crosses chunks, the owner's tail with the heads of
/// the chunks the row covers, in chunk order; empty rows are written by their own small pass.
/// No atomics: the result is bit-identical run to run, for every semiring. The cost: 2·N·T bytes
/// of workspace per chunk and two small launches (the partition is cached per graph and W).

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "engine/src/cuda/cuda_check.hpp"
#include "ops/core/spmm_limits.hpp"
#include "ops/cuda/mxm/row_cache_seq.cuh"
#include "spindle/error.hpp"

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
  const I* __restrict__ row_idx = nullptr;  ///< COO row of every entry (coo_rows.cuh)
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

/// Gathers per lane in flight: kSteps steps are loaded before the first is reduced.
constexpr int kBalancedSteps = 4;

/// Where a finished partial of row r goes (called by one group, all its G lanes): the head slot
/// when r began before the chunk, C when it ends in the chunk, else the tail slot.
template <class I, class V, class T, int VEC>
__device__ __forceinline__ void balanced_flush(const SpmmArgs<I, V, T>& a,
                                               const BalancedArgs<I, T>& w, std::int64_t c, I r,
                                               I head_row, bool ends_in_chunk, std::int64_t col,
                                               bool col_ok, const T (&v)[VEC]) {
  if (!col_ok) return;
  if (r == head_row) {
    store_partial_frag<T, VEC>(w.ws_head + c * a.n + col, v);
  } else if (ends_in_chunk) {
    store_row_frag<T, VEC>(a.epi, a.c + out_row(w, static_cast<std::int64_t>(r)) * a.ldc + col, col,
                           v);
  } else {
    store_partial_frag<T, VEC>(w.ws_tail + c * a.n + col, v);
  }
}

/// grid.x: nchunks warps in blocks of 256 threads; grid.y: column tiles of G·VEC.
template <class S, class I, class V, class T, int VEC>
__global__ void __launch_bounds__(kSpmmBlock)
    spmm_nnz_balanced_seq_kernel(SpmmArgs<I, V, T> a, BalancedArgs<I, T> w, int g_log2) {
  const int G = 1 << g_log2;
  const int P = 32 >> g_log2;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int q = lane & (G - 1);
  const int g = lane >> g_log2;
  const std::int64_t c = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  if (c >= w.nchunks) return;  // whole warps leave together
  const std::int64_t col =
      static_cast<std::int64_t>(blockIdx.y) * (static_cast<std::int64_t>(G) * VEC) + q * VEC;
  const bool col_ok = col < a.n;
  const std::int64_t s = c * w.chunk;
  const std::int64_t e = s + w.chunk < w.nnz ? s + w.chunk : w.nnz;
  // The row holding entry s began in an earlier chunk: its part here is the head partial.
  const I r_s = __ldg(w.row_idx + s);
  const I head_row = static_cast<std::int64_t>(a.row_ptr[r_s]) < s ? r_s : static_cast<I>(-1);
  // Row ids stay in I (one shuffle each for int32 graphs). -1: no entry; kNone: no carry.
  constexpr I kNone = static_cast<I>(-2);
  I carry_row = kNone;
  T carry[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) carry[v] = a.identity;

  for (std::int64_t w0 = s; w0 < e; w0 += static_cast<std::int64_t>(kBalancedSteps) * P) {
    // Gather kBalancedSteps steps first: their loads are independent of the reductions below.
    I rows[kBalancedSteps];
    T prod[kBalancedSteps][VEC];
#pragma unroll
    for (int u = 0; u < kBalancedSteps; ++u) {
      const std::int64_t k = w0 + static_cast<std::int64_t>(u) * P + g;
      rows[u] = static_cast<I>(-1);
#pragma unroll
      for (int v = 0; v < VEC; ++v) prod[u][v] = a.identity;
      if (k < e) {
        rows[u] = __ldg(w.row_idx + k);
        const std::int64_t j = static_cast<std::int64_t>(__ldg(a.col_idx + k));
        const T av = a_value<T, V>(a.vals, k);
        if (col_ok) {
          const Frag<T, VEC> f = load_frag<T, VEC>(a.b + j * a.ldb + col);
#pragma unroll
          for (int v = 0; v < VEC; ++v) prod[u][v] = S::mul(av, f.v[v]);
        }
      }
    }
    if (P == 1) {
      // One entry per step (N >= 32·VEC): every lane sees the same row, no shuffles needed.
#pragma unroll
      for (int u = 0; u < kBalancedSteps; ++u) {
        if (w0 + u >= e) break;  // uniform
        if (rows[u] == carry_row) {
#pragma unroll
          for (int v = 0; v < VEC; ++v) carry[v] = S::add(carry[v], prod[u][v]);
        } else {
          if (carry_row != kNone) {
            balanced_flush<I, V, T, VEC>(a, w, c, carry_row, head_row, true, col, col_ok, carry);
          }
          carry_row = rows[u];
#pragma unroll
          for (int v = 0; v < VEC; ++v) carry[v] = prod[u][v];
        }
      }
      continue;
    }
#pragma unroll
    for (int u = 0; u < kBalancedSteps; ++u) {
      const std::int64_t first = w0 + static_cast<std::int64_t>(u) * P;
      if (first >= e) break;                                              // uniform
      const int valid = static_cast<int>(e - first < P ? e - first : P);  // groups with an entry
      const I r = rows[u];
      T x[VEC];
#pragma unroll
      for (int v = 0; v < VEC; ++v) x[v] = prod[u][v];
      // The carried row either continues in group 0 or ended with the previous step.
      const I r0 = __shfl_sync(kFullMask, r, 0);
      if (carry_row != kNone) {
        if (r0 == carry_row) {
          if (g == 0) {
#pragma unroll
            for (int v = 0; v < VEC; ++v) x[v] = S::add(carry[v], x[v]);
          }
        } else if (g == 0) {
          balanced_flush<I, V, T, VEC>(a, w, c, carry_row, head_row, true, col, col_ok, carry);
        }
      }
      // Segmented inclusive scan across the groups (same row id = same segment; rows are
      // sorted, so equal ids are contiguous). Left operands come first: a fixed order.
      for (int off = 1; off < P; off <<= 1) {
        const I ro = __shfl_up_sync(kFullMask, r, off * G);
        T xo[VEC];
#pragma unroll
        for (int v = 0; v < VEC; ++v) xo[v] = __shfl_up_sync(kFullMask, x[v], off * G);
        if (g >= off && ro == r) {
#pragma unroll
          for (int v = 0; v < VEC; ++v) x[v] = S::add(xo[v], x[v]);
        }
      }
      // A row whose last entry of this step is not the step's last valid one ends here.
      const I rn = __shfl_down_sync(kFullMask, r, G);
      if (g < valid - 1 && rn != r) {
        balanced_flush<I, V, T, VEC>(a, w, c, r, head_row, true, col, col_ok, x);
      }
      // The last valid group's running sum carries on.
      const int src = (valid - 1) * G + q;
      carry_row = __shfl_sync(kFullMask, r, src);
#pragma unroll
      for (int v = 0; v < VEC; ++v) carry[v] = __shfl_sync(kFullMask, x[v], src);
    }
  }
  // The chunk's last row: finished here, or its tail runs on into the next chunks.
  if (g == 0 && carry_row != kNone) {
    const bool ends =
        static_cast<std::int64_t>(a.row_ptr[static_cast<std::int64_t>(carry_row) + 1]) <= e;
    balanced_flush<I, V, T, VEC>(a, w, c, carry_row, head_row, ends, col, col_ok, carry);
  }
}

/// Rows with no entries get the epilogue of the identity (the balanced kernel never sees them):
/// a warp takes 32 rows and writes the empty ones with coalesced stores.
template <class I, class T>
__global__ void spmm_empty_rows_kernel(const I* __restrict__ row_ptr, std::int64_t rows,
                                       std::int64_t n, T* __restrict__ c_out, std::int64_t ldc,
                                       DenseEpilogue<T> epi, T identity,
                                       const I* __restrict__ row_map) {
  const std::int64_t r0 = ((static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5)
                          << 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if (r0 >= rows) return;
  const std::int64_t r = r0 + lane;
  const bool empty = r < rows && row_ptr[r] == row_ptr[r + 1];
  unsigned mask = __ballot_sync(kFullMask, empty);
  while (mask != 0) {
    const int b = __ffs(mask) - 1;
    mask &= mask - 1;
    const std::int64_t row = r0 + b;
    const std::int64_t orow = row_map != nullptr ? static_cast<std::int64_t>(row_map[row]) : row;
    T* crow = c_out + orow * ldc;
    for (std::int64_t col = lane; col < n; col += 32)
      store_finished(epi, crow + col, identity, col);
  }
}

/// Blocks per SM the group form is compiled for (at most 64 registers): without the bound the
/// staged form took 75-78 registers and 3 blocks; the harness's copy ran with 4 (H100).
constexpr int kGroupMinBlocks = 4;

/// Entries of A staged in shared memory per block by the group form (all its groups' windows):
/// 32-48 KB of static shared memory for every index and value type.
template <class I, class V, class T>
constexpr int balanced_window_entries() {
  return sizeof(I) + (is_pattern_v<V> ? 0 : sizeof(T)) <= 12 ? 4096 : 2048;
}

/// The group form's windows: group g of the block owns entries [g·win, (g + 1)·win).
template <class I, class V, class T>
struct GroupWindow {
  static constexpr int kEntries = balanced_window_entries<I, V, T>();
  I col[kEntries];
  T val[is_pattern_v<V> ? 1 : kEntries];
};

/// Copies `units` 16-byte units from src to dst, G lanes of a group, two loads per lane in
/// flight before their stores.
__device__ __forceinline__ void copy_units16(void* dst, const void* src, int units, int G,
                                             int qlane) {
  const uint4* s = static_cast<const uint4*>(src);
  uint4* d = static_cast<uint4*>(dst);
  for (int i0 = 0; i0 < units; i0 += 2 * G) {
    const int i = i0 + qlane, j = i0 + G + qlane;
    uint4 x{}, y{};
    if (i < units) x = __ldg(s + i);
    if (j < units) y = __ldg(s + j);
    if (i < units) d[i] = x;
    if (j < units) d[j] = y;
  }
}

/// Loads entries [wb, wb + len) of A into a group's window (wcol / wval): 16-byte vector loads
/// when the window is whole and both streams are 16-byte aligned there, else one entry per lane.
/// Every lane of the group calls it; the caller synchronizes the group after.
template <class I, class V, class T>
__device__ __forceinline__ void stage_window(const SpmmArgs<I, V, T>& a, I* wcol, T* wval,
                                             std::int64_t wb, int len, int win, int G, int qlane) {
  bool vec = len == win && (static_cast<std::size_t>(win) * sizeof(I)) % 16 == 0 &&
             (reinterpret_cast<std::uintptr_t>(a.col_idx + wb) & 15) == 0;
  if constexpr (!is_pattern_v<V>) {
    static_assert(std::is_same_v<V, T>, "stored values are T or a pattern");
    vec = vec && (static_cast<std::size_t>(win) * sizeof(T)) % 16 == 0 &&
          (reinterpret_cast<std::uintptr_t>(a.vals + wb) & 15) == 0;
  }
  if (vec) {
    copy_units16(wcol, a.col_idx + wb, static_cast<int>(win * sizeof(I) / 16), G, qlane);
    if constexpr (!is_pattern_v<V>) {
      copy_units16(wval, a.vals + wb, static_cast<int>(win * sizeof(T) / 16), G, qlane);
    }
    return;
  }
  for (int i = qlane; i < len; i += G) {
    wcol[i] = __ldg(a.col_idx + wb + i);
    if constexpr (!is_pattern_v<V>) wval[i] = a_value<T, V>(a.vals, wb + i);
  }
}

/// The group form's row finisher (Fin of spmm_nnz_balanced_group_kernel), passed to the kernel
/// by value:
///   prepare()  every thread of the block, once, before any group leaves: block-wide staging
///              (shared memory, then __syncthreads) where the finisher needs it;
///   store(a, orow, col, col_ok, acc, gmask, G, qlane)  every lane of a group, together, when
///              a row is finished: acc holds the lane's VEC columns from col (col_ok: col < N).
/// GroupStore<K> writes the row to C through the epilogue of kind K (EpiKind).
template <EpiKind K>
struct GroupStore {
  __device__ __forceinline__ void prepare() const {}
  template <class I, class V, int VEC, class T>
  __device__ __forceinline__ void store(const SpmmArgs<I, V, T>& a, std::int64_t orow,
                                        std::int64_t col, bool col_ok, const T (&acc)[VEC],
                                        unsigned /*gmask*/, int /*G*/, int /*qlane*/) const {
    if (col_ok) store_row_frag_as<K, T, VEC>(a.epi, a.c + orow * a.ldc + col, col, acc);
  }
};

/// The group-per-chunk form: each group of G lanes walks its own chunk, owning the rows that
/// start in it, empty ones included. Its groups diverge, which made it 6x slower than the warp
/// form at G <= 2 (R-MAT 22, N = 1: 4.7 vs 0.79 ms on an H200), but with G >= 4 on large graphs
/// it was measured 1.4-3x faster, so the launcher keeps both. grid.x: nchunks·G threads in
/// blocks of 256; grid.y: column tiles. VEC: see balanced_group_vec; U gathers in flight per
/// lane. Fin: how a finished row leaves (GroupStore below: through the epilogue of one EpiKind
/// into C; spmm_project.cuh: through a dense product into a narrower output). GroupStore is
/// instantiated per kind: with Plain a finished row is stored as summed (the generic epilogue's
/// code cost 7-10% even when unused).
///
/// The chunk's column ids and values go through a window of `win` entries in shared memory,
/// filled by 16-byte loads of the whole group (all in flight together) and refilled as the walk
/// passes its end. The walk goes entry by entry, not row by row: U gathers are issued for the
/// next U entries of the chunk whatever rows they belong to, and a row is stored when its last
/// entry has been added (the empty rows after it as the identity, through the epilogue), in the
/// same batch. A row of R-MAT's many short rows no longer waits on its own column ids nor
/// issues a batch of its own. H100, R-MAT 22, a harness:
/// N = 32 3.10 ms (row walk, entries cached per row) -> 2.56 (row walk over the staged
/// window) -> 1.92 (this entry walk); N = 16 2.26 -> 1.58; N = 64 3.64 -> 3.40; N = 128 even;
/// N = 256 2.5% slower (15.49 against 15.11 ms), kept for one walk at every width.
///
template <class S, class I, class V, class T, int VEC, class Fin>
__global__ void __launch_bounds__(kSpmmBlock, kGroupMinBlocks)
    spmm_nnz_balanced_group_kernel(SpmmArgs<I, V, T> a, BalancedArgs<I, T> w, int g_log2, Fin fin) {
  // Gathers in flight per lane: 8 for fragments up to 8 bytes, 4 for 16 (same registers).
  constexpr int U = VEC * sizeof(T) <= 8 ? 8 : 4;
  using Win = GroupWindow<I, V, T>;
  __shared__ __align__(16) Win window;
  const int G = 1 << g_log2;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int qlane = lane & (G - 1);
  const unsigned gmask = group_mask(lane, G);
  const std::int64_t c =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> g_log2;
  fin.prepare();               // every thread of the block, before any group leaves
  if (c >= w.nchunks) return;  // whole groups leave together
  const std::int64_t col =
      static_cast<std::int64_t>(blockIdx.y) * (static_cast<std::int64_t>(G) * VEC) + qlane * VEC;
  const bool col_ok = col < a.n;
  const std::int64_t s = c * w.chunk;
  const std::int64_t e = s + w.chunk < w.nnz ? s + w.chunk : w.nnz;
  // This group's window: Win::kEntries / (kSpmmBlock / G) entries, at most the chunk.
  const int wcap = Win::kEntries / (kSpmmBlock >> g_log2);
  const int win = static_cast<int>(w.chunk < wcap ? w.chunk : wcap);
  const int grp = static_cast<int>(threadIdx.x) >> g_log2;
  I* const wcol = window.col + grp * wcap;
  T* const wval = is_pattern_v<V> ? window.val : window.val + grp * wcap;
  // Offsets from s (32-bit: a chunk is far below 2^31 entries). The window holds [wlo, whi).
  const int len = static_cast<int>(e - s);
  int wlo = 0;
  int whi = win < len ? win : len;
  stage_window<I, V, T>(a, wcol, wval, s, whi, win, G, qlane);
  // Rows: cur is the row being summed (r0 - 1: the head, a row begun in an earlier chunk), rend
  // the offset where it ends (len + 1: past the chunk). Rows r0 .. r1 - 1 start in the chunk.
  const std::int64_t r0 = static_cast<std::int64_t>(w.chunk_row[c]);
  const std::int64_t r1 = static_cast<std::int64_t>(w.chunk_row[c + 1]);
  auto offset_of = [&](std::int64_t r) {  // row_ptr[r] - s, at most len + 1
    const std::int64_t v = static_cast<std::int64_t>(a.row_ptr[r]) - s;
    return static_cast<int>(v > len ? len + 1 : v);
  };
  T acc[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) acc[v] = a.identity;
  auto store_row = [&](std::int64_t r) {  // a finished row through the finisher (every lane)
    fin.template store<I, V, VEC>(a, out_row(w, r), col, col_ok, acc, gmask, G, qlane);
  };
  // From row cur, which starts at `from`: stores the empty rows (acc holds the identity) and
  // stops at the first row with entries, setting rend; cur = r1 when none is left.
  std::int64_t cur;
  int rend = len + 1;
  auto next_row = [&](int from) {
    for (; cur < r1; ++cur) {
      const int end = offset_of(cur + 1);
      if (end > from) {
        rend = end;
        return;
      }
      store_row(cur);
    }
  };
  const int start0 = offset_of(r0);
  if (start0 > 0) {
    cur = r0 - 1;
    rend = start0;
  } else {
    cur = r0;
    next_row(0);
  }
  __syncwarp(gmask);  // the window is staged
  for (int t0 = 0; t0 < len;) {
    if (t0 >= whi) {
      __syncwarp(gmask);  // every lane is done with the old window
      wlo = whi;
      whi = wlo + win < len ? wlo + win : len;
      stage_window<I, V, T>(a, wcol, wval, s + wlo, whi - wlo, win, G, qlane);
      __syncwarp(gmask);
    }
    const int t1 = t0 + U < whi ? t0 + U : whi;  // a batch never crosses the window's end
    Frag<T, VEC> bf[U];
    T av[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int t = t0 + u;
      if (t < t1) {
        const I jc = wcol[t - wlo];
        if constexpr (is_pattern_v<V>) {
          av[u] = T(1);
        } else {
          av[u] = wval[t - wlo];
        }
        if (col_ok) bf[u] = load_frag<T, VEC>(a.b + static_cast<std::int64_t>(jc) * a.ldb + col);
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int t = t0 + u;
      if (t < t1) {
        if (col_ok) {
#pragma unroll
          for (int v = 0; v < VEC; ++v) acc[v] = S::add(acc[v], S::mul(av[u], bf[u].v[v]));
        }
        if (t + 1 == rend) {  // row cur ends with this entry
          if (cur < r0) {
            if (col_ok) store_partial_frag<T, VEC>(w.ws_head + c * a.n + col, acc);
          } else {
            store_row(cur);
          }
#pragma unroll
          for (int v = 0; v < VEC; ++v) acc[v] = a.identity;
          ++cur;
          next_row(rend);
        }
      }
    }
    t0 = t1;
  }
  // A row running past the chunk leaves its partial as the tail (as the head when no row starts
  // in the chunk); the fix-up adds it to the next chunks' heads.
  if (cur < r1 && rend > len && col_ok) {
    store_partial_frag<T, VEC>((cur < r0 ? w.ws_head : w.ws_tail) + c * a.n + col, acc);
  }
}

/// The row chunk c leaves unfinished: its last owned row when that row runs past the chunk's
/// end. The row's tail is in c's ws_tail and the rest in the heads of chunks c + 1 .. last - 1.
struct CrossingRow {
  std::int64_t row = -1;  ///< -1: chunk c finishes every row it owns (or is the last chunk)
  std::int64_t last = 0;
};

template <class I, class T>
__device__ __forceinline__ CrossingRow balanced_crossing_row(const I* __restrict__ row_ptr,
                                                             const BalancedArgs<I, T>& w,
                                                             std::int64_t c) {
  CrossingRow x;
  if (c + 1 >= w.nchunks) return x;  // the last chunk ends at nnz: no tail
  const std::int64_t r0 = static_cast<std::int64_t>(w.chunk_row[c]);
  const std::int64_t r1 = static_cast<std::int64_t>(w.chunk_row[c + 1]);
  if (r1 == r0) return x;  // owns no row
  const std::int64_t rend = static_cast<std::int64_t>(row_ptr[r1]);
  if (rend <= (c + 1) * w.chunk) return x;  // its last row ends inside it
  const std::int64_t covered = (rend + w.chunk - 1) / w.chunk;
  x.row = r1 - 1;
  x.last = covered < w.nchunks ? covered : w.nchunks;
  return x;
}

/// Column col of a crossing row: chunk c's tail plus the heads of chunks c + 1 .. last - 1 (n
/// columns each), added in chunk order. The heads are loaded 8 at a time so that a row crossing
/// hundreds of chunks (a 1459-entry row of as20graph in 16-entry chunks) is not one dependent
/// load per chunk.
template <class S, class I, class T>
__device__ __forceinline__ T balanced_crossing_sum(const BalancedArgs<I, T>& w, std::int64_t c,
                                                   std::int64_t last, std::int64_t n,
                                                   std::int64_t col) {
  constexpr int kInFlight = 8;
  T acc = w.ws_tail[c * n + col];
  for (std::int64_t c2 = c + 1; c2 < last; c2 += kInFlight) {
    T h[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      if (c2 + u < last) h[u] = w.ws_head[(c2 + u) * n + col];
    }
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      if (c2 + u < last) acc = S::add(acc, h[u]);
    }
  }
  return acc;
}

/// One warp per chunk and slab of columns (grid.y slabs; the warp takes columns blockIdx.y·32 +
/// lane, stepping by 32·gridDim.y): a chunk whose last owned row runs past its end combines its
/// tail with the heads of the chunks that row covers, in chunk order, and stores the row.
template <class S, class I, class T>
__global__ void spmm_balanced_fixup_kernel(const I* __restrict__ row_ptr, BalancedArgs<I, T> w,
                                           std::int64_t n, T* __restrict__ c_out, std::int64_t ldc,
                                           DenseEpilogue<T> epi) {
  const std::int64_t c = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const CrossingRow x = balanced_crossing_row(row_ptr, w, c);
  if (x.row < 0) return;
  T* crow = c_out + out_row(w, x.row) * ldc;
  const std::int64_t step = 32 * static_cast<std::int64_t>(gridDim.y);
  for (std::int64_t col = static_cast<std::int64_t>(blockIdx.y) * 32 + lane; col < n; col += step) {
    store_finished(epi, crow + col, balanced_crossing_sum<S>(w, c, x.last, n, col), col);
  }
}

/// Column slabs of the fix-up: one warp per chunk walks all of N while there are enough chunks
/// to fill the GPU; with few chunks (small graphs, whose small chunks make a long row cover
/// hundreds of them) the columns are split over up to N/32 warps per chunk, so that the one
/// warp summing such a row's heads does not become the whole call's critical path. At most
/// kFixupWarps warps in all: most of them find nothing to do and leave.
inline std::int64_t balanced_fixup_slabs(std::int64_t nchunks, std::int64_t n) {
  constexpr std::int64_t kFixupWarps = std::int64_t{1} << 16;
  const std::int64_t most = (n + 31) / 32;
  const std::int64_t fit = nchunks > 0 ? kFixupWarps / nchunks : most;
  return std::max<std::int64_t>(1, std::min<std::int64_t>({most, fit, 65535}));
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

/// Which form of nnz_balanced_seq runs: chosen by size, or forced (tests, tuning).
enum class BalancedForm : std::uint8_t { BySize, Group, Warp };

/// True when a call runs the group-per-chunk form (see spmm_nnz_balanced_group_kernel). Below
/// kSpmmGroupFormMinNnz entries (spmm_limits.hpp, which the planner reads too) the warp-per-chunk
/// form is used at every width: on graphs of 26K-84K entries it beat the group form 2-10x at
/// every N measured, since small graphs need its small chunks to fill the GPU; from 16M entries
/// on the group form won for G >= 4.
inline bool balanced_uses_group_form(std::int64_t nnz, int G,
                                     BalancedForm form = BalancedForm::BySize) {
  if (form != BalancedForm::BySize) return form == BalancedForm::Group;
  return G >= 4 && nnz >= kSpmmGroupFormMinNnz;
}

/// Columns per lane of the warp form, and of the lane count that picks the form: 16 bytes when
/// B and C allow it, else one value.
template <class I, class V, class T>
int balanced_seq_vec(const SpmmArgs<I, V, T>& a) {
  constexpr int kWide = static_cast<int>(16 / sizeof(T));
  return seq_vec_for(a) == kWide ? kWide : 1;
}

/// Columns per lane of the group form: 8-byte fragments up to N = 16 (G = 8 lanes at N = 16
/// floats), 16 bytes above, as far as B's and C's alignment allow. With the row walk 8 bytes won
/// up to N = 64 (R-MAT 22 N = 32: 2.99 against 3.13 ms); with the entry walk 16 bytes win from
/// N = 32 (H100, R-MAT 22 N = 32 / 64: 1.92 / 3.40 ms against 2.24 / 4.04; R-MAT
/// 20: 0.45 / 0.72 against 0.57 / 0.98). N = 16 keeps 8 bytes: 1.58 ms in chunks of 128; 16
/// bytes were measured only in chunks of 256 (2.97 ms, one block per SM for want of shared
/// memory).
template <class I, class V, class T>
int balanced_group_vec(const SpmmArgs<I, V, T>& a) {
  const int want = static_cast<int>((a.n <= 16 ? 8 : 16) / sizeof(T));
  int v = seq_vec_for(a);
  while (v > want && v > 1) v /= 2;
  return v;
}

/// Launches the group form with finisher `fin`, which takes `smem` bytes of dynamic shared
/// memory beside the windows (set as the kernel's limit when there are any).
template <class S, class I, class V, class T, int VEC, class Fin>
void launch_balanced_group_fin(const SpmmArgs<I, V, T>& a, const BalancedArgs<I, T>& w,
                               std::int64_t tile, const Fin& fin, std::size_t smem,
                               cudaStream_t stream) {
  const int G = seq_group_lanes(a.n, VEC, tile);
  const std::int64_t width = static_cast<std::int64_t>(G) * VEC;
  const dim3 grid(static_cast<unsigned>((w.nchunks * G + kSpmmBlock - 1) / kSpmmBlock),
                  static_cast<unsigned>((a.n + width - 1) / width));
  auto launch = [&](auto kernel) {
    if (smem > 0) {
      SPINDLE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(smem)));
    }
    kernel<<<grid, kSpmmBlock, smem, stream>>>(a, w, log2_int(G), fin);
  };
  launch(spmm_nnz_balanced_group_kernel<S, I, V, T, VEC, Fin>);
}

/// The group form with VEC-element fragments: compiled for 16-byte fragments (N > 16) and 8-byte
/// ones (N <= 16) alone (spmm_group_form_vec), the fused bias epilogues for the 16-byte form
/// (GCN's widths) only; other epilogues run through the generic finisher.
template <class S, class I, class V, class T, int VEC>
void launch_balanced_group_vec(const SpmmArgs<I, V, T>& a, const BalancedArgs<I, T>& w,
                               std::int64_t tile, cudaStream_t stream) {
  constexpr bool kFused = kFusedBiasEpilogue<S> && VEC * sizeof(T) == 16;
  dispatch_epilogue<S, kFused>(a.epi, [&](auto kind) {
    launch_balanced_group_fin<S, I, V, T, VEC>(a, w, tile, GroupStore<decltype(kind)::value>{}, 0,
                                               stream);
  });
}

/// Launches the main pass, the empty-row pass (warp form only: the group form writes empty
/// rows itself) and the fix-up. w.chunk_row must be ready, and w.row_idx for the warp form.
template <class S, class I, class V, class T>
void launch_spmm_nnz_balanced_seq(const SpmmArgs<I, V, T>& a, const BalancedArgs<I, T>& w,
                                  std::int64_t tile, BalancedForm form, cudaStream_t stream) {
  constexpr int kWide = static_cast<int>(16 / sizeof(T));
  const int vec = balanced_seq_vec(a);
  const int G = seq_group_lanes(a.n, vec, tile);
  const std::int64_t width = static_cast<std::int64_t>(G) * vec;
  const auto ytiles = static_cast<unsigned>((a.n + width - 1) / width);
  if (w.nchunks == 0) {
    // No entries: every row is empty (the warp form's empty-row pass below writes them).
    form = BalancedForm::Warp;
  } else if (balanced_uses_group_form(w.nnz, G, form) &&
             spmm_group_form_fits(a.n, static_cast<std::int64_t>(sizeof(T)))) {
    // The planner asks for the group form only where its fragments fit N; ASpT's long-row pass
    // (BySize) keeps the warp form otherwise.
    if (balanced_group_vec(a) * sizeof(T) == 16) {
      launch_balanced_group_vec<S, I, V, T, static_cast<int>(16 / sizeof(T))>(a, w, tile, stream);
    } else {
      launch_balanced_group_vec<S, I, V, T, static_cast<int>(8 / sizeof(T))>(a, w, tile, stream);
    }
  } else {
    form = BalancedForm::Warp;
    const dim3 grid(static_cast<unsigned>((w.nchunks * 32 + kSpmmBlock - 1) / kSpmmBlock), ytiles);
    if (vec == kWide) {
      spmm_nnz_balanced_seq_kernel<S, I, V, T, kWide>
          <<<grid, kSpmmBlock, 0, stream>>>(a, w, log2_int(G));
    } else {
      spmm_nnz_balanced_seq_kernel<S, I, V, T, 1>
          <<<grid, kSpmmBlock, 0, stream>>>(a, w, log2_int(G));
    }
  }
  if (form == BalancedForm::Warp || !balanced_uses_group_form(w.nnz, G, form)) {
    spmm_empty_rows_kernel<I, T>
        <<<static_cast<unsigned>((a.rows + kSpmmBlock - 1) / kSpmmBlock), kSpmmBlock, 0, stream>>>(
            a.row_ptr, a.rows, a.n, a.c, a.ldc, a.epi, a.identity, w.row_map);
  }
  if (w.nchunks > 1) {
    const std::int64_t threads = (w.nchunks - 1) * 32;
    const dim3 grid(static_cast<unsigned>((threads + kSpmmBlock - 1) / kSpmmBlock),
                    static_cast<unsigned>(balanced_fixup_slabs(w.nchunks, a.n)));
    spmm_balanced_fixup_kernel<S, I, T>
        <<<grid, kSpmmBlock, 0, stream>>>(a.row_ptr, w, a.n, a.c, a.ldc, a.epi);
  }
}

}  // namespace spindle::detail::cuda
