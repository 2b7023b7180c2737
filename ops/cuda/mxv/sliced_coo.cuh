// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file sliced_coo.cuh
/// @brief mxv for small, launch-bound graphs: whole rows packed into slots at fixed offsets, each
/// entry stored with its column, value and row (a sliced COO layout built once per graph,
/// partition.hpp's build_sliced_rows, cached on the graph), reduced by a segmented scan.
///
/// Why: on graphs of a few thousand entries a call is one launch, and its time is the launch plus
/// the kernel's chain of dependent loads. The CSR kernels read row offsets, then column indices
/// and values, then u: three levels. Here thread t of block b reads its four entries at
/// b * 4 BT + 4 t, known without any load, so the chain is entries -> u -> y. Experiment
/// harness (H200, event-timed like the benchmark): 4.1-4.5 us on
/// the data folder's graphs where the planner's CSR kernels took 4.4-4.9 us (subwarp_per_row) and
/// 6.8 us (row_block on as20graph), against 3.8 / 3.9 / 4.2 us for bare kernels with one / two /
/// three dependent loads before their store. Copying all of u into shared memory in the first
/// round (to drop the u level too) was slower (4.4-6.0 us): the copy costs more than the level.
///
/// Two forms (the slot size picks one; both keep four entries per thread, which measured fastest:
/// eight or sixteen per lane cost 0.5-1.0 us more):
///   - warp slots (kSlicedWarpSlot = 128 entries, 4 per lane): a warp scans its own slot, no
///     barrier; rows of up to 128 entries;
///   - block slots (4 x BT entries, BT = 128 or 512): the block scans across its warps; rows of up
///     to 512 / 2048 entries.
/// Deterministic: each thread folds its four entries left to right, then a fixed scan tree
/// (warp shuffles, then the warps' totals in order) combines them; no atomics.
///
/// The layout costs (sizeof(I) + sizeof(value) + 4) bytes per position, padding included (at
/// most twice the entries plus one per empty row), so the planner takes it for small graphs only;
/// forced on a large one it works while its rows fit a slot.

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/src/cuda/device_buffer.hpp"
#include "ops/cuda/mxv/mxv_args.cuh"
#include "ops/cuda/mxv/partition.hpp"
#include "ops/cuda/mxv/sliced_slots.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {

/// The device arrays of the layout for values VV (T, or Pattern: none).
template <class I, class VV>
struct SlicedCoo {
  const I* col = nullptr;  ///< -1: an empty row's placeholder, or padding
  const VV* val = nullptr;
  const std::int32_t* row = nullptr;  ///< row | kSlicedHead | kSlicedEnd; -1: padding
  std::int64_t positions = 0;         ///< a multiple of the block's entries
};

struct SlicedCooSlot : ExtensionSlot {
  bool fits = false;  ///< false: a row is longer than the slot (cached too)
  DeviceBuffer col, val, row;
  std::int64_t positions = 0;
};

/// The layout of M for `slot` entries per slot (cached on the graph per slot size and value type);
/// fits == false when a row does not fit. @throws OutOfMemory, DeviceError.
template <class T, class VV, class I, class V>
SlicedCoo<I, VV> sliced_coo_layout(const Graph<I, V>& M, std::int64_t slot, bool& fits) {
  const int bt = sliced_block_threads(slot);
  const std::string key =
      "cuda.mxv.sliced_coo." + std::to_string(slot) + "." +
      (is_pattern_v<VV> ? std::string("pattern") : to_string(value_kind_of<T>()));
  const auto& s = M.template extension<SlicedCooSlot>(key, [&] {
    auto out = std::make_unique<SlicedCooSlot>();
    SlicedRows rows;
    if (!build_sliced_rows(M.row_ptr().data(), M.rows(), slot, 4 * static_cast<std::int64_t>(bt),
                           rows)) {
      return out;
    }
    const std::size_t n = rows.src.size();
    std::vector<I> col(n, I(-1));
    std::vector<std::conditional_t<is_pattern_v<VV>, char, T>> val(is_pattern_v<VV> ? 0 : n);
    const I* ci = M.col_idx().data();
    for (std::size_t p = 0; p < n; ++p) {
      const std::int64_t k = rows.src[p];
      if (k < 0) continue;
      col[p] = ci[k];
      if constexpr (!is_pattern_v<VV>) val[p] = entry_value<T, V>(M.value_ptr(), k);
    }
    Context& ctx = context();
    out->col = upload_async(col, "sliced_coo layout", ctx.stream);
    out->row = upload_async(rows.row, "sliced_coo layout", ctx.stream);
    if constexpr (!is_pattern_v<VV>) out->val = upload_async(val, "sliced_coo layout", ctx.stream);
    ctx.synchronize();  // the host vectors die here
    out->positions = static_cast<std::int64_t>(n);
    out->fits = true;
    return out;
  });
  fits = s.fits;
  SlicedCoo<I, VV> L;
  if (!s.fits) return L;
  L.col = s.col.template as<const I>();
  if constexpr (!is_pattern_v<VV>) L.val = s.val.template as<const VV>();
  L.row = s.row.template as<const std::int32_t>();
  L.positions = s.positions;
  return L;
}

/// Four consecutive elements at p (16-byte aligned for 4-byte X, 32 for 8-byte X).
template <class X>
__device__ __forceinline__ void sliced_load4(const X* p, X (&out)[4]) {
  if constexpr (sizeof(X) == 4) {
    const uint4 q = __ldg(reinterpret_cast<const uint4*>(p));
    memcpy(&out[0], &q.x, 4);
    memcpy(&out[1], &q.y, 4);
    memcpy(&out[2], &q.z, 4);
    memcpy(&out[3], &q.w, 4);
  } else if constexpr (sizeof(X) == 8) {
    const ulonglong2 a = __ldg(reinterpret_cast<const ulonglong2*>(p));
    const ulonglong2 b = __ldg(reinterpret_cast<const ulonglong2*>(p) + 1);
    memcpy(&out[0], &a.x, 8);
    memcpy(&out[1], &a.y, 8);
    memcpy(&out[2], &b.x, 8);
    memcpy(&out[3], &b.y, 8);
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) out[j] = p[j];
  }
}

/// A run of the segmented scan: its value, whether a row starts inside it, and (general path)
/// whether any of its entries since that start had a term.
template <class T>
struct SlicedRun {
  T v;
  int head;
  int has;
};
template <class S, bool kGeneral, class T>
__device__ __forceinline__ SlicedRun<T> sliced_combine(const SlicedRun<T>& l,
                                                       const SlicedRun<T>& r) {
  if (r.head) return r;
  return SlicedRun<T>{S::add(l.v, r.v), l.head, kGeneral ? (l.has | r.has) : 0};
}
template <bool kGeneral, class T>
__device__ __forceinline__ SlicedRun<T> sliced_shfl_up(const SlicedRun<T>& x, int off) {
  SlicedRun<T> r;
  r.v = __shfl_up_sync(0xffffffffu, x.v, off);
  r.head = __shfl_up_sync(0xffffffffu, x.head, off);
  r.has = kGeneral ? __shfl_up_sync(0xffffffffu, x.has, off) : 0;
  return r;
}

template <class S, bool kGeneral, int BT, bool kWarpSlots, class T, class I, class VV>
__global__ void __launch_bounds__(BT)
    mxv_sliced_coo_kernel(const MxvArgs<T, I, VV> a, const SlicedCoo<I, VV> L) {
  __shared__ T warp_v[kWarpSlots ? 1 : BT / 32];
  __shared__ int warp_head[kWarpSlots ? 1 : BT / 32];
  __shared__ int warp_has[kWarpSlots ? 1 : BT / 32];
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * (4 * BT) + 4 * tid;
  // 1. The thread's four entries (one round of loads), then their gathers of u.
  I c[4];
  std::int32_t r[4];
  sliced_load4(L.col + base, c);
  sliced_load4(L.row + base, r);
  T v[4];
  if constexpr (!is_pattern_v<VV>) {
    sliced_load4(L.val + base, v);
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = T(1);
  }
  T p[4];
  int has[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    p[j] = a.identity;
    has[j] = 0;
    if (c[j] >= 0) {
      bool present = true;
      if constexpr (kGeneral) present = a.u_present == nullptr || __ldg(a.u_present + c[j]) != 0;
      if (present) {
        // Folded from the identity, as every other kernel and the CPU backend fold a row: a
        // NaN term then counts as min / max do it there (ignored), whatever its position. A
        // row's first term would otherwise enter the scan unfolded.
        p[j] = S::add(a.identity, S::mul(v[j], __ldg(a.u + c[j])));
        has[j] = 1;
      }
    }
  }
  // 2. The thread's run, then an exclusive scan of the runs (warp, then the block's warps).
  auto entry = [&](int j) {
    return SlicedRun<T>{p[j], r[j] >= 0 && (r[j] & kSlicedHead) ? 1 : 0, has[j]};
  };
  SlicedRun<T> run{a.identity, 0, 0};
#pragma unroll
  for (int j = 0; j < 4; ++j) run = sliced_combine<S, kGeneral>(run, entry(j));
  const int lane = tid & 31;
  SlicedRun<T> inc = run;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const SlicedRun<T> l = sliced_shfl_up<kGeneral>(inc, off);
    if (lane >= off) inc = sliced_combine<S, kGeneral>(l, inc);
  }
  SlicedRun<T> carry = sliced_shfl_up<kGeneral>(inc, 1);
  if (lane == 0) carry = SlicedRun<T>{a.identity, 0, 0};
  if constexpr (!kWarpSlots) {
    const int warp = tid >> 5;
    if (lane == 31) {
      warp_v[warp] = inc.v;
      warp_head[warp] = inc.head;
      warp_has[warp] = inc.has;
    }
    __syncthreads();
    SlicedRun<T> before{a.identity, 0, 0};
    for (int w = 0; w < warp; ++w) {
      before =
          sliced_combine<S, kGeneral>(before, SlicedRun<T>{warp_v[w], warp_head[w], warp_has[w]});
    }
    carry = sliced_combine<S, kGeneral>(before, carry);
  }
  // 3. Each row's value is the scan at its last entry. A placeholder (no column) is an empty row.
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    carry = sliced_combine<S, kGeneral>(carry, entry(j));
    if (r[j] >= 0 && (r[j] & kSlicedEnd)) {
      const bool row_has = kGeneral ? carry.has != 0 : c[j] >= 0;
      write_result<kGeneral>(a.out, r[j] & kSlicedRowMask, row_has ? carry.v : a.identity, row_has);
    }
  }
}

/// Launches over layout L built for `slot` entries per slot.
template <class S, bool kGeneral, class T, class I, class VV>
void launch_sliced_coo(const MxvArgs<T, I, VV>& a, const SlicedCoo<I, VV>& L, std::int64_t slot,
                       cudaStream_t stream) {
  const int bt = sliced_block_threads(slot);
  const auto grid = static_cast<unsigned>(L.positions / (4 * bt));
  if (grid == 0) return;
  if (slot == kSlicedWarpSlot) {
    mxv_sliced_coo_kernel<S, kGeneral, kSlicedWarpBlockThreads, true>
        <<<grid, kSlicedWarpBlockThreads, 0, stream>>>(a, L);
  } else if (slot == kSlicedSmallBlockSlot) {
    mxv_sliced_coo_kernel<S, kGeneral, kSlicedSmallBlockSlot / 4, false>
        <<<grid, kSlicedSmallBlockSlot / 4, 0, stream>>>(a, L);
  } else if (slot == kSlicedLargeBlockSlot) {
    mxv_sliced_coo_kernel<S, kGeneral, kSlicedLargeBlockSlot / 4, false>
        <<<grid, kSlicedLargeBlockSlot / 4, 0, stream>>>(a, L);
  } else {
    throw InvalidArgument("sliced_coo: a slot of " + std::to_string(slot) +
                          " entries is none of 128, 512, 2048");
  }
}

}  // namespace spindle::detail::cuda
