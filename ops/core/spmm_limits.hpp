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

/// row_block on graphs below kSpmmSmallGraphNnz entries gives rows longer than this a block of
/// their own (the planner sets it as LaunchParams::items_per_worker). A row block reduces with
/// W·L threads per row (W columns of the pass, L lanes: the partition picks L = 4 when a row of
/// the block has more than 64 entries), so with W = 8 a block of 200 short rows took 26 rounds of
/// 8 rows each. ncu on as20graph (H100, N = 8 and 256): 1300 instructions per warp, a block's
/// critical path 19 us; with rows of 65-256 entries in blocks of their own the row blocks keep
/// L = 1 (32 rows per round).
constexpr std::int64_t kSpmmSmallGraphLongRow = 64;

/// aspt_tiled: rows longer than this leave the panels for the nnz-balanced long-row pass (one
/// panel block would otherwise walk a 10^5-entry R-MAT row alone). About 16 average R-MAT rows.
constexpr std::int64_t kAsptLongRow = 256;

/// Lanes per row of the sequential kernels for width N with `vec` columns per lane:
/// ceil(min(N, tile) / vec) rounded up to a power of two, at most 32 (tile 0: all of N).
inline int spmm_group_lanes(std::int64_t n, int vec, std::int64_t tile = 0) {
  const std::int64_t w = tile > 0 && tile < n ? tile : n;
  const std::int64_t need = (w + vec - 1) / vec;
  int g = 1;
  while (g < 32 && g < need) g *= 2;
  return g;
}

/// The widest vector (elements of `value_bytes` each, 16 bytes at most) that divides N: the
/// sequential kernels load B rows and store C rows with it (device buffers are 256-byte aligned
/// and rows are N elements apart).
inline int spmm_vec_for(std::int64_t n, std::int64_t value_bytes) {
  int v = static_cast<int>(16 / value_bytes);
  while (v > 1 && n % v != 0) v /= 2;
  return v;
}

/// Elements per fragment of nnz_balanced_seq's group form at width N: 8 bytes up to N = 16, 16
/// bytes above (the measurements are at balanced_group_vec, nnz_balanced_seq.cuh), as far as N
/// allows. The form is compiled for exactly those two widths: where N is not a multiple of the
/// fragment, the planner runs the warp form (spmm_group_form_fits).
inline int spmm_group_form_vec(std::int64_t n, std::int64_t value_bytes) {
  const int want = static_cast<int>((n <= 16 ? 8 : 16) / value_bytes);
  int v = spmm_vec_for(n, value_bytes);
  while (v > want && v > 1) v /= 2;
  return v;
}
inline bool spmm_group_form_fits(std::int64_t n, std::int64_t value_bytes) {
  const int want = static_cast<int>((n <= 16 ? 8 : 16) / value_bytes);
  return want >= 1 && spmm_group_form_vec(n, value_bytes) == want;
}

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
