// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file push_scatter.cuh
/// @brief vxm as a push (MxvKernel::PushScatter, ops/core/vxm_push.hpp): the input's present
/// entries scatter their terms over the rows of A into a per-call workspace, then one pass applies
/// the mask, accumulator and replace rule. Included by ops/cuda/vxm_push_f32.cu / _f64.cu.
///
/// One call, all on the context's stream (vxm_push_input has counted the input's present entries,
/// sources and terms before planning; a full input is counted on the host):
///   1. the sources, ids i with u(i) present and row i of A not empty, compacted in order
///      (cub::DeviceSelect::If over the ids, reading presence and offsets: no flags pass), their
///      row lengths, and an exclusive scan of those (cub::DeviceScan::ExclusiveSum): off[f] = the
///      first term of source f in a numbering of all E terms;
///   2. each tile of kPushTileTerms consecutive terms finds its first source by a binary search of
///      off (push_tiles_kernel, one thread per tile), so the scatter needs no search in global
///      memory: it loads its tile's sources (<= tile + 1 of them, each has a term) into shared
///      memory and every thread finds its terms' sources there (load balance over terms, so a
///      source with 100 K out-entries spreads over 100 tiles);
///   3. the workspace: t(j) = the monoid's identity as an order-preserving integer key (min /
///      max) or 0 (lor), has(j) = 0 (memsets, and push_init_kernel for the keys);
///   4. scatter (push_scatter_kernel): term mul(A(i,j), u(i)) into t(j) by atomicMin / atomicMax on
///      the key (NaN terms skipped, as the pull's fold never lets one win) or a store of 1 (lor:
///      nonzero terms; any: none, the value is 1), has(j) = 1; outputs the mask does not select
///      are skipped here;
///   5. finish (push_finish_kernel): write_result<true> for every output j.
/// The count and the compaction read a byte per row (and the offsets of present rows); the scan,
/// the tiles and the scatter cost O(sources + terms); 3 and 5 O(cols). On R-MAT 22 (H200) the
/// passes over rows and columns take about 0.1 ms whatever the input (docs/design/mxv.md).

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "ops/core/vxm_push.hpp"
#include "ops/cuda/common/grid.hpp"
#include "ops/cuda/common/launch_record.hpp"
#include "ops/cuda/common/output_rule.hpp"
#include "spindle/cuda/kernels/output.cuh"
#include "spindle/detail/cuda_semirings.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {

inline constexpr int kPushThreads = 256;
inline constexpr int kPushItems = 4;
inline constexpr int kPushTileTerms = kPushThreads * kPushItems;

/// The workspace word of a min / max push: an unsigned integer whose order is the value's order
/// (sign bit flipped for non-negative values, every bit for negative ones; -0 < +0).
template <class T>
using PushKey = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;

template <class T>
__host__ __device__ inline PushKey<T> push_key(T v) {
  using K = PushKey<T>;
  constexpr K kSign = K{1} << (8 * sizeof(K) - 1);
  K b;
  memcpy(&b, &v, sizeof b);
  return (b & kSign) != 0 ? static_cast<K>(~b) : static_cast<K>(b | kSign);
}

template <class T>
__host__ __device__ inline T push_value(PushKey<T> k) {
  using K = PushKey<T>;
  constexpr K kSign = K{1} << (8 * sizeof(K) - 1);
  const K b = (k & kSign) != 0 ? static_cast<K>(k & ~kSign) : static_cast<K>(~k);
  T v;
  memcpy(&v, &b, sizeof v);
  return v;
}

/// counts[0..2] += u's present entries, those whose row of A has entries (the sources), and
/// their row lengths (the terms). Each block sums its share and adds it with one atomic per
/// counter (integers: the order of the adds does not matter); the grid is kept to
/// kPushCountBlocks so that the adds do not queue on the three addresses (one add per warp,
/// 131 K warps on R-MAT 22, made this count 182 us under ncu).
inline constexpr int kPushCountBlocks = 1024;
template <class I>
__global__ void __launch_bounds__(256)
    push_count_kernel(const std::uint8_t* __restrict__ u_present, const I* __restrict__ row_ptr,
                      std::int64_t n, unsigned long long* __restrict__ counts) {
  __shared__ unsigned long long part[3][8];
  unsigned long long present = 0, sources = 0, terms = 0;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    if (u_present[i] != 0) {
      const std::int64_t len =
          static_cast<std::int64_t>(row_ptr[i + 1]) - static_cast<std::int64_t>(row_ptr[i]);
      present += 1u;
      sources += len > 0 ? 1u : 0u;
      terms += static_cast<unsigned long long>(len);
    }
  }
  for (int off = 16; off > 0; off >>= 1) {
    present += __shfl_down_sync(0xffffffffu, present, off);
    sources += __shfl_down_sync(0xffffffffu, sources, off);
    terms += __shfl_down_sync(0xffffffffu, terms, off);
  }
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  if ((threadIdx.x & 31) == 0) {
    part[0][warp] = present;
    part[1][warp] = sources;
    part[2][warp] = terms;
  }
  __syncthreads();
  if (threadIdx.x < 3) {
    unsigned long long sum = 0;
    for (int w = 0; w < static_cast<int>(blockDim.x) / 32; ++w) sum += part[threadIdx.x][w];
    if (sum != 0) atomicAdd(counts + threadIdx.x, sum);
  }
}

/// The push's sources: u(i) present (or u full) and row i of A not empty. cub::DeviceSelect::If
/// keeps the ids it selects in order, reading presence and offsets as it goes (no flags pass).
template <class I>
struct PushSource {
  const std::uint8_t* u_present;
  const I* row_ptr;
  __device__ __forceinline__ bool operator()(I i) const {
    return (u_present == nullptr || u_present[i] != 0) && row_ptr[i + 1] > row_ptr[i];
  }
};

/// len[f] = the row length of source src[f] (f < nsrc), len[nsrc] = 0: scanned into off.
template <class I>
__global__ void push_lengths_kernel(const I* __restrict__ src, std::int64_t nsrc,
                                    const I* __restrict__ row_ptr, std::int64_t* __restrict__ len) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t f = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; f <= nsrc;
       f += stride) {
    if (f == nsrc) {
      len[f] = 0;
    } else {
      const std::int64_t i = static_cast<std::int64_t>(src[f]);
      len[f] = static_cast<std::int64_t>(row_ptr[i + 1]) - static_cast<std::int64_t>(row_ptr[i]);
    }
  }
}

/// tile_src[t] = the source of term t * kPushTileTerms (the last f with off[f] <= that term;
/// t = tiles gives nsrc): one binary search per tile.
template <class O>
__global__ void push_tiles_kernel(const O* __restrict__ off, std::int64_t nsrc, std::int64_t tiles,
                                  std::int64_t* __restrict__ tile_src) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       t <= tiles; t += stride) {
    const O e = static_cast<O>(t * kPushTileTerms);
    std::int64_t lo = 0, hi = nsrc;  // off[0] = 0 <= e: the answer is in [0, nsrc]
    while (lo < hi) {
      const std::int64_t mid = (lo + hi + 1) >> 1;
      if (off[mid] <= e) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    tile_src[t] = lo;
  }
}

/// t(j) = the key of the monoid's identity (min / max).
template <class K>
__global__ void push_init_kernel(K* __restrict__ acc, K init, std::int64_t m) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < m;
       j += stride) {
    acc[j] = init;
  }
}

template <class T, class I, class VV>
struct PushArgs {
  DeviceCsr<I, VV> A;
  const T* u = nullptr;
  const I* src = nullptr;                  ///< the sources, ascending
  const std::int64_t* off = nullptr;       ///< nsrc + 1 term offsets
  const std::int64_t* tile_src = nullptr;  ///< tiles + 1
  std::int64_t nsrc = 0;
  std::int64_t terms = 0;
  void* acc = nullptr;  ///< PushKey<T> (min / max) or T (lor); unused for any
  std::uint8_t* has = nullptr;
  DeviceMask mask;
};

/// Tiles of kPushTileTerms terms, one per block at a time (grid-stride over the tiles).
template <class S, PushMonoid M, class T, class I, class VV>
__global__ void __launch_bounds__(kPushThreads) push_scatter_kernel(const PushArgs<T, I, VV> a) {
  __shared__ std::int64_t s_off[kPushTileTerms + 1];
  __shared__ std::int64_t s_base[kPushTileTerms + 1];  // row_ptr[src] - off: entry = base + term
  __shared__ T s_u[kPushTileTerms + 1];
  const I* __restrict__ cols = a.A.col_idx;
  const VV* __restrict__ vals = a.A.values;
  std::uint8_t* __restrict__ has = a.has;
  const std::int64_t tiles = (a.terms + kPushTileTerms - 1) / kPushTileTerms;
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    __syncthreads();  // the previous tile's sources are read
    const std::int64_t e0 = tile * kPushTileTerms;
    const std::int64_t e1 = std::min<std::int64_t>(e0 + kPushTileTerms, a.terms);
    const std::int64_t f0 = a.tile_src[tile];
    // Sources f0 .. f_last hold this tile's terms; every source has one, so they are at most
    // kPushTileTerms + 1, and f_last < nsrc (off[nsrc] = terms > any term).
    const std::int64_t f_last = std::min<std::int64_t>(a.tile_src[tile + 1], a.nsrc - 1);
    const int count = static_cast<int>(f_last - f0 + 1);
    for (int q = threadIdx.x; q < count; q += blockDim.x) {
      const std::int64_t f = f0 + q;
      const std::int64_t i = static_cast<std::int64_t>(a.src[f]);
      const std::int64_t o = a.off[f];
      s_off[q] = o;
      s_base[q] = static_cast<std::int64_t>(a.A.row_ptr[i]) - o;
      s_u[q] = a.u[i];
    }
    __syncthreads();
    // Phase 1: every item's source (a search in shared memory), column and value, loads issued
    // together; phase 2: the mask reads; phase 3: the stores and atomics. One item at a time
    // would wait for each load in turn (the stores may alias the loads as far as the compiler
    // knows).
    std::int64_t col[kPushItems];
    T term[kPushItems];
    bool live[kPushItems];
#pragma unroll
    for (int it = 0; it < kPushItems; ++it) {
      const std::int64_t e = e0 + it * kPushThreads + threadIdx.x;
      live[it] = e < e1;
      col[it] = 0;
      term[it] = T(0);
      if (!live[it]) continue;
      // The last source whose first term is <= e.
      int lo = 0, hi = count - 1;
      while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (s_off[mid] <= e) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      const std::int64_t k = s_base[lo] + e;
      col[it] = static_cast<std::int64_t>(cols[k]);
      if constexpr (M != PushMonoid::Any) {
        T aij;
        if constexpr (is_pattern_v<VV>) {
          aij = T(1);
        } else {
          aij = vals[k];
        }
        // The built-in semirings multiply as mul(A(i,j), u(i)) in vxm too (PullSemiring).
        term[it] = S::mul(aij, s_u[lo]);
      }
    }
#pragma unroll
    for (int it = 0; it < kPushItems; ++it) {
      live[it] = live[it] && mask_selects(a.mask, col[it]);
    }
#pragma unroll
    for (int it = 0; it < kPushItems; ++it) {
      if (!live[it]) continue;
      const std::int64_t j = col[it];
      has[j] = 1;
      if constexpr (M == PushMonoid::Or) {
        if (term[it] != T(0)) static_cast<T*>(a.acc)[j] = T(1);
      } else if constexpr (M == PushMonoid::Min || M == PushMonoid::Max) {
        if (term[it] == term[it]) {  // a NaN term never wins the pull's fold either
          auto* key = static_cast<PushKey<T>*>(a.acc) + j;
          if constexpr (M == PushMonoid::Min) {
            atomicMin(key, push_key(term[it]));
          } else {
            atomicMax(key, push_key(term[it]));
          }
        }
      }
    }
  }
}

/// The output step for every j: write_result<true> of t(j) (the identity when no term landed).
template <PushMonoid M, class T>
__global__ void push_finish_kernel(const void* __restrict__ acc,
                                   const std::uint8_t* __restrict__ has, std::int64_t m,
                                   const VectorResult<T> out) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < m;
       j += stride) {
    const bool h = has[j] != 0;
    T t = out.identity;
    if (h) {
      if constexpr (M == PushMonoid::Any) {
        t = T(1);
      } else if constexpr (M == PushMonoid::Or) {
        t = static_cast<const T*>(acc)[j];
      } else {
        t = push_value<T>(static_cast<const PushKey<T>*>(acc)[j]);
      }
    }
    write_result<true>(out, j, t, h);
  }
}

/// Bytes rounded up to 256 (the carving of the scratch workspace).
inline std::size_t push_align(std::size_t b) { return (b + 255) / 256 * 256; }

template <class T, class I, class V>
PushInput vxm_push_input(const Vector<T>& u, const Graph<I, V>& A) {
  PushInput in;
  const std::int64_t n = A.rows();
  if (n == 0) return in;
  if (u.is_full()) {  // known on the host: every row, and the rows with entries
    in.present = n;
    in.sources = n - A.stats().empty_rows;
    in.edges = A.nnz();
    return in;
  }
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const VecIn<T> uin = device_in(u);
  const DeviceCsr<I, Pattern> d = device_pattern(A);
  auto* counts = static_cast<unsigned long long*>(ctx.scratch(3 * sizeof(unsigned long long)));
  SPINDLE_CUDA_CHECK(cudaMemsetAsync(counts, 0, 3 * sizeof(unsigned long long), ctx.stream));
  push_count_kernel<I>
      <<<static_cast<unsigned>(std::min<std::int64_t>(grid_stride_blocks(n), kPushCountBlocks)),
         256, 0, ctx.stream>>>(uin.presence, d.row_ptr, n, counts);
  SPINDLE_CUDA_CHECK_LAUNCH("push_count_kernel");
  unsigned long long h[3] = {0, 0, 0};
  SPINDLE_CUDA_CHECK(cudaMemcpyAsync(h, counts, sizeof h, cudaMemcpyDeviceToHost, ctx.stream));
  ctx.synchronize();
  in.present = static_cast<std::int64_t>(h[0]);
  in.sources = static_cast<std::int64_t>(h[1]);
  in.edges = static_cast<std::int64_t>(h[2]);
  return in;
}

/// The values the push reads from A: none for pattern graphs and for any_pair (its multiply
/// ignores them), else A's values as T.
template <class S, class V>
using PushValues = std::conditional_t<is_pattern_v<V> || S::kind == SemiringKind::AnyPair, Pattern,
                                      typename S::value_type>;

template <class S, class I, class V>
void vxm_push(const Plan& plan, const PushInput& in, Vector<typename S::value_type>& w,
              const Mask& mask, Accum accum, const Vector<typename S::value_type>& u,
              const Graph<I, V>& A, bool replace) {
  using T = typename S::value_type;
  constexpr PushMonoid M = push_monoid(S::kind);
  if constexpr (M == PushMonoid::None) {
    (void)plan, (void)in, (void)w, (void)mask, (void)accum, (void)u, (void)A, (void)replace;
    throw Unsupported(std::string("push_scatter: ") + to_string(S::kind) +
                      " has no push (its add would depend on the order of the atomics)");
  } else if constexpr (!cuda_precompiled(OpKind::Vxm, S::kind)) {
    // The planner pushes precompiled semirings only (push_candidate).
    (void)plan, (void)in, (void)w, (void)mask, (void)accum, (void)u, (void)A, (void)replace;
    throw Unsupported(std::string("push_scatter: ") + to_string(S::kind) +
                      " is not precompiled for vxm in this build (SPINDLE_CUDA_SEMIRINGS)");
  } else {
    record_launch(plan, OpKind::Vxm, MxvKernel::PushScatter);
    using VV = PushValues<S, V>;
    Context& ctx = context();
    std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
    const cudaStream_t st = ctx.stream;
    const std::int64_t n = A.rows(), m = A.cols();
    if (m == 0) return;

    const VecIn<T> uin = device_in(u);
    const DeviceMask dm = device_mask(mask);
    const bool no_mask = dm.none && !dm.complement;
    const OutputRule rule = output_rule(no_mask, accum.enabled, replace, /*t_full=*/false);
    const VecOut<T> wout = device_out(w, rule.keep_old, rule.may_be_sparse());
    const bool full = rule.result_full(wout.old_full);

    PushArgs<T, I, VV> a;
    if constexpr (is_pattern_v<VV>) {
      a.A = device_pattern(A);
    } else {
      a.A = device_csr<T>(A);
    }
    a.u = uin.values;
    a.mask = dm;
    a.nsrc = in.sources;
    a.terms = in.edges;
    const std::int64_t tiles = (in.edges + kPushTileTerms - 1) / kPushTileTerms;

    // CUB's temporary storage for the compaction and the scan (sizes depend on counts only).
    std::size_t select_bytes = 0, scan_bytes = 0;
    thrust::counting_iterator<I> ids(I(0));
    const PushSource<I> is_source{uin.presence, a.A.row_ptr};
    SPINDLE_CUDA_CHECK(cub::DeviceSelect::If(nullptr, select_bytes, ids, static_cast<I*>(nullptr),
                                             static_cast<std::int64_t*>(nullptr), n, is_source,
                                             st));
    SPINDLE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
        nullptr, scan_bytes, static_cast<const std::int64_t*>(nullptr),
        static_cast<std::int64_t*>(nullptr), in.sources + 1, st));
    const std::size_t acc_bytes =
        M == PushMonoid::Any ? 0 : static_cast<std::size_t>(m) * sizeof(T);
    const std::size_t sizes[] = {
        acc_bytes,                                                                    // acc
        static_cast<std::size_t>(m),                                                  // has
        static_cast<std::size_t>(std::max<std::int64_t>(in.sources, 1)) * sizeof(I),  // src
        static_cast<std::size_t>(in.sources + 1) * sizeof(std::int64_t),              // len
        static_cast<std::size_t>(in.sources + 1) * sizeof(std::int64_t),              // off
        static_cast<std::size_t>(tiles + 1) * sizeof(std::int64_t),                   // tile_src
        sizeof(std::int64_t),                 // selected count
        std::max(select_bytes, scan_bytes)};  // CUB
    constexpr int kParts = static_cast<int>(sizeof sizes / sizeof sizes[0]);
    std::size_t total = 0;
    for (std::size_t s : sizes) total += push_align(s);
    auto* base = static_cast<unsigned char*>(ctx.scratch(total));
    unsigned char* parts[kParts];
    {
      std::size_t at = 0;
      for (int q = 0; q < kParts; ++q) {
        parts[q] = base + at;
        at += push_align(sizes[q]);
      }
    }
    a.acc = acc_bytes > 0 ? parts[0] : nullptr;
    a.has = parts[1];
    auto* src = reinterpret_cast<I*>(parts[2]);
    auto* len = reinterpret_cast<std::int64_t*>(parts[3]);
    auto* off = reinterpret_cast<std::int64_t*>(parts[4]);
    auto* tile_src = reinterpret_cast<std::int64_t*>(parts[5]);
    auto* selected = reinterpret_cast<std::int64_t*>(parts[6]);
    void* cub_temp = parts[7];
    a.src = src;
    a.off = off;
    a.tile_src = tile_src;

    SPINDLE_CUDA_CHECK(cudaMemsetAsync(a.has, 0, static_cast<std::size_t>(m), st));
    if constexpr (M == PushMonoid::Or) {
      SPINDLE_CUDA_CHECK(cudaMemsetAsync(a.acc, 0, acc_bytes, st));  // T(0): all bits zero
    } else if constexpr (M == PushMonoid::Min || M == PushMonoid::Max) {
      using K = PushKey<T>;
      push_init_kernel<K><<<grid_stride_blocks(m), 256, 0, st>>>(static_cast<K*>(a.acc),
                                                                 push_key(S::identity()), m);
      SPINDLE_CUDA_CHECK_LAUNCH("push_init_kernel");
    }
    if (in.edges > 0) {
      std::size_t bytes = select_bytes;
      SPINDLE_CUDA_CHECK(
          cub::DeviceSelect::If(cub_temp, bytes, ids, src, selected, n, is_source, st));
      push_lengths_kernel<I>
          <<<grid_stride_blocks(in.sources + 1), 256, 0, st>>>(src, in.sources, a.A.row_ptr, len);
      SPINDLE_CUDA_CHECK_LAUNCH("push_lengths_kernel");
      bytes = scan_bytes;
      SPINDLE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
          cub_temp, bytes, static_cast<const std::int64_t*>(len), off, in.sources + 1, st));
      push_tiles_kernel<std::int64_t>
          <<<grid_stride_blocks(tiles + 1), 256, 0, st>>>(off, in.sources, tiles, tile_src);
      SPINDLE_CUDA_CHECK_LAUNCH("push_tiles_kernel");
      push_scatter_kernel<S, M, T, I, VV>
          <<<static_cast<unsigned>(std::max<std::int64_t>(
                 1, std::min<std::int64_t>(
                        {tiles, push_scatter_max_blocks.load(), std::int64_t{1} << 24}))),
             kPushThreads, 0, st>>>(a);
      SPINDLE_CUDA_CHECK_LAUNCH("push_scatter_kernel");
    }
    VectorResult<T> out;
    out.w = wout.values;
    out.present = wout.presence;
    out.mask = dm;
    out.accum = accum;
    out.replace = replace;
    out.identity = S::identity();
    push_finish_kernel<M, T><<<grid_stride_blocks(m), 256, 0, st>>>(a.acc, a.has, m, out);
    SPINDLE_CUDA_CHECK_LAUNCH("push_finish_kernel");
    mark_written(w, full);
  }
}

}  // namespace spindle::detail::cuda

/// Instantiates the push entries for one (S, I, V) (every built-in semiring: those without a push
/// monoid compile to the Unsupported throw).
#define SPINDLE_CUDA_PUSH_INSTANTIATE(S, I, V)                                              \
  template void spindle::detail::cuda::vxm_push<S, I, V>(                                   \
      const ::spindle::Plan&, const ::spindle::detail::PushInput&,                          \
      ::spindle::Vector<typename S::value_type>&, const ::spindle::Mask&, ::spindle::Accum, \
      const ::spindle::Vector<typename S::value_type>&, const ::spindle::Graph<I, V>&, bool);
