// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file column_segmented.cuh
/// @brief mxv for graphs whose input vector u outgrows L2: the columns are cut into ranges of
/// `width` (a slice of u that fits L2), the entries of each range stored apart as a CSR of their
/// own (a copy of the graph's entries, built once on the device and cached on the graph), and one
/// pass per range runs over every row, the first writing y and the others adding to it. Within a
/// pass every gather of u hits the same slice, which stays in L2 while the matrix streams past it
/// (evict-first loads): the gathers are served from L2 instead of DRAM sectors. The price is one
/// pass over y and over the range's row offsets per range.
///
/// The partition-centric / CSR-segmenting family (Beamer et al., Reducing PageRank Communication
/// via Propagation Blocking; Zhang et al., Making Caches Work for Graph Analytics, "CSR
/// segmenting"), with each segment a row_per_thread pass (row_per_thread.cuh): a range holds
/// avg_row x width / cols entries of a row, a few on the graphs this serves.
///
/// Measured in a prototype before this kernel (H100, fp32 pattern, ms per call against the best
/// cuSPARSE CSR algorithm in the same process): uniform scale 25 (u 134 MB) 15.27 -> 5.07 with
/// 6 ranges of 22 MB (3.0x; 2 ranges 1.0x, 4 ranges 1.8x, 8 ranges 2.3-2.9x, 16 ranges 1.5x);
/// a scrambled 2D mesh of 16.8 M vertices (u 67 MB) 1.62 -> 0.79 with 3 ranges (2.05x); uniform
/// scale 22 (u 17 MB, in L2 already) gained nothing (0.91-1.02x). The planner (planner_cuda.cpp)
/// sizes the ranges from the device's L2.
///
/// Plain calls only (no mask, accumulator or absent input entries): the passes write y's values;
/// its presence is the graph's cached row presence. Deterministic: each pass folds a row's range
/// left to right, and the passes add in range order.

#include <cstdint>
#include <memory>
#include <string>

#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "ops/cuda/mxv/column_segments.hpp"
#include "ops/cuda/mxv/mxv_args.cuh"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {

/// The device arrays of the layout for values VV (T, or Pattern: none).
template <class I, class VV>
struct ColumnSegments {
  /// segments x rows + 1 offsets, range-major: range s, row i holds entries
  /// [ptr[s * rows + i], ptr[s * rows + i + 1]) of col and val.
  const I* ptr = nullptr;
  const I* col = nullptr;  ///< the graph's own column ids
  const VV* val = nullptr;
  std::int64_t segments = 0;
};

struct ColumnSegmentsSlot : ExtensionSlot {
  DeviceBuffer ptr, col, val;
  std::int64_t segments = 0;
};

/// Builds the layout of A for ranges of `width` columns into `out` on `stream` (defined in
/// column_segments.cu for every index and value type). @throws OutOfMemory, DeviceError.
template <class I, class VV>
void build_column_segments(const DeviceCsr<I, VV>& A, std::int64_t width, ColumnSegmentsSlot& out,
                           cudaStream_t stream);

/// The layout of M (on the device as A, its column ids relabelled by in-degree when `relabelled`)
/// for ranges of `width` columns, cached on the graph per width, value type and column order.
/// @throws InvalidArgument past kMaxColumnSegments ranges, OutOfMemory.
template <class T, class VV, class I, class V>
ColumnSegments<I, VV> column_segments_layout(const Graph<I, V>& M, const DeviceCsr<I, VV>& A,
                                             std::int64_t width, bool relabelled) {
  const std::int64_t segments = column_segment_count(M.cols(), width);
  if (segments > kMaxColumnSegments) {
    throw InvalidArgument("column_segmented: " + std::to_string(segments) + " ranges of " +
                          std::to_string(width) + " columns (at most " +
                          std::to_string(kMaxColumnSegments) + ")");
  }
  const std::string key =
      "cuda.mxv.column_segments." + std::to_string(width) + "." +
      (is_pattern_v<VV> ? std::string("pattern") : to_string(value_kind_of<T>())) +
      (relabelled ? ".relabelled" : "");
  const auto& s = M.template extension<ColumnSegmentsSlot>(key, [&] {
    auto out = std::make_unique<ColumnSegmentsSlot>();
    build_column_segments<I, VV>(A, width, *out, context().stream);
    return out;
  });
  ColumnSegments<I, VV> L;
  L.ptr = s.ptr.template as<const I>();
  L.col = s.col.template as<const I>();
  if constexpr (!is_pattern_v<VV>) L.val = s.val.template as<const VV>();
  L.segments = s.segments;
  return L;
}

/// One range's pass: y[i] = (first ? identity : y[i]) ⊕ (⊕ over the range's entries of row i).
/// The matrix arrays and y stream (evict-first); u's gathers take the default policy, so the
/// range's slice is what stays in L2.
template <class S, bool kFirst, class T, class I, class VV>
__global__ void __launch_bounds__(256)
    mxv_column_segment_kernel(const MxvArgs<T, I, VV> a, const I* __restrict__ ptr) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= a.A.rows) return;
  const std::int64_t k0 = ld_stream<1>(ptr + i), k1 = ld_stream<1>(ptr + i + 1);
  T acc = a.identity;
  // Four entries per iteration, loaded before any is combined (in order), as row_per_thread.
  for (std::int64_t k = k0; k < k1; k += 4) {
    T v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      v[j] = a.identity;
      if (k + j < k1) {
        const I c = ld_stream<1>(a.A.col_idx + k + j);
        v[j] = S::mul(matrix_value<T, VV, 1>(a.A.values, k + j), __ldg(a.u + c));
      }
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) acc = S::add(acc, v[j]);
  }
  if constexpr (kFirst) {
    __stcs(a.out.w + i, acc);
  } else {
    __stcs(a.out.w + i, S::add(__ldcs(a.out.w + i), acc));
  }
}

/// With relabelled columns (LaunchParams::tile 1, mxv_entry.cuh) the ranges cut the relabelled
/// ids: the first holds the most gathered columns.
///
/// Runs the passes of layout L over the rows of a.A (a.A's arrays are replaced by each range's);
/// y's values only (a.out.present is the caller's).
template <class S, class T, class I, class VV>
void launch_column_segmented(const MxvArgs<T, I, VV>& a, const ColumnSegments<I, VV>& L,
                             cudaStream_t stream) {
  constexpr int kThreads = 256;
  const std::int64_t rows = a.A.rows;
  const auto blocks = static_cast<unsigned>((rows + kThreads - 1) / kThreads);
  MxvArgs<T, I, VV> r = a;
  r.A.col_idx = L.col;
  r.A.values = L.val;
  for (std::int64_t s = 0; s < L.segments; ++s) {
    const I* ptr = L.ptr + s * rows;
    if (s == 0) {
      mxv_column_segment_kernel<S, true><<<blocks, kThreads, 0, stream>>>(r, ptr);
    } else {
      mxv_column_segment_kernel<S, false><<<blocks, kThreads, 0, stream>>>(r, ptr);
    }
  }
}

}  // namespace spindle::detail::cuda
