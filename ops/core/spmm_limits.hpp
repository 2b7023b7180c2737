// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file spmm_limits.hpp
/// @brief Sizes the SpMM planner (ops/core/planner_cuda_mxm.cpp) and the CUDA runner
/// (ops/cuda/mxm/spmm_run.cuh: launches, tuning candidates, benchmark columns) must agree on.
/// Plain constants, so the host-only planner and the CUDA code share one definition. The
/// measurements behind them are in planner_cuda_mxm.cpp's comments.

#include <cstdint>
#include <vector>

namespace spindle::detail {

/// A "small" graph for SpMM: below this many entries a call is launch-bound (mxv's small-graph
/// bound, planner_cuda.cpp). row_block keeps such graphs to one launch (rows up to 8 blocks'
/// worth share a block), the planner's small-graph rules apply, and the tuner and the benchmark
/// try the row_cache_seq forms meant for them.
constexpr std::int64_t kSpmmSmallGraphNnz = std::int64_t{1} << 17;

/// nnz_balanced_seq runs its group-per-chunk form (ops/cuda/mxm/nnz_balanced_seq.cuh) from this
/// many entries on, the warp-per-chunk form below; the planner sends skewed graphs at N = 16 to
/// it only where the group form runs.
constexpr std::int64_t kSpmmGroupFormMinNnz = std::int64_t{1} << 20;

/// row_cache_seq's split form: rows longer than this are cut into pieces of at most this many
/// entries.
constexpr std::int64_t kSpmmSplitPiece = 16;

/// row_cache_seq with entry sets: lanes per row (a warp) when the lanes that own the columns
/// leave room, the rest splitting each row's entries.
constexpr int kSpmmSeqWarpLanes = 32;

/// row_cache_seq with entry sets past N = 32: columns per pass, so that 8 lanes (float4) cover a
/// pass and 4 entry sets share the warp.
constexpr int kSpmmSeqEntrySetTile = 32;

/// One row_cache_seq form meant for small graphs (the LaunchParams fields it sets; 0 = unset).
struct SpmmSeqForm {
  std::int64_t split = 0;  ///< items_per_worker: rows cut into pieces of at most this many
  int lanes = 0;           ///< lanes_per_row: 32 = a warp per row whose spare lanes split entries
  int tile = 0;            ///< columns per pass
};

/// The row_cache_seq forms the tuner and the benchmark try on a small graph (nnz below
/// kSpmmSmallGraphNnz) from N = 16, besides the plain one: long rows cut into pieces; a warp per
/// row whose lanes split the entries (whole rows, pieces, and past N = 32 passes of 32 columns).
/// Empty for other calls. One list, so that the tuner (spmm_tuning_candidates) and
/// `spindle bench mxm` cannot drift apart.
inline std::vector<SpmmSeqForm> spmm_small_graph_seq_forms(std::int64_t n, std::int64_t nnz) {
  std::vector<SpmmSeqForm> f;
  if (nnz >= kSpmmSmallGraphNnz || n < 16) return f;
  f.push_back({kSpmmSplitPiece, 0, 0});
  f.push_back({0, kSpmmSeqWarpLanes, 0});
  f.push_back({kSpmmSplitPiece, kSpmmSeqWarpLanes, 0});
  if (n > kSpmmSeqEntrySetTile) f.push_back({0, kSpmmSeqWarpLanes, kSpmmSeqEntrySetTile});
  return f;
}

}  // namespace spindle::detail
