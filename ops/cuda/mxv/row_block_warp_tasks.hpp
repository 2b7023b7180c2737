// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file row_block_warp_tasks.hpp
/// @brief The host half of row_block's warp form (row_block_warp.cuh): its task size and its
/// partitions, plain code tested on CPU-only builds (tests/ops/row_block_partition_test.cpp).

#include <algorithm>
#include <cstdint>

#include "ops/cuda/mxv/partition.hpp"

namespace spindle::detail::cuda {

/// Entries of one warp's run of rows (8 per lane); the plan's row_block entries that select this
/// form.
inline constexpr int kRowBlockWarpEntries = 256;
/// Warps per block: 1024 threads, one block per SM (the register budget is 64 per thread).
inline constexpr int kRowBlockWarpWarps = 32;

/// The warp form's tasks are row_block's partition for 64-thread blocks (NB = 256, rows longer
/// than 64 alone), with the lanes per row chosen for one warp: the power of two that minimizes
/// passes x (steps per row + shuffle rounds). Host side, plain code.
inline int row_block_warp_lanes_log2(std::int64_t rows, std::int64_t max_len) {
  int best = 0;
  std::int64_t best_cost = INT64_MAX;
  for (int lg = 0; lg <= 5; ++lg) {
    const std::int64_t lanes = std::int64_t{1} << lg, per = 32 / lanes;
    const std::int64_t cost = (rows + per - 1) / per * ((max_len + lanes - 1) / lanes + lg);
    if (cost < best_cost) {
      best_cost = cost;
      best = lg;
    }
  }
  return best;
}
template <class I>
RowBlocks build_row_block_warps(const I* row_ptr, std::int64_t n) {
  // 64-thread blocks: runs of at most 256 entries, rows longer than 64 alone, pieces of 256 (the
  // kernel's 8 entries per lane cover exactly that).
  RowBlocks rb = build_row_blocks(row_ptr, n, kRowBlockWarpEntries / 4, 1);
  for (RowBlockDesc& d : rb.desc) {
    if (d.kind != kRowBlockRows) continue;
    std::int64_t max_len = 0;
    for (std::int64_t r = d.r0; r < d.r0 + d.rows; ++r) {
      max_len = std::max<std::int64_t>(max_len, static_cast<std::int64_t>(row_ptr[r + 1]) -
                                                    static_cast<std::int64_t>(row_ptr[r]));
    }
    d.slot = row_block_warp_lanes_log2(d.rows, max_len);
  }
  return rb;
}

/// Rows one run of the simple path may hold (its kernel keeps a row's place in the run as an int);
/// longer stretches of empty rows are cut into several runs.
inline constexpr std::int64_t kRowBlockWarpRunRows = std::int64_t{1} << 20;

/// The simple path's tasks (no mask, accumulator or absent inputs; row_block_warp.cuh's runs
/// kernel): runs of whole consecutive rows of at most 256 entries whatever the rows' lengths, and
/// rows longer than 256 entries cut into pieces of 256 (kRowBlockPiece, added in order by
/// row_block's long-row kernel). build_row_block_warps puts every row longer than 64 entries in a
/// task of its own, because its lane-group reduction is as slow as a run's longest row; the runs
/// kernel reduces by a segmented scan whose cost does not depend on the row lengths, so its tasks
/// fill up: on R-MAT scale 22 (fp32, seed 42) 216 entries per task on average instead of 176 (302 K
/// tasks instead of 370 K), which is most of why the runs kernel is 6% faster
/// (H200; docs/design/mxv.md).
template <class I>
RowBlocks build_row_block_warp_runs(const I* row_ptr, std::int64_t n) {
  RowBlocks rb;
  constexpr std::int64_t nb = kRowBlockWarpEntries;
  auto at = [&](std::int64_t r) { return static_cast<std::int64_t>(row_ptr[r]); };
  std::int64_t r = 0;
  while (r < n) {
    const std::int64_t len = at(r + 1) - at(r);
    if (len > nb) {
      append_row_pieces(rb, r, at(r), len, nb);
      ++r;
      continue;
    }
    const std::int64_t a = r;
    while (r < n && r - a < kRowBlockWarpRunRows && at(r + 1) - at(a) <= nb) ++r;
    rb.desc.push_back({a, at(a), static_cast<std::int32_t>(r - a),
                       static_cast<std::int32_t>(at(r) - at(a)), kRowBlockRows, 0});
  }
  return rb;
}

/// Shared memory the warp form takes per block over relabelled columns, staging included: the
/// rest of u's hot copy fills it. 192 KB (+ 1 KB the runtime reserves per block) keeps the SM's
/// carveout at 196 KB and leaves 60 KB of L1 for the cold gathers; one step more and the carveout
/// jumps to 228 KB, leaving 28 KB of L1. An exploration harness, H200, R-MAT scale
/// 22, fp32, the kernel alone (ms; cuSPARSE's best 0.490 values / 0.487 pattern, same process):
///   hot copy of u  | 32 K (128 KB) | 36 K   | 40 K (160 KB) | 44 K (228 KB carveout) | 48 K
///   values         | 0.3816        | 0.3748 | 0.3664        | 0.4491                 | 0.4487
///   pattern (A^T)  | 0.3290        | 0.3228 | 0.3139        | 0.3708                 | 0.3656
/// (48 K from an earlier run of the same binary; cold gathers through L1, policy 1 below). R-MAT
/// 21: 0.1798 -> 0.1778 (values), 0.1565 -> 0.1570 (pattern). With 8-byte values the staging
/// doubles and the hot copy stays at 128 KB.
///
/// The simple path's runs kernel adds 32 bytes of row-end bits per warp (1 KB per block): the
/// budget is 193 KB so that its hot copy keeps the same 40 K columns (193 KB + 1 KB reserved still
/// fits the 196 KB carveout).
inline constexpr std::int64_t kRowBlockWarpSmemBudget = 193 * 1024;

/// Bytes of dynamic shared memory the warp form needs: the warps' staging (plus presence bytes
/// on the general path) and `hs` entries of u.
template <class T, bool kGeneral>
constexpr std::int64_t row_block_warp_smem(std::int64_t hs) {
  return static_cast<std::int64_t>(kRowBlockWarpWarps) * kRowBlockWarpEntries *
             static_cast<std::int64_t>(sizeof(T) + (kGeneral ? 1 : 0)) +
         hs * static_cast<std::int64_t>(sizeof(T));
}

/// 32-bit words of row-end bits per warp in the runs kernel (one bit per entry of a task).
inline constexpr int kRowBlockWarpEndWords = kRowBlockWarpEntries / 32;

/// Bytes of dynamic shared memory the simple path's runs kernel needs: the warps' staging, their
/// row-end bits and `hs` entries of u.
template <class T>
constexpr std::int64_t row_block_warp_runs_smem(std::int64_t hs) {
  return static_cast<std::int64_t>(kRowBlockWarpWarps) *
             (kRowBlockWarpEntries * static_cast<std::int64_t>(sizeof(T)) +
              kRowBlockWarpEndWords * 4) +
         hs * static_cast<std::int64_t>(sizeof(T));
}

/// Entries of u the warp form copies into shared memory over relabelled columns (plain calls, the
/// runs kernel): what fits beside its staging in kRowBlockWarpSmemBudget (fp32: 40960, fp64:
/// 16384).
template <class T>
constexpr std::int64_t row_block_warp_hot_entries() {
  return (kRowBlockWarpSmemBudget - row_block_warp_runs_smem<T>(0)) /
         static_cast<std::int64_t>(sizeof(T));
}

/// Whether plain calls with these types run the runs kernel (row_block_warp.cuh): 4-byte values and
/// indices (the planner's warp-form case). With 8-byte ones it loses its next-task prefetch and
/// spills under the 64-register cap, so they keep mxv_row_block_warp_kernel.
template <class T, class I>
inline constexpr bool kRowBlockWarpRuns = sizeof(T) == 4 && sizeof(I) == 4;

}  // namespace spindle::detail::cuda
