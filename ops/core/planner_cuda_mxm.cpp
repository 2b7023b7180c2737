// SPDX-License-Identifier: Apache-2.0
// CUDA planner rules for mxm (SpMM) and sddmm, owned by the SpMM/SDDMM backend (ops/cuda/mxm,
// ops/cuda/sddmm). Plain host code compiled in every build, so CPU-only tests check the
// decisions with reference_hopper_caps(). The rules start from the seeds (../shared/docs/
// KERNELS.md) and each threshold below says what it rests on.
#include <cmath>
#include <cstdint>
#include <string>

#include "ops/core/plan_format.hpp"
#include "ops/core/planner.hpp"
#include "ops/core/spmm_limits.hpp"
#include "spindle/error.hpp"

namespace spindle::detail {
namespace {

// Measurements behind the thresholds: spindle_bench_mxm / spindle_bench_sddmm on an H200
// (2026-11-21, R-MAT and uniform scale 20 and 22, bcsstk13, as20graph, email-Eu-core; tables in
// the issue note and docs/design/mxm.md).

// dgSPARSE Insight 1 (Adaptive Workload-Balancing and Parallel-Reduction, Huang et al., §2.1.2,
// Fig. 4): up to N = 4 a row is reduced in parallel with
// vector loads of B; wider N favours a sequential walk per output column (row caching).
// Measured: on uniform scale 22, parallel_reduce_vec beat row_cache_seq at N = 1, 2, 4 (0.65 vs
// 1.20, 0.82 vs 1.10, 1.14 vs 1.42 ms) and lost from N = 8 (2.87 vs 1.51 ms).
constexpr std::int64_t kParallelReduceMaxN = 4;
// Narrow N first goes to row_block (CSR-Stream blocks, ops/cuda/mxm/row_block.cuh): up to 8
// floats a B-row slice is one 32-byte sector, and a block keeps 4 x 256 independent gathers in
// flight. Measured on an H100 (spindle bench mxm, 2026-11-21, vs the best of the other
// kernels): R-MAT 22 at N = 1, 2, 4, 8: 0.60 / 0.66 / 0.79 / 1.44 ms against 0.85 / 1.29 / 2.08 /
// 3.44 (1.6-1.9x over cuSPARSE at N = 2..8); uniform 22: 0.62 / 0.84 / 1.58 / 2.08 against
// 0.69 / 0.97 / 1.57 / 2.27; as20graph at N = 1, 2: 0.015 / 0.016 against 0.019 / 0.020 ms. At
// N = 16 a pass covers half the row: on uniform graphs row_cache_seq won (2.35 vs 4.65 ms on
// uniform 22), on skewed ones row_block still beat nnz_balanced_seq (R-MAT 22: 3.01 vs 3.30 ms;
// R-MAT 20: 0.69 vs 0.89). Long average rows keep parallel_reduce_vec (the rule below; not
// remeasured). Since nnz_balanced_seq's group form stages each chunk of A in shared memory and
// walks it entry by entry (session 13, H100) it wins at
// N = 16 on the skewed graphs where it runs (R-MAT 22: 1.63 ms, 2.13x cuSPARSE, against
// row_block's 1.25x; R-MAT 20: 0.423 ms, 1.71x against 1.12x), so row_block keeps skewed N = 16
// only below kSpmmGroupFormMinNnz, where the balanced kernel would run its warp form.
constexpr std::int64_t kRowBlockMaxN = 8;
constexpr std::int64_t kRowBlockSkewedMaxN = 16;
// Small graphs take row_block at every width: launch-bound, one launch of short blocks beats the
// row kernels' longest row and the balanced kernel's three launches. as20graph (26K entries,
// H100): row_block 0.027 / 0.028 / 0.031 / 0.040 ms at N = 32 / 64 / 128 / 256 against
// nnz_balanced_seq 0.039 / 0.071 / 0.051 / 0.067 (cuSPARSE 0.023-0.024). The bound is mxv's
// small-graph bound (planner_cuda.cpp kSmallNnz): kSpmmSmallGraphNnz (spmm_limits.hpp).
// ... below N = 16. From N = 16 (N = 32 with long average rows and a dominant row, see below) small
// graphs take row_cache_seq, in its split form where one row is far longer than the rest (rows cut
// into pieces of at most kSpmmSplitPiece entries, their partials added in order by a second kernel;
// row_cache_seq.cuh). row_block re-reads A once per 8-column pass and whole rows leave one group
// walking the longest row. Harness outside `spindle bench` (H100, 2026-11-22, ms at
// N = 32 / 64 / 128 / 256, cuSPARSE best 0.022-0.023): as20graph (max row 1459, avg 4.1) split<=16
// 0.014 / 0.015 / 0.017 / 0.020, row_block 0.016 / 0.018 / 0.022 / 0.032; email-Eu-core (max 334,
// avg 25) split<=16 0.014 / 0.013 / 0.015 / 0.016, row_block 0.015 / 0.018 / 0.023 / 0.034
// (cuSPARSE 0.018-0.019). Pieces of 32 or 64 were 0-30% slower. Without a dominant row the split
// form only adds the second launch: 1138_bus (max row 18) row_cache_seq 0.008 at every width,
// split<=16 0.012, row_block 0.011; bcsstk13 (max 95, avg 42) row_cache_seq 0.016-0.019, split<=16
// 0.016-0.025. At N = 16 (spindle bench mxm, H100, 2026-11-22) row_cache_seq beat row_block on the
// small meshes (1138_bus, cryg2500, jagmesh7: 0.009-0.010 against 0.011-0.013 ms) and tied on
// as20graph (split<=16 0.016, row_block 0.016). Long average rows kept parallel_reduce_vec there
// against the row kernels without entry sets (email-Eu-core 0.013, bcsstk13 0.012, against
// 0.015-0.018); with entry sets only a dominant row keeps it (the rule in plan_mxm_cuda).
constexpr std::int64_t kSmallGraphRowCacheMinN = 16;
constexpr std::int64_t kSplitMinLongestRow = 64;
// On small graphs a group of G = N/4 lanes per row (8 at N = 32) leaves the GPU short of work:
// bcsstk13's 2003 rows are 16K threads at N = 32, each lane walking 42 entries 4 gathers at a
// time. So small graphs take a warp per row, the lanes beyond the columns' G splitting the row's
// entries into 32/G sets added by a butterfly (row_cache_seq.cuh, entry sets; whole rows and the
// split form alike). spindle bench mxm, H100, 2026-11-22, ms at N = 16 / 32 / 64 / 128 / 256,
// row_cache_seq with 32 lanes against without: bcsstk13 0.009 / 0.011 / 0.014 / 0.019 / 0.023
// against 0.026 / 0.021 / 0.019 / 0.019 / 0.023 (cuSPARSE 0.009-0.016); 1138_bus 0.008 / 0.007 /
// 0.008 / 0.009 / 0.009 against 0.010 / 0.009 / 0.009 / 0.009 / 0.009; cryg2500 and jagmesh7
// 0.007-0.009 against 0.008-0.009; split form, email-Eu-core 0.013 / 0.013 / 0.014 / 0.017 at
// N = 32..256 against 0.014 / 0.015 / 0.014 / 0.017, as20graph a tie (0.014-0.020). From N = 32
// there is no lane left over (G = 32 at N = 128 with float4 loads): long average rows then take
// passes of 32 columns (G = 8, 4 entry sets), re-reading each row per pass: bcsstk13 0.013 /
// 0.017 at N = 64 / 128 against 0.014 / 0.019, 0.024 against 0.023 at N = 256; on the short-row
// meshes the passes tied or lost (cryg2500 N = 256: 0.015 against 0.009).
constexpr std::int64_t kEntrySetTileMaxN = 128;
constexpr double kSplitLongestOverAverage = 8.0;
// ... except on graphs of long average rows, where a warp per row keeps every lane busy and the
// group-per-row walk of row_cache_seq is short of parallelism: parallel_reduce_vec beat
// row_cache_seq up to N = 16 on bcsstk13 (avg row 42: 0.008 vs 0.037 ms at N = 8) and on
// email-Eu-core (avg row 25: 0.011 vs 0.055 ms at N = 16), and lost from N = 8 on uniform graphs
// (avg row 16: 3.13 vs 1.64 ms at N = 8 on uniform 22). The threshold sits between.
constexpr std::int64_t kParallelReduceLongRowsMaxN = 16;
constexpr double kLongAverageRow = 24.0;

// When one row dominates. A row kernel gives a row to one group of lanes, which walks it with
// kSeqGathersInFlight B-row gathers in flight (row_cache_seq: 4 per group; parallel_reduce_vec:
// 2 per lane, lanes_per_row lanes), each costing about kGatherLatencyUs (a DRAM round trip on
// H100/H200). If that serial time exceeds a quarter of the whole call's
// bandwidth-bound time (bytes over kGatherBytesPerUs, the rate cuSPARSE's SpMM reaches on
// R-MAT, GPU.md: 65.2M x 32 x 4 B in 3.43 ms), the longest row decides the run time and the
// nnz-split kernel wins (dgSPARSE Insight 2; Insight 3's "many waves hide imbalance" fails when
// one row outlasts all the waves). Measured: on R-MAT scale 22 (max row 97929) row_cache_seq
// took 19-49 ms where nnz_balanced_seq took 3.3-13 ms. kMinSerialUs keeps tiny graphs, where
// launch latency dominates, on the one-launch row kernels (bcsstk13, max row 95: row kernels
// 0.007-0.019 ms, the three-launch balanced pass 0.04 ms and more).
constexpr double kSeqGathersInFlight = 4.0;
constexpr double kGatherLatencyUs = 0.7;
constexpr double kGatherBytesPerUs = 2.4e6;
constexpr double kSerialShare = 0.25;
constexpr double kMinSerialUs = 20.0;
// dgSPARSE's imbalance signal stdv_row / avg_row (Insight 2): above it rows are balanced by
// nnz even when no single row dominates (their Fig. 5 right: the benefit appears past ~2;
// R-MAT scale 20/22 measure 9-12, uniform 0.25).
constexpr double kImbalanceBalanced = 2.0;
// No column tiling by default: passes of 32 columns over B >> L2 were measured 1.5-2.2x SLOWER
// on R-MAT scale 22 (nnz_balanced_seq N = 128: 14.2 vs 6.8 ms) and within 2% on uniform graphs:
// the per-entry work, not B's bytes, dominates. The tuner still tries tile = 32.

// SDDMM (PRedS: Exploiting Online Locality and Reduction Parallelism, Yu et al., §III-B/C, then
// measured): iir up to K = 64 (best of the three kernels
// on all four generated graphs at K = 16, 32, 64; e.g. R-MAT 22, K = 64: iir 3.7, vct 6.1 ms);
// vct at K = 128 (6.96 vs iir 7.63 ms on R-MAT 22, 9.0 vs 9.8 on uniform 22); iir again above
// (K = 256: 12.4 vs vct 13.5 ms). The first warp-merged tiling kernel lost everywhere (11-17 ms
// on R-MAT 22 with 99 registers); its rework is left to the tuner until measured.
constexpr std::int64_t kIirMaxK = 64;
constexpr std::int64_t kVctMaxK = 128;

constexpr int kDefaultBlockThreads = 256;

// N = 1 is an SpMV: mxv's rules and kernels (relabelled columns, hot/cold gathers) were tuned
// for exactly this. spindle bench mxm, H100, 2026-11-22, N = 1, ms: R-MAT 22 spmv (row_block over
// relabelled columns) 0.484 against the best SpMM kernel (row_block) 0.599 and cuSPARSE 0.562;
// R-MAT 20 0.108 / 0.151 / 0.142; uniform 22 0.616 / 0.612 / 0.583 (a tie: no relabelling
// there); as20graph 0.010 / 0.011 / 0.013. A fused bias, activation or accumulator keeps the SpMM
// kernels (spmm_run.cuh falls back to row_block).
constexpr std::int64_t kSpmvN = 1;

std::string fmt(double v) { return format_g3(v); }

Plan base(OpKind op) {
  Plan p;
  p.op = op;
  p.device = Device::Cuda;
  p.params.block_threads = kDefaultBlockThreads;
  return p;
}

std::int64_t value_bytes(ValueKind v) { return v == ValueKind::Double ? 8 : 4; }

std::string cuda_mxm_cannot(MxmKernel k, const MxmInfo& info) {
  if (k == MxmKernel::CpuRowBalanced) return "cpu_row_balanced is a CPU kernel";
  if (!info.precompiled && k != MxmKernel::Generic) {
    return std::string(to_string(info.semiring)) +
           " has no specialized kernels in this build (only generic)";
  }
  if (k == MxmKernel::Cusparse && info.semiring != SemiringKind::PlusTimes) {
    return "cuSPARSE computes plus_times only";
  }
  if (k == MxmKernel::Spmv && info.n != 1) {
    return "spmv computes N = 1 only, this call has N = " + std::to_string(info.n);
  }
  if (k == MxmKernel::Spmv && info.accum) return "spmv runs without an accumulator";
  if (k == MxmKernel::Spmv && info.epilogue) return "spmv runs without a bias or activation";
  return "";
}

std::string cuda_sddmm_cannot(SddmmKernel k, const SddmmInfo& info) {
  if (k == SddmmKernel::CpuRowBalanced) return "cpu_row_balanced is a CPU kernel";
  if (!info.precompiled && k != SddmmKernel::Generic) {
    return std::string(to_string(info.semiring)) +
           " has no specialized kernels in this build (only generic)";
  }
  if (k == SddmmKernel::AsptTiled) return "aspt_tiled is not implemented for sddmm";
  if (k == SddmmKernel::Cusparse && info.semiring != SemiringKind::PlusTimes) {
    return "cuSPARSE computes plus_times only";
  }
  return "";
}

/// Lanes per row of parallel_reduce_vec: the average row rounded up to a power of two, 4..32
/// (short rows would leave most of a warp idle: Adaptive Workload-Balancing and
/// Parallel-Reduction, Huang et al., §2.2, last paragraph).
int reduce_lanes(double avg_row) {
  int lanes = 4;
  while (lanes < 32 && lanes < avg_row) lanes *= 2;
  return lanes;
}

// The rules' pick for a call with specialized kernels (parameters may be left at 0: finalized
// after).
Plan mxm_rules(const GraphStats& stats, const MxmInfo& info, const DeviceCaps& caps,
               const Plan* tuned_mxv) {
  Plan p = base(OpKind::Mxm);
  const double vb = static_cast<double>(value_bytes(info.value));
  const std::int64_t n = info.n;
  const double total_us =
      static_cast<double>(stats.nnz) * (8.0 + vb * static_cast<double>(n)) / kGatherBytesPerUs;
  const bool skewed = stats.imbalance() > kImbalanceBalanced && total_us > kMinSerialUs;
  // The row kernel the width calls for, and how long its longest row keeps one warp busy.
  const bool parallel = n <= kParallelReduceMaxN ||
                        (n <= kParallelReduceLongRowsMaxN && stats.avg_row >= kLongAverageRow);
  const int lanes = reduce_lanes(stats.avg_row);
  const double in_flight = parallel ? 2.0 * lanes : kSeqGathersInFlight;
  const double row_us = static_cast<double>(stats.max_row) / in_flight * kGatherLatencyUs;
  const bool row_dominates = row_us > kSerialShare * total_us && row_us > kMinSerialUs;

  if (n == kSpmvN && !info.accum && !info.epilogue) {
    const Plan mv = plan_mxv_cuda(
        stats, plain_mxv_info(info.semiring, info.value, info.matrix_value, info.index), caps,
        Descriptor{}, tuned_mxv);
    p.mxm = MxmKernel::Spmv;
    p.mxv = mv.mxv;
    p.params = mv.params;
    p.tuned = mv.tuned;
    p.reason = "N = 1: an SpMV with mxv's rules: " + mv.reason;
    return p;
  }
  const bool small_graph = stats.nnz < kSpmmSmallGraphNnz;
  const bool long_rows_parallel =
      n <= kParallelReduceLongRowsMaxN && stats.avg_row >= kLongAverageRow;
  const bool split = stats.max_row > kSplitMinLongestRow &&
                     static_cast<double>(stats.max_row) > kSplitLongestOverAverage * stats.avg_row;
  // Long average rows at N = 16: a warp per row either way; entry sets read each row once where
  // parallel_reduce_vec re-reads it per 4 columns, but where one row dominates the split form's
  // second launch costs more (bcsstk13 N = 16: 0.009 against 0.011 ms; email-Eu-core, split:
  // 0.013 against 0.011).
  if (small_graph && n >= kSmallGraphRowCacheMinN && !(long_rows_parallel && split)) {
    const bool passes = !split && stats.avg_row >= kLongAverageRow && n > kSpmmSeqEntrySetTile &&
                        n <= kEntrySetTileMaxN;
    p.mxm = MxmKernel::RowCacheSeq;
    if (split) p.params.items_per_worker = kSpmmSplitPiece;
    p.params.lanes_per_row = kSpmmSeqWarpLanes;
    if (passes) p.params.tile = kSpmmSeqEntrySetTile;
    p.reason = "N = " + std::to_string(n) + ", small graph (" + std::to_string(stats.nnz) +
               " entries): sequential row caching, a warp per row with the lanes beyond the "
               "columns splitting its entries, " +
               (split ? "rows cut into pieces of <= " + std::to_string(kSpmmSplitPiece) +
                            " entries (longest row " + std::to_string(stats.max_row) + ", avg " +
                            fmt(stats.avg_row) + ")"
                      : "whole rows (longest " + std::to_string(stats.max_row) + ")") +
               (passes ? ", passes of " + std::to_string(kSpmmSeqEntrySetTile) +
                             " columns (avg row " + fmt(stats.avg_row) + ")"
                       : "");
    return p;
  }
  const bool row_block = stats.avg_row < kLongAverageRow &&
                         (n <= kRowBlockMaxN || small_graph ||
                          (n <= kRowBlockSkewedMaxN && stats.imbalance() > kImbalanceBalanced &&
                           stats.nnz < kSpmmGroupFormMinNnz));
  if (row_block) {
    p.mxm = MxmKernel::RowBlock;
    p.params.block_threads = 256;
    p.reason =
        "N = " + std::to_string(n) +
        (n <= kRowBlockMaxN ? std::string(": a B-row slice is one sector")
         : small_graph ? ", small graph (" + std::to_string(stats.nnz) + " entries): one launch"
                       : ", skewed rows (stdv/avg " + fmt(stats.imbalance()) + ")") +
        ", CSR-Stream row blocks (avg row " + fmt(stats.avg_row) + ")";
  } else if (row_dominates || skewed) {
    p.mxm = MxmKernel::NnzBalancedSeq;
    p.reason =
        "dgSPARSE Insight 2: " +
        (row_dominates
             ? "longest row " + std::to_string(stats.max_row) + " (~" + fmt(row_us) +
                   " us serial in a row kernel) outlasts the call (~" + fmt(total_us) + " us)"
             : "stdv/avg row " + fmt(stats.imbalance()) + " > " + fmt(kImbalanceBalanced)) +
        ", nnz-balanced (N = " + std::to_string(n) + ")";
  } else if (parallel) {
    p.mxm = MxmKernel::ParallelReduceVec;
    p.params.lanes_per_row = lanes;
    p.reason = "dgSPARSE Insight 1: N = " + std::to_string(n) + ", parallel reduction, " +
               std::to_string(lanes) + " lanes for avg row " + fmt(stats.avg_row);
  } else {
    p.mxm = MxmKernel::RowCacheSeq;
    p.reason = "dgSPARSE Insight 1: N = " + std::to_string(n) +
               ", sequential row caching, rows balanced (stdv/avg " + fmt(stats.imbalance()) + ")";
  }
  return p;
}

}  // namespace

std::string finalize_mxm_cuda(Plan& p, const GraphStats& stats, const MxmInfo& info,
                              const DeviceCaps& caps, const Plan* tuned_mxv) {
  if (std::string why = cuda_mxm_cannot(p.mxm, info); !why.empty()) return why;
  LaunchParams& q = p.params;
  const std::int64_t vb = value_bytes(info.value);
  const int wide = static_cast<int>(16 / vb);
  const int vec = spmm_vec_for(info.n, vb);
  // The sequential kernels exist for the widest vector and for single elements.
  const int seq_vec = vec == wide ? wide : 1;
  if (p.mxm != MxmKernel::Spmv) {
    p.mxv = MxvKernel::Auto;
    q.form = KernelForm::Default;
  }
  switch (p.mxm) {
    case MxmKernel::ParallelReduceVec:
      q.lanes_per_row =
          q.lanes_per_row > 0 ? spmm_group_lanes(q.lanes_per_row, 1) : reduce_lanes(stats.avg_row);
      q.block_threads = 256;
      q.vec = 0;
      break;
    case MxmKernel::RowCacheSeq:
      q.vec = seq_vec;
      if (q.lanes_per_row > 0) q.lanes_per_row = spmm_group_lanes(q.lanes_per_row, 1);
      q.block_threads = 256;
      break;
    case MxmKernel::NnzBalancedSeq: {
      q.vec = seq_vec;
      const KernelForm asked = p.params.form;
      const int lanes = spmm_group_lanes(info.n, seq_vec, q.tile);
      // The group form is compiled for 8- and 16-byte fragments at the widths that take them
      // (spmm_group_form_fits); elsewhere the warp form runs.
      const bool group =
          stats.nnz > 0 && spmm_group_form_fits(info.n, vb) &&
          (asked == KernelForm::BalancedGroup ||
           (asked != KernelForm::BalancedWarp && lanes >= 4 && stats.nnz >= kSpmmGroupFormMinNnz));
      q.form = group ? KernelForm::BalancedGroup : KernelForm::BalancedWarp;
      if (!group && q.items_per_worker <= 0) {
        // The warp form walks a chunk P = 32/G entries per step. 64 steps per chunk amortize its
        // setup (head row, partials, fix-up work); small graphs get smaller chunks so that there
        // are still about 8 warps per SM (a 26K-entry graph in 2048-entry chunks would run on 13
        // warps), but never less than one step.
        const std::int64_t step = 32 / lanes;
        const std::int64_t sms = caps.sm_count > 0 ? caps.sm_count : 132;
        const std::int64_t spread = (stats.nnz + 8 * sms - 1) / (8 * sms);
        std::int64_t chunk =
            std::min<std::int64_t>(64 * step, std::max<std::int64_t>(step, spread));
        q.items_per_worker = (chunk + step - 1) / step * step;
      }
      q.block_threads = 256;
      break;
    }
    case MxmKernel::RowBlock:
      if (q.items_per_worker <= 0 && stats.nnz < kSpmmSmallGraphNnz) {
        q.items_per_worker = kSpmmSmallGraphLongRow;
      }
      q.block_threads = 256;
      q.vec = 0;
      break;
    case MxmKernel::AsptTiled:
      q.vec = seq_vec;
      if (q.items_per_worker <= 0) q.items_per_worker = kAsptLongRow;
      q.block_threads = 256;
      break;
    case MxmKernel::Spmv: {
      const MxvInfo mi = plain_mxv_info(info.semiring, info.value, info.matrix_value, info.index);
      if (p.mxv == MxvKernel::Auto) {
        const Plan mv = plan_mxv_cuda(stats, mi, caps, Descriptor{}, tuned_mxv);
        p.mxv = mv.mxv;
        q = mv.params;
        return "";
      }
      Plan m = p;
      m.op = OpKind::Mxv;
      if (std::string why = finalize_mxv_cuda(m, stats, mi, caps); !why.empty()) return why;
      q = m.params;
      break;
    }
    case MxmKernel::Cusparse:
      q = LaunchParams{};
      break;
    case MxmKernel::Generic: {
      const Plan g = plan_generic_mxm(stats, info, "");
      if (q.lanes_per_row <= 0) q.lanes_per_row = g.params.lanes_per_row;
      q.lanes_per_row = spmm_group_lanes(q.lanes_per_row, 1);
      if (q.items_per_worker <= 0) q.items_per_worker = g.params.items_per_worker;
      q.block_threads = 256;
      q.tile = 0;
      q.vec = 0;
      break;
    }
    default:
      return std::string(to_string(p.mxm)) + " is not a CUDA SpMM kernel";
  }
  return "";
}

Plan settle_mxm_plan(const Plan& rules, const GraphStats& stats, const MxmInfo& info,
                     const DeviceCaps& caps, const Descriptor& desc, const Plan* tuned_mxm,
                     const Plan* tuned_mxv) {
  if (desc.mxm_kernel != MxmKernel::Auto) {
    Plan f = rules;
    if (f.mxm != desc.mxm_kernel) {
      f.params = LaunchParams{};
      f.mxv = MxvKernel::Auto;
    }
    f.mxm = desc.mxm_kernel;
    const std::string why = finalize_mxm_cuda(f, stats, info, caps, tuned_mxv);
    if (why.empty()) {
      f.forced = true;
      f.tuned = false;
      f.reason = "forced by the descriptor";
      return f;
    }
    return apply_forced(rules, &Plan::mxm, desc.mxm_kernel, why);
  }
  if (tuned_mxm != nullptr && info.precompiled) {
    // A winner of tuning mode for this graph, width, semiring and value type.
    Plan t = *tuned_mxm;
    t.op = OpKind::Mxm;
    t.device = Device::Cuda;
    if (const std::string why = finalize_mxm_cuda(t, stats, info, caps, tuned_mxv); why.empty()) {
      t.tuned = true;
      t.forced = false;
      return t;
    }
  }
  return rules;
}

Plan plan_mxm_cuda(const GraphStats& stats, const MxmInfo& info, const DeviceCaps& caps,
                   const Descriptor& desc, const Plan* tuned_mxm, const Plan* tuned_mxv) {
  if (desc.mxm_kernel == MxmKernel::Generic) {
    Plan g =
        plan_generic_mxm(stats, info, generic_why(OpKind::Mxm, info.semiring, info.value, true));
    g.forced = true;
    return g;
  }
  if (!info.precompiled) {
    return settle_mxm_plan(
        plan_generic_mxm(stats, info, generic_why(OpKind::Mxm, info.semiring, info.value, false)),
        stats, info, caps, desc, nullptr, nullptr);
  }
  Plan p = mxm_rules(stats, info, caps, tuned_mxv);
  if (const std::string why = finalize_mxm_cuda(p, stats, info, caps, tuned_mxv); !why.empty()) {
    throw InvalidArgument("mxm planner: its own pick cannot run (" + why + ")");
  }
  return settle_mxm_plan(p, stats, info, caps, desc, tuned_mxm, tuned_mxv);
}

std::string finalize_sddmm_cuda(Plan& p, const GraphStats& stats, const SddmmInfo& info) {
  if (std::string why = cuda_sddmm_cannot(p.sddmm, info); !why.empty()) return why;
  switch (p.sddmm) {
    case SddmmKernel::Vct:
    case SddmmKernel::Iir:
    case SddmmKernel::Wmt:
    case SddmmKernel::Cusparse:
      p.params = LaunchParams{};
      p.params.block_threads = 256;
      return "";
    case SddmmKernel::Generic: {
      const Plan g = plan_generic_sddmm(stats, info, "");
      if (p.params.lanes_per_row <= 0) p.params.lanes_per_row = g.params.lanes_per_row;
      p.params.lanes_per_row = spmm_group_lanes(p.params.lanes_per_row, 1);
      p.params.block_threads = 256;
      return "";
    }
    default:
      return std::string(to_string(p.sddmm)) + " is not a CUDA SDDMM kernel";
  }
}

Plan plan_sddmm_cuda(const GraphStats& stats, const SddmmInfo& info, const DeviceCaps& /*caps*/,
                     const Descriptor& desc, const Plan* tuned) {
  Plan p;
  if (desc.sddmm_kernel == SddmmKernel::Generic || !info.precompiled) {
    p = plan_generic_sddmm(stats, info,
                           generic_why(OpKind::Sddmm, info.semiring, info.value,
                                       desc.sddmm_kernel == SddmmKernel::Generic));
    if (desc.sddmm_kernel == SddmmKernel::Generic) {
      p.forced = true;
      return p;
    }
  } else {
    p = base(OpKind::Sddmm);
    if (info.k <= kIirMaxK || info.k > kVctMaxK) {
      p.sddmm = SddmmKernel::Iir;
      p.reason = "PRedS + measured: K = " + std::to_string(info.k) + ", interleaved reduction";
    } else {
      p.sddmm = SddmmKernel::Vct;
      p.reason =
          "measured: K = " + std::to_string(info.k) + ", one K chunk per lane, 1-D tiles of 16";
    }
    finalize_sddmm_cuda(p, stats, info);
  }
  if (desc.sddmm_kernel != SddmmKernel::Auto) {
    Plan f = p;
    f.sddmm = desc.sddmm_kernel;
    const std::string why = finalize_sddmm_cuda(f, stats, info);
    if (why.empty()) {
      f.forced = true;
      f.reason = "forced by the descriptor";
      return f;
    }
    return apply_forced(p, &Plan::sddmm, desc.sddmm_kernel, why);
  }
  if (tuned != nullptr && info.precompiled) {
    Plan t = *tuned;
    t.op = OpKind::Sddmm;
    t.device = Device::Cuda;
    if (finalize_sddmm_cuda(t, stats, info).empty()) {
      t.tuned = true;
      t.forced = false;
      return t;
    }
  }
  return p;
}

}  // namespace spindle::detail
