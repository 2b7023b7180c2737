// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file spgemm_kernels.cuh
/// @brief The CUDA sparse x sparse mxm kernels, for any built-in semiring as run-time operator
/// codes (RuntimeSemiring<T>): one instantiation per value type x index type.
///
/// Row-wise (Gustavson) form, two phases over rows binned by their work:
///   - rows of A with one entry (unmasked): B's row times it, copied by a warp (no symbolic
///     pass: their entries are their products);
///   - rows of at most kEscMaxProducts products: ESC in a warp (each lane expands one product,
///     the warp sorts them by column, equal columns are compressed);
///   - rows whose bound fits a shared-memory hash table of up to kSmemTableMax slots: a group of
///     threads (a warp up to a block) per row, open addressing with linear probing, the filled
///     slots then moved to the front and sorted by a bitonic network in shared memory; B's rows
///     of 32 or more entries are read by whole warps;
///   - longer rows: a dense accumulator of cols(C) values and a bit per column per block, read
///     back in column order, so no sort is needed: in shared memory where cols(C) is small
///     enough (and then also for the rows whose table would hold a quarter of the columns or
///     more), else in global memory ("slabs").
/// The symbolic phase counts each row's distinct columns (bins from the products), the scan
/// makes C's offsets, and the numeric phase (bins from the exact counts) writes each row sorted.
/// The hash and ESC kernels follow the binned row-wise designs of Nagasaka et al. (High-
/// performance and memory-saving sparse general matrix-matrix multiplication for NVIDIA Pascal
/// GPU) and Dalton et al. (Optimizing sparse matrix-matrix multiplication for the GPU).
///
/// Masked dot form: one thread per mask entry (i,j) intersects A(i,:) with B^T(j,:), both
/// sorted, by a merge or, when one side is 16 times shorter, by binary searches.
///
/// A mask on the row-wise form is applied per product by a binary search in the mask's row.

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "ops/core/spgemm.hpp"
#include "spindle/cuda/device_views.hpp"
#include "spindle/semiring.hpp"

namespace spindle::detail::cuda::spgemm {

inline constexpr int kEscMaxProducts = 32;
inline constexpr int kSmemTableMax = 8192;
inline constexpr unsigned kFullMask = 0xffffffffu;

// Operands are the engine's DeviceCsr (spindle/cuda/device_views.hpp; values == nullptr: every
// entry is 1) and the mask the host side's MaskView (ops/core/spgemm.hpp; rp == nullptr: none),
// here holding device pointers.

/// Column keys as atomicCAS takes them.
template <class I>
using Key = std::conditional_t<sizeof(I) == 8, unsigned long long, unsigned int>;

template <class I>
__device__ __forceinline__ Key<I> empty_key() {
  return static_cast<Key<I>>(~Key<I>(0));
}

template <class T, class I>
__device__ __forceinline__ T value_of(const DeviceCsr<I, T>& m, std::int64_t k) {
  return m.values != nullptr ? m.values[k] : T(1);
}

/// The first index in [lo, hi) of ci whose column is >= j.
template <class I>
__device__ __forceinline__ std::int64_t lower_bound(const I* ci, std::int64_t lo, std::int64_t hi,
                                                    std::int64_t j) {
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) >> 1;
    if (static_cast<std::int64_t>(ci[mid]) < j) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Whether column j of row i is allowed by the mask (a binary search in the mask's row).
template <class I>
__device__ __forceinline__ bool mask_allows(const MaskView<I>& M, std::int64_t i, std::int64_t j) {
  if (M.rp == nullptr) return true;
  const std::int64_t end = M.rp[i + 1];
  const std::int64_t at = lower_bound(M.ci, static_cast<std::int64_t>(M.rp[i]), end, j);
  const bool in = at < end && static_cast<std::int64_t>(M.ci[at]) == j;
  return in != M.complement;
}

// ---- atomics for any built-in monoid ------------------------------------------------------------

__device__ __forceinline__ unsigned int to_bits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ unsigned long long to_bits(double x) {
  return static_cast<unsigned long long>(__double_as_longlong(x));
}
__device__ __forceinline__ float from_bits(unsigned int u) { return __uint_as_float(u); }
__device__ __forceinline__ double from_bits(unsigned long long u) {
  return __longlong_as_double(static_cast<long long>(u));
}

/// *p = add(*p, x) atomically (shared or global memory): atomicAdd for plus, else a CAS loop.
template <class T>
__device__ __forceinline__ void atomic_add_op(AddOp op, T* p, T x) {
  if (op == AddOp::Plus) {
    atomicAdd(p, x);
    return;
  }
  using U = decltype(to_bits(x));
  U* q = reinterpret_cast<U*>(p);
  U old = *reinterpret_cast<volatile U*>(q);
  while (true) {
    const U next = to_bits(apply_add(op, from_bits(old), x));
    if (next == old) return;
    const U seen = atomicCAS(q, old, next);
    if (seen == old) return;
    old = seen;
  }
}

// ---- work per row and binning
// --------------------------------------------------------------------

/// The bins: 0 none, 1 ESC, 2.. hash tables of kTable[b] slots, last the dense slab. Bin 0's
/// list holds the copy rows: rows of A with one entry (and no mask), whose row of C is B's row
/// times that entry, already sorted and exact, so no table, sort or symbolic pass is needed.
inline constexpr int kBins = 7;
inline constexpr int kBinNone = 0;
inline constexpr int kBinCopy = 0;
inline constexpr int kBinEsc = 1;
inline constexpr int kBinDense = kBins - 1;
/// Slots of bins 2..5 (load factor at most 1/2 of the row's bound).
__host__ __device__ constexpr int bin_table(int b) {
  return b == 2 ? 128 : b == 3 ? 512 : b == 4 ? 2048 : b == 5 ? kSmemTableMax : 0;
}

/// Bin of a row whose distinct columns are at most `bound` (`products` products): `esc_max`
/// products or fewer go to ESC (0 disables it), then the smallest table of at least 2 x bound
/// slots up to `table_max`, else the dense slab.
__host__ __device__ inline int bin_of(std::int64_t products, std::int64_t bound, int esc_max,
                                      int table_max) {
  if (products == 0 || bound == 0) return kBinNone;
  if (products <= esc_max) return kBinEsc;
  for (int b = 2; b < kBinDense; ++b) {
    if (bin_table(b) <= table_max && 2 * bound <= bin_table(b)) return b;
  }
  return kBinDense;
}

/// Appends row i to its bin's list (bin_of; `work` products or exact entries, the bound
/// min(work, cols)), or to the copy list when `copy`. Rows whose table would have `dense_table`
/// slots or more go to the dense bin instead (when its accumulator is in shared memory and
/// that many slots cost about as much as a pass over every column).
__device__ __forceinline__ void bin_row(std::int64_t i, std::int64_t work, std::int64_t products,
                                        bool copy, std::int64_t cols, int esc_max, int table_max,
                                        int dense_table, std::int64_t capacity,
                                        unsigned int* counts, std::int64_t* lists) {
  const std::int64_t bound = work < cols ? work : cols;
  int b = copy ? kBinCopy : bin_of(products, bound, esc_max, table_max);
  if (b > kBinEsc && b < kBinDense && bin_table(b) >= dense_table) b = kBinDense;
  if (b == kBinNone && !copy) return;
  const unsigned int at = atomicAdd(&counts[b], 1u);
  lists[b * capacity + at] = i;
}

/// Whether row i is a copy row: one entry of A with products, and no mask (`unmasked`).
template <class I>
__device__ __forceinline__ bool copy_row(const I* a_rp, std::int64_t i, std::int64_t products,
                                         bool unmasked) {
  return unmasked && products > 0 && static_cast<std::int64_t>(a_rp[i + 1]) - a_rp[i] == 1;
}

/// flops[i] = Σ_{k in A(i,:)} nnz(B(k,:)), one warp per row, and the row appended to its
/// symbolic bin (bin_row with the products as the work). A copy row's entries are its
/// products (B's rows hold no duplicate columns): they go to `entries` here.
template <class I, class T>
__global__ void row_flops_kernel(DeviceCsr<I, T> A, DeviceCsr<I, T> B, bool unmasked,
                                 std::int64_t* flops, std::int64_t* entries, int esc_max,
                                 int table_max, int dense_table, unsigned int* bin_counts,
                                 std::int64_t* lists) {
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (warp >= A.rows) return;
  std::int64_t s = 0;
  for (std::int64_t k = A.row_ptr[warp] + lane; k < A.row_ptr[warp + 1]; k += 32) {
    const std::int64_t c = A.col_idx[k];
    s += static_cast<std::int64_t>(B.row_ptr[c + 1]) - static_cast<std::int64_t>(B.row_ptr[c]);
  }
  for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(kFullMask, s, off);
  if (lane == 0) {
    flops[warp] = s;
    const bool copy = copy_row(A.row_ptr, warp, s, unmasked);
    if (copy) entries[warp] = s;
    bin_row(warp, s, s, copy, B.cols, esc_max, table_max, dense_table, A.rows, bin_counts, lists);
  }
}

/// Appends each row to its numeric bin, from its exact entries `work[i]`. (A template only so
/// that each translation unit has its own.)
template <class I>
__global__ void bin_rows_kernel(std::int64_t rows, const I* a_rp, bool unmasked,
                                const std::int64_t* work, const std::int64_t* products,
                                std::int64_t cols, int esc_max, int table_max, int dense_table,
                                std::int64_t capacity, unsigned int* counts, std::int64_t* lists) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const std::int64_t p = products[i];
  bin_row(i, work[i], p, copy_row(a_rp, i, p, unmasked), cols, esc_max, table_max, dense_table,
          capacity, counts, lists);
}

/// Numeric phase of the copy rows: C(i,:) = A(i,k) ⊗ B(k,:) for A's one entry k, a warp per
/// row, in B's (sorted) order.
template <class I, class T>
__global__ void copy_kernel(RuntimeSemiring<T> s, DeviceCsr<I, T> A, DeviceCsr<I, T> B,
                            const std::int64_t* rows, std::int64_t n_rows, const I* crp, I* cci,
                            T* cv) {
  const std::int64_t w = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (w >= n_rows) return;
  const std::int64_t i = rows[w];
  const std::int64_t ka = A.row_ptr[i];
  const std::int64_t k = A.col_idx[ka];
  const T a = value_of(A, ka);
  const std::int64_t b0 = B.row_ptr[k];
  const std::int64_t n = static_cast<std::int64_t>(B.row_ptr[k + 1]) - b0;
  const std::int64_t o = crp[i];
  for (std::int64_t x = lane; x < n; x += 32) {
    cci[o + x] = B.col_idx[b0 + x];
    cv[o + x] = s.mul(a, value_of(B, b0 + x));
  }
}

// ---- ESC: a warp per row of at most 32 products ------------------------------------------------

/// Symbolic (kNumeric false): counts[i] = distinct allowed columns. Numeric: writes the row at
/// C.rp[i] sorted. The products of the row are numbered in A's order; lane l computes product l.
template <bool kNumeric, class I, class T>
__global__ void esc_kernel(RuntimeSemiring<T> s, DeviceCsr<I, T> A, DeviceCsr<I, T> B,
                           MaskView<I> M, const std::int64_t* rows, std::int64_t n_rows,
                           std::int64_t* counts, const I* crp, I* cci, T* cv) {
  const std::int64_t w = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (w >= n_rows) return;
  const std::int64_t i = rows[w];
  // Find this lane's product: walk A's row accumulating B's row lengths (rows are short).
  Key<I> key = empty_key<I>();
  T val = T(0);
  std::int64_t before = 0;
  for (std::int64_t ka = A.row_ptr[i]; ka < A.row_ptr[i + 1]; ++ka) {
    const std::int64_t k = A.col_idx[ka];
    const std::int64_t b0 = B.row_ptr[k];
    const std::int64_t len = static_cast<std::int64_t>(B.row_ptr[k + 1]) - b0;
    if (lane >= before && lane < before + len) {
      const std::int64_t kb = b0 + (lane - before);
      const std::int64_t j = B.col_idx[kb];
      if (mask_allows(M, i, j)) {
        key = static_cast<Key<I>>(j);
        if constexpr (kNumeric) val = s.mul(value_of(A, ka), value_of(B, kb));
      }
    }
    before += len;
  }
  // Bitonic sort of (key, val) over the 32 lanes; ties keep no particular order.
  for (int k = 2; k <= 32; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      const Key<I> ok = __shfl_xor_sync(kFullMask, key, j);
      T ov = val;
      if constexpr (kNumeric) ov = __shfl_xor_sync(kFullMask, val, j);
      const bool up = (lane & k) == 0;
      const bool lower = (lane & j) == 0;
      // The lower lane of an ascending pair keeps the smaller key.
      const bool take = lower == up ? (ok < key) : (key < ok);
      if (take) {
        key = ok;
        val = ov;
      }
    }
  }
  // Compress equal keys: the first lane of each run sums the run (lanes in order).
  const Key<I> prev = __shfl_up_sync(kFullMask, key, 1);
  const bool head = key != empty_key<I>() && (lane == 0 || prev != key);
  const unsigned heads = __ballot_sync(kFullMask, head);
  if constexpr (!kNumeric) {
    if (lane == 0) counts[i] = __popc(heads);
    (void)s;
    (void)crp;
    (void)cci;
    (void)cv;
  } else {
    (void)counts;
    T acc = val;
    // Reduce runs: every lane adds the values of the following lanes of its run, in order.
    for (int l = 1; l < 32; ++l) {
      const Key<I> nk = __shfl_sync(kFullMask, key, (lane + l) & 31);
      const T nv = __shfl_sync(kFullMask, val, (lane + l) & 31);
      if (lane + l < 32 && nk == key) acc = s.add(acc, nv);
    }
    if (head) {
      const int pos = __popc(heads & ((1u << lane) - 1u));
      const std::int64_t o = static_cast<std::int64_t>(crp[i]) + pos;
      cci[o] = static_cast<I>(key);
      cv[o] = acc;
    }
  }
}

// ---- hash tables in shared memory: a group of kGroup threads per row ---------------------------

template <int kGroup>
__device__ __forceinline__ void group_sync() {
  if constexpr (kGroup <= 32) {
    __syncwarp();
  } else {
    __syncthreads();
  }
}

__device__ __forceinline__ std::uint32_t hash_of(std::uint64_t j) {
  return static_cast<std::uint32_t>((j * 0x9E3779B97F4A7C15ull) >> 32);
}

/// Inserts key j (into keys[0, size)); returns its slot and whether it was new.
template <class K>
__device__ __forceinline__ std::int64_t hash_insert(K* keys, std::int64_t size, K j, bool* fresh) {
  std::int64_t h = hash_of(j) & (size - 1);
  while (true) {
    const K seen = atomicCAS(keys + h, static_cast<K>(~K(0)), j);
    if (seen == static_cast<K>(~K(0))) {
      *fresh = true;
      return h;
    }
    if (seen == j) {
      *fresh = false;
      return h;
    }
    h = (h + 1) & (size - 1);
  }
}

/// log2 of the lanes per entry of A for row i, when a group of 2^log2_group threads takes it:
/// at least `log2_lanes` (B's mean row, for coalesced reads of B), and more when A's row is
/// shorter than the group, so that every thread works. A row of 2 entries that reaches a hub
/// (2 x 1,460 products on as20graph) then has 256 lanes per entry instead of 4 while 504
/// threads of the group wait.
__device__ __forceinline__ int row_log2_lanes(std::int64_t a_entries, int log2_lanes,
                                              int log2_group) {
  int l = 0;
  while (l < log2_group && (std::int64_t{1} << l) < a_entries) ++l;  // log2_ceil, capped
  const int fill = log2_group - l;
  return fill > log2_lanes ? fill : log2_lanes;
}

/// B rows of at least this many entries are read by a whole warp (kLongB lanes) in a second
/// pass, instead of by one subgroup of `lanes` < kLongB lanes: a hub's row of B inside a long
/// row of A was otherwise one subgroup's serial work while the rest of the group waited.
inline constexpr int kLongB = 32;

/// Calls f(ka, kb) for every product A(i, k) B(k, j) of row i, by the calling thread's share:
/// subgroups of 2^log2_lanes threads (row_log2_lanes) take A's entries in turn and stride over
/// B's row; when the subgroups are narrower than a warp, entries whose B row has kLongB or more
/// entries are left to a second pass where the group's warps take them in turn, 32 lanes each.
/// `gt` is the thread's index in the group of kGroup (a multiple of 32) threads.
template <int kGroup, class I, class T, class F>
__device__ __forceinline__ void for_each_product(const DeviceCsr<I, T>& A, const DeviceCsr<I, T>& B,
                                                 std::int64_t i, int log2_lanes, int gt, F&& f) {
  const int lanes = 1 << log2_lanes;
  const int sub = gt >> log2_lanes;
  const int subs = kGroup >> log2_lanes;
  const int lane = gt & (lanes - 1);
  const bool split = lanes < kLongB;
  const std::int64_t a0 = A.row_ptr[i];
  const std::int64_t a1 = A.row_ptr[i + 1];
  for (std::int64_t ka = a0 + sub; ka < a1; ka += subs) {
    const std::int64_t k = A.col_idx[ka];
    const std::int64_t b0 = B.row_ptr[k];
    const std::int64_t b1 = B.row_ptr[k + 1];
    if (split && b1 - b0 >= kLongB) continue;  // the second pass takes it
    for (std::int64_t kb = b0 + lane; kb < b1; kb += lanes) f(ka, kb);
  }
  if (!split) return;
  const int warp = gt >> 5;
  const int wl = gt & 31;
  for (std::int64_t ka = a0 + warp; ka < a1; ka += kGroup / 32) {
    const std::int64_t k = A.col_idx[ka];
    const std::int64_t b0 = B.row_ptr[k];
    const std::int64_t b1 = B.row_ptr[k + 1];
    if (b1 - b0 < kLongB) continue;
    for (std::int64_t kb = b0 + wl; kb < b1; kb += 32) f(ka, kb);
  }
}

/// Adds the row's products to the table (keys, and values when kNumeric); returns the number
/// of fresh keys this thread inserted.
template <bool kNumeric, int kGroup, class I, class T, class K>
__device__ std::int64_t accumulate_row(const RuntimeSemiring<T>& s, const DeviceCsr<I, T>& A,
                                       const DeviceCsr<I, T>& B, const MaskView<I>& M,
                                       std::int64_t i, K* keys, T* vals, std::int64_t size,
                                       int log2_lanes, int gt) {
  constexpr int kLog2Group = kGroup == 32 ? 5 : kGroup == 64 ? 6 : kGroup == 128 ? 7 : 9;
  static_assert((1 << kLog2Group) == kGroup, "groups of 32, 64, 128 or 512 threads");
  log2_lanes = row_log2_lanes(static_cast<std::int64_t>(A.row_ptr[i + 1]) - A.row_ptr[i],
                              log2_lanes, kLog2Group);
  std::int64_t fresh_count = 0;
  for_each_product<kGroup>(A, B, i, log2_lanes, gt, [&](std::int64_t ka, std::int64_t kb) {
    const std::int64_t j = B.col_idx[kb];
    if (!mask_allows(M, i, j)) return;
    bool fresh = false;
    const std::int64_t h = hash_insert(keys, size, static_cast<K>(j), &fresh);
    fresh_count += fresh ? 1 : 0;
    if constexpr (kNumeric) {
      atomic_add_op(s.add_code, vals + h, s.mul(value_of(A, ka), value_of(B, kb)));
    }
  });
  return fresh_count;
}

/// Sorts keys[0, size) ascending (with vals), size a power of two, by the group.
template <bool kNumeric, int kGroup, class K, class T>
__device__ void group_bitonic_sort(K* keys, T* vals, std::int64_t size, int gt) {
  for (std::int64_t k = 2; k <= size; k <<= 1) {
    for (std::int64_t j = k >> 1; j > 0; j >>= 1) {
      for (std::int64_t x = gt; x < size; x += kGroup) {
        const std::int64_t y = x ^ j;
        if (y > x) {
          const bool up = (x & k) == 0;
          const K kx = keys[x];
          const K ky = keys[y];
          if ((kx > ky) == up) {
            keys[x] = ky;
            keys[y] = kx;
            if constexpr (kNumeric) {
              const T t = vals[x];
              vals[x] = vals[y];
              vals[y] = t;
            }
          }
        }
      }
      group_sync<kGroup>();
    }
  }
}

/// Most slots per thread of a table (bin_table(b) / its group: 4, 8, 16, 16).
inline constexpr int kMaxSlotsPerThread = 16;

/// Moves the table's filled slots to its front and empties the slots after them up to the next
/// power of two, which it returns: the size the sort then needs (tables are at least twice
/// the row, so at most half of the table, and often far less). Groups that share a block's
/// barriers (kGroup > 32 with several groups per block) get the largest size among them, so
/// that they all sort the same number of steps. `fill` is the block's per-group counters.
template <int kGroup, int kGroups, class K, class T>
__device__ std::int64_t compact_table(K* keys, T* vals, int table, int gt, unsigned long long* fill,
                                      int g) {
  K k[kMaxSlotsPerThread];
  T v[kMaxSlotsPerThread];
  const int per = table / kGroup;
  int mine = 0;
#pragma unroll
  for (int t = 0; t < kMaxSlotsPerThread; ++t) {
    if (t < per) {
      k[t] = keys[gt + t * kGroup];
      v[t] = vals[gt + t * kGroup];
      mine += k[t] != static_cast<K>(~K(0)) ? 1 : 0;
    }
  }
  if (gt == 0) fill[g] = 0;
  group_sync<kGroup>();
  std::int64_t at =
      mine != 0
          ? static_cast<std::int64_t>(atomicAdd(&fill[g], static_cast<unsigned long long>(mine)))
          : 0;
  group_sync<kGroup>();
#pragma unroll
  for (int t = 0; t < kMaxSlotsPerThread; ++t) {
    if (t < per && k[t] != static_cast<K>(~K(0))) {
      keys[at] = k[t];
      vals[at] = v[t];
      ++at;
    }
  }
  std::int64_t n = static_cast<std::int64_t>(fill[g]);
  if constexpr (kGroup > 32 && kGroups > 1) {
    for (int x = 0; x < kGroups; ++x) {
      const std::int64_t f = static_cast<std::int64_t>(fill[x]);
      n = f > n ? f : n;
    }
  }
  std::int64_t size = 1;
  while (size < n) size <<= 1;
  for (std::int64_t x = static_cast<std::int64_t>(fill[g]) + gt; x < size; x += kGroup) {
    keys[x] = static_cast<K>(~K(0));
  }
  group_sync<kGroup>();
  return size;
}

/// One row per group of kGroup threads, kBlock / kGroup groups per block, `table` slots each in
/// dynamic shared memory (keys, then values when kNumeric).
template <bool kNumeric, int kGroup, int kBlock, class I, class T>
__global__ void __launch_bounds__(kBlock)
    hash_kernel(RuntimeSemiring<T> s, T identity, DeviceCsr<I, T> A, DeviceCsr<I, T> B,
                MaskView<I> M, const std::int64_t* rows, std::int64_t n_rows, int table,
                int log2_lanes, std::int64_t* counts, const I* crp, I* cci, T* cv) {
  using K = Key<I>;
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int kGroups = kBlock / kGroup;
  const int g = threadIdx.x / kGroup;
  const int gt = threadIdx.x % kGroup;
  T* vals_all = reinterpret_cast<T*>(smem);  // values first: the wider type keeps alignment
  K* keys_all = reinterpret_cast<K*>(smem + (kNumeric ? sizeof(T) * table * kGroups : 0));
  K* keys = keys_all + static_cast<std::int64_t>(g) * table;
  T* vals = vals_all + static_cast<std::int64_t>(g) * table;
  __shared__ unsigned long long fresh_total[kGroups];
  const std::int64_t w = static_cast<std::int64_t>(blockIdx.x) * kGroups + g;
  const bool live = w < n_rows;  // every thread reaches the group's barriers
  for (int x = gt; x < table; x += kGroup) {
    keys[x] = static_cast<K>(~K(0));
    if constexpr (kNumeric) vals[x] = identity;
  }
  if (gt == 0) fresh_total[g] = 0;
  group_sync<kGroup>();
  const std::int64_t i = live ? rows[w] : 0;
  std::int64_t fresh = 0;
  if (live) {
    fresh = accumulate_row<kNumeric, kGroup>(s, A, B, M, i, keys, vals, table, log2_lanes, gt);
  }
  if constexpr (!kNumeric) {
    if (fresh != 0) atomicAdd(&fresh_total[g], static_cast<unsigned long long>(fresh));
    group_sync<kGroup>();
    if (live && gt == 0) counts[i] = static_cast<std::int64_t>(fresh_total[g]);
    (void)crp;
    (void)cci;
    (void)cv;
  } else {
    (void)fresh;
    (void)counts;
    group_sync<kGroup>();
    const std::int64_t size = compact_table<kGroup, kGroups>(keys, vals, table, gt, fresh_total, g);
    group_bitonic_sort<true, kGroup>(keys, vals, size, gt);
    if (live) {
      const std::int64_t o = crp[i];
      const std::int64_t n = static_cast<std::int64_t>(crp[i + 1]) - o;
      for (std::int64_t x = gt; x < n; x += kGroup) {
        cci[o + x] = static_cast<I>(keys[x]);
        cv[o + x] = vals[x];
      }
    }
  }
}

// ---- dense accumulators: a block per row, in shared memory or in global slabs ------------------

inline constexpr int kDenseBlock = 512;
inline constexpr int kLog2DenseBlock = 9;
static_assert((1 << kLog2DenseBlock) == kDenseBlock, "kLog2DenseBlock is log2(kDenseBlock)");

/// The most dynamic shared memory a dense accumulator takes (the default limit, no opt-in).
inline constexpr std::int64_t kDenseSmemMax = 48 * 1024;

/// Bytes of a shared dense accumulator over `cols` columns: the values (numeric; padded to 16
/// bytes), then a bit per column.
__host__ __device__ constexpr std::int64_t dense_smem_bytes(std::int64_t cols,
                                                            std::int64_t value_bytes, bool values) {
  return (values ? (cols * value_bytes + 15) / 16 * 16 : 0) + (cols + 31) / 32 * 4;
}

/// Rows of the dense bin, block b taking rows b, b + gridDim.x, ... The accumulator (values,
/// the identity between rows, and a bit per column, zero between rows) is the block's dynamic
/// shared memory when kShared, else slab b of global memory: `vals` + b * cols and `bits` +
/// b * words.
template <bool kNumeric, bool kShared, class I, class T>
__global__ void __launch_bounds__(kDenseBlock)
    dense_kernel(RuntimeSemiring<T> s, T identity, DeviceCsr<I, T> A, DeviceCsr<I, T> B,
                 MaskView<I> M, const std::int64_t* rows, std::int64_t n_rows, int log2_lanes,
                 T* slab_vals, unsigned int* slab_bits, std::int64_t* counts, const I* crp, I* cci,
                 T* cv) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ unsigned int warp_sums[kDenseBlock / 32];
  __shared__ unsigned long long base;
  const std::int64_t cols = B.cols;
  const std::int64_t words = (cols + 31) / 32;
  T* vals = nullptr;
  unsigned int* bits = nullptr;
  if constexpr (kShared) {
    vals = kNumeric ? reinterpret_cast<T*>(smem) : nullptr;
    bits = reinterpret_cast<unsigned int*>(smem + dense_smem_bytes(cols, sizeof(T), kNumeric) -
                                           words * 4);
    for (std::int64_t x = threadIdx.x; x < words; x += kDenseBlock) bits[x] = 0;
    if constexpr (kNumeric) {
      for (std::int64_t x = threadIdx.x; x < cols; x += kDenseBlock) vals[x] = identity;
    }
    __syncthreads();
    (void)slab_vals;
    (void)slab_bits;
  } else {
    vals = kNumeric ? slab_vals + static_cast<std::int64_t>(blockIdx.x) * cols : nullptr;
    bits = slab_bits + static_cast<std::int64_t>(blockIdx.x) * words;
  }
  const int warp = threadIdx.x >> 5;
  const int wl = threadIdx.x & 31;
  // Each thread owns a contiguous run of words when reading the row back.
  const std::int64_t per = (words + kDenseBlock - 1) / kDenseBlock;
  const std::int64_t w0 = per * threadIdx.x < words ? per * threadIdx.x : words;
  const std::int64_t w1 = w0 + per < words ? w0 + per : words;
  for (std::int64_t r = blockIdx.x; r < n_rows; r += gridDim.x) {
    const std::int64_t i = rows[r];
    const int l2 = row_log2_lanes(static_cast<std::int64_t>(A.row_ptr[i + 1]) - A.row_ptr[i],
                                  log2_lanes, kLog2DenseBlock);
    for_each_product<kDenseBlock>(A, B, i, l2, threadIdx.x, [&](std::int64_t ka, std::int64_t kb) {
      const std::int64_t j = B.col_idx[kb];
      if (!mask_allows(M, i, j)) return;
      const unsigned int bit = 1u << (j & 31);
      if ((bits[j >> 5] & bit) == 0) atomicOr(bits + (j >> 5), bit);
      if constexpr (kNumeric) {
        atomic_add_op(s.add_code, vals + j, s.mul(value_of(A, ka), value_of(B, kb)));
      }
    });
    __syncthreads();
    unsigned int mine = 0;
    for (std::int64_t x = w0; x < w1; ++x) mine += __popc(bits[x]);
    // Block exclusive scan of `mine` (warps, then the warp sums in order).
    unsigned int incl = mine;
    for (int off = 1; off < 32; off <<= 1) {
      const unsigned int t = __shfl_up_sync(kFullMask, incl, off);
      if (wl >= off) incl += t;
    }
    if (wl == 31) warp_sums[warp] = incl;
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned long long run = 0;
      for (int x = 0; x < kDenseBlock / 32; ++x) {
        const unsigned int t = warp_sums[x];
        warp_sums[x] = static_cast<unsigned int>(run);
        run += t;
      }
      base = run;
    }
    __syncthreads();
    if constexpr (!kNumeric) {
      if (threadIdx.x == 0) counts[i] = static_cast<std::int64_t>(base);
      for (std::int64_t x = w0; x < w1; ++x) bits[x] = 0;
      (void)crp;
      (void)cci;
      (void)cv;
      (void)identity;
    } else {
      (void)counts;
      std::int64_t o = static_cast<std::int64_t>(crp[i]) + warp_sums[warp] + (incl - mine);
      for (std::int64_t x = w0; x < w1; ++x) {
        unsigned int b = bits[x];
        if (b == 0) continue;
        bits[x] = 0;
        while (b != 0) {
          const int t = __ffs(b) - 1;
          b &= b - 1;
          const std::int64_t j = x * 32 + t;
          cci[o] = static_cast<I>(j);
          cv[o] = vals[j];
          vals[j] = identity;
          ++o;
        }
      }
    }
    __syncthreads();  // the accumulator is clean before the next row
  }
}

/// Sets a slab's values to the identity (once, when it is made).
template <class T>
__global__ void fill_kernel(T* p, std::int64_t n, T x) {
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    p[k] = x;
  }
}

// ---- masked dot: a thread per mask entry --------------------------------------------------------

/// For mask entry e = (i, j): val[e] = A(i,:) ⊕.⊗ Bt(j,:), flag[e] whether any product exists.
/// `mask_rows[e]` is i.
template <class I, class T>
__global__ void dot_kernel(RuntimeSemiring<T> s, T identity, DeviceCsr<I, T> A, DeviceCsr<I, T> Bt,
                           const I* mrp, const I* mci, std::int64_t mask_nnz, std::int64_t rows,
                           T* val, unsigned char* flag) {
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= mask_nnz) return;
  // The row of entry e: the last row whose offset is <= e.
  std::int64_t lo = 0;
  std::int64_t hi = rows;
  while (hi - lo > 1) {
    const std::int64_t mid = (lo + hi) >> 1;
    if (static_cast<std::int64_t>(mrp[mid]) <= e) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const std::int64_t i = lo;
  const std::int64_t j = mci[e];
  std::int64_t pa = A.row_ptr[i];
  const std::int64_t ea = A.row_ptr[i + 1];
  std::int64_t pb = Bt.row_ptr[j];
  const std::int64_t eb = Bt.row_ptr[j + 1];
  T acc = identity;
  bool has = false;
  const std::int64_t la = ea - pa;
  const std::int64_t lb = eb - pb;
  if (la > 0 && lb > 0) {
    if (la * 16 < lb) {
      for (; pa < ea && pb < eb; ++pa) {
        const std::int64_t c = A.col_idx[pa];
        pb = lower_bound(Bt.col_idx, pb, eb, c);
        if (pb < eb && static_cast<std::int64_t>(Bt.col_idx[pb]) == c) {
          acc = s.add(acc, s.mul(value_of(A, pa), value_of(Bt, pb)));
          has = true;
          ++pb;
        }
      }
    } else if (lb * 16 < la) {
      for (; pb < eb && pa < ea; ++pb) {
        const std::int64_t c = Bt.col_idx[pb];
        pa = lower_bound(A.col_idx, pa, ea, c);
        if (pa < ea && static_cast<std::int64_t>(A.col_idx[pa]) == c) {
          acc = s.add(acc, s.mul(value_of(A, pa), value_of(Bt, pb)));
          has = true;
          ++pa;
        }
      }
    } else {
      while (pa < ea && pb < eb) {
        const I ca = A.col_idx[pa];
        const I cb = Bt.col_idx[pb];
        if (ca == cb) {
          acc = s.add(acc, s.mul(value_of(A, pa), value_of(Bt, pb)));
          has = true;
          ++pa;
          ++pb;
        } else if (ca < cb) {
          ++pa;
        } else {
          ++pb;
        }
      }
    }
  }
  val[e] = acc;
  flag[e] = has ? 1 : 0;
}

/// counts[i] = flags set in mask row i (a warp per row).
template <class I>
__global__ void dot_count_kernel(const I* mrp, std::int64_t rows, const unsigned char* flag,
                                 std::int64_t* counts) {
  const std::int64_t r = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (r >= rows) return;
  std::int64_t n = 0;
  for (std::int64_t e = mrp[r] + lane; e < mrp[r + 1]; e += 32) n += flag[e];
  for (int off = 16; off > 0; off >>= 1) n += __shfl_xor_sync(kFullMask, n, off);
  if (lane == 0) counts[r] = n;
}

/// Writes row r's flagged entries at crp[r], in the mask's (sorted) order (a warp per row).
template <class I, class T>
__global__ void dot_compact_kernel(const I* mrp, const I* mci, std::int64_t rows,
                                   const unsigned char* flag, const T* val, const I* crp, I* cci,
                                   T* cv) {
  const std::int64_t r = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (r >= rows) return;
  std::int64_t o = crp[r];
  for (std::int64_t e0 = mrp[r]; e0 < mrp[r + 1]; e0 += 32) {
    const std::int64_t e = e0 + lane;
    const bool f = e < mrp[r + 1] && flag[e] != 0;
    const unsigned b = __ballot_sync(kFullMask, f);
    if (f) {
      const std::int64_t at = o + __popc(b & ((1u << lane) - 1u));
      cci[at] = mci[e];
      cv[at] = val[e];
    }
    o += __popc(b);
  }
}

}  // namespace spindle::detail::cuda::spgemm
