// SPDX-License-Identifier: Apache-2.0
// CUDA planner rules for mxv / vxm. A pure function of (GraphStats, call info, DeviceCaps,
// Descriptor): plain host code compiled in every build, so CPU-only tests check its decisions
// with reference_hopper_caps().
//
// Starting point: Ginkgo's Alg. 2 (Load-balancing SpMV Kernels on GPUs, Anzt et al.: load
// balancing above 1e6 rows or when a row is longer than 64) and dgSPARSE's rules (Adaptive
// Workload-Balancing and Parallel-Reduction, Huang et al., §2.2: balance when stdv_row /
// avg_row is high; short rows waste the lanes of a warp-per-row kernel), then set from our
// measurements:
// apps/bench/mxv_bench.cpp on an NVIDIA H200 (fp32 plus_times, int32, medians of 30 runs; the
// tables are in docs/design/mxv.md). Each constant names the measurement behind it.
#include <algorithm>
#include <cstdint>
#include <string>

#include "ops/core/plan_format.hpp"
#include "ops/core/planner.hpp"
#include "ops/core/vxm_push.hpp"
#include "ops/cuda/mxv/column_segments.hpp"
#include "ops/cuda/mxv/partition.hpp"
#include "ops/cuda/mxv/row_block_warp_tasks.hpp"
#include "ops/cuda/mxv/sliced_slots.hpp"
#include "spindle/error.hpp"

namespace spindle::detail {
namespace {

// --- Thresholds -------------------------------------------------------------------------------

// Rows even enough for a row kernel (dgSPARSE's stdv/avg test). Measured: uniform graphs
// (stdv/avg 0.25) ran fastest on subwarp_per_row at every scale 18-23 (5-20% ahead of
// nnz_split / merge_path); R-MAT (stdv/avg 7-14) ran 2-3x slower on subwarp than on nnz_split.
constexpr double kBalancedImbalance = 1.0;
// Ginkgo Alg. 2's long-row test: one row this long stalls its warp in a row kernel.
constexpr std::int64_t kLongRow = 1024;
// Below this many entries a call takes a few microseconds whatever the kernel (launch-bound):
// the real graphs of the data folder (<= 84k entries) ran 4.2-5.6 us on subwarp_per_row, but
// 7.6-14 us on nnz_split / merge_path, which launch a second (fix-up) kernel. Rows up to
// kSmallLongRow are then still handled by 32 lanes (as20graph: max row 1459, subwarp/32 10.5 us
// vs nnz_split/512 18.6 us and merge_path 14.2 us).
constexpr std::int64_t kSmallNnz = 1 << 17;
constexpr std::int64_t kSmallLongRow = 8192;
// Small but skewed (stdv/avg above this): row_block/1024, which gives each long row a block of its
// own, for graphs this small needs one launch (partition.hpp) and runs its small form (a
// segmented scan for blocks of many short rows, row_block.cuh). as20graph (stdv/avg 6.1, longest
// row 1459), H200: 6.8 us against row_block/512's 8.2 us, subwarp/32's 10.5 us and cuSPARSE's
// 8.6 us (before the small form both row_block sizes took 8.2 us). email-Eu-core (stdv/avg 1.3)
// stays on subwarp/32: 5.7 us against row_block's 6.6 us.
constexpr double kSmallSkewImbalance = 2.0;
// Small plain calls go to sliced_coo (ops/cuda/mxv/sliced_coo.cuh) when their rows fit its
// slots: its entries carry their rows at fixed offsets, so a call reads entries -> u -> y, one
// level of dependent loads fewer than the CSR kernels. `spindle bench mxv` on an H200 (fp32, us,
// the old rule's pick and sliced_coo in the same run; docs/design/mxv.md):
//   1138_bus subwarp/2 4.72 -> 4.06 (warp slots of 128), bcsstk13 subwarp/32 4.69 -> 4.27,
//   cryg2500 subwarp/4 4.22 -> 4.14, jagmesh7 subwarp/4 4.26 -> 4.00, C-elegans subwarp/4 4.26 ->
//   4.05, chesapeake subwarp/8 4.42 -> 3.94, lp_afiro subwarp/2 4.22 -> 3.89;
//   email-Eu-core (longest row 334) subwarp/32 5.42 -> 4.40 (block slots of 512);
//   as20graph (longest row 1459) row_block/1024 6.46 -> 4.85 (block slots of 2048).
// The general path (masks, accumulators, absent inputs) takes it when the rows are uneven
// (stdv/avg above kSlicedGeneralMinImbalance). Measured outside `spindle bench` (H200, us,
// the rules' pick -> sliced_coo; a structural mask over half the rows, complemented and not, half
// of u absent, w += A u): as20graph (stdv/avg 6.1) 9.8-10.1 -> 6.3-6.6, email-Eu-core (1.3)
// 7.1-9.7 -> 6.1-7.9, chesapeake (0.70) 5.9-6.2 -> 4.9-5.2, C-elegans (0.88) 5.8-6.9 -> 5.2-6.8,
// 1138_bus (0.51) 6.3-6.6 -> 5.6-5.9, bcsstk13 (0.54) 5.8-6.2 -> 5.4-5.7, lp_afiro (0.48)
// 5.0-5.6 -> 5.1-5.2; on the even meshes the row kernels stay ahead: cryg2500 (0.05) 0.93-1.01x,
// jagmesh7 (0.13) 0.89-0.97x (a masked row kernel reads the mask before its row, sliced_coo at
// the end).
// The slot layout holds an empty row as one placeholder entry, hence entries + empty rows.
constexpr double kSlicedGeneralMinImbalance = 0.3;
// Skewed rows go to row_block (blocks of whole rows staged in shared memory, long rows split),
// over columns relabelled by in-degree so that the most gathered entries of u share cache lines
// and stay in L1 (row_block.cuh). `spindle bench mxv` on an H100 (fp32 plus_times, R-MAT edge
// factor 16, ms per call; docs/design/mxv.md):
//   scale | row_block/512 +relabel | row_block/1024 +relabel | nnz_split/1024 | best cuSPARSE
//   18    | 0.0394  0.0332         | 0.0394  0.0370          | 0.0489         | 0.0364
//   20    | 0.1463  0.1082         | 0.1447  0.1049          | 0.1519         | 0.1349
//   22    | 0.6086  0.5101         | 0.5989  0.4981          | 0.5992         | 0.5596
//   23    | 1.3580  1.0957         | 1.3375  1.0686          | 1.3844         | 1.2601
// Relabelling pays at every scale with row_block (it cost nnz_split 1-9% at scales 18-22 on the
// H200: the gather of u it adds was not won back) but needs a skewed column distribution: on
// uniform graphs it cost 5-12%. The planner reads the columns' spread from the graph's sampled
// in-degree stdv/avg (GraphStats::col_imbalance_est; the rows' stdv/avg stands in where no
// estimate exists), so even rows over skewed columns relabel too: on a bipartite users x items
// graph (bip22: 4.19 M even rows, stdv/avg 0.25, over 1.05 M items of popularity exponent 2.2),
// `spindle bench mxv --graphs bip22`, H200, fp32 values, against the best cuSPARSE: row_block's
// warp form over relabelled columns 1.35x, the block forms 1.10x / 1.12x relabelled and
// 0.94x / 0.95x not. Tuning mode tries both. Below kRelabelMinCols columns every entry of u fits
// the hot set anyway.
constexpr double kRelabelImbalance = 2.0;
constexpr std::int64_t kRelabelMinCols = 65536;
// row_block entries per block: 512 (128 threads) below 1e7 entries, 1024 (256 threads) above
// (table above; the two were within 3% of each other at scales 19-23, either way).
constexpr std::int64_t kRowBlockSmallBelowNnz = 10000000;
// Even rows from this many entries on also go to row_block/1024 (no relabelling): on the H100,
// uniform scale 20 / 21 / 22 / 23 ran 0.1554 / 0.3061 / 0.6110 / 1.6407 ms against subwarp/8's
// 0.1560 / 0.3069 / 0.6244 / 1.7719 (uniform scale 18-19 were within 3% either way, so below
// this the single-kernel subwarp stays).
constexpr std::int64_t kRowBlockEvenMinNnz = 16000000;
constexpr std::int64_t kRowBlockSmall = 512;
constexpr std::int64_t kRowBlockLarge = 1024;
// Skewed rows from kRowBlockWarpMinNnz entries on, with the columns relabelled: row_block's warp
// form (256 entries per warp task, a persistent grid, the hottest 160 KB of u in shared memory;
// ops/cuda/mxv/row_block_warp.cuh). `spindle bench mxv` on an H200 (fp32, ms, relabelled; the
// gather of u included):
//   R-MAT scale | warp form (256) | row_block/512 | row_block/1024 | best cuSPARSE
//   20          | 0.1015          | 0.1006        | 0.0996         | 0.1177
//   21          | 0.1905          | 0.2013        | 0.2282         | 0.2430
//   22          | 0.4035          | 0.4429        | 0.4201         | 0.4720
//   23          | 0.8904          | 0.9305        | 0.8939         | 1.0092
// so from 2e7 entries on (scale 21 up); below, the block forms are as fast or 1-2% faster.
// (That table is the lane-group form. The general path still runs it, and is relabelled from
// kRowBlockWarpMinNnz on.)
constexpr std::int64_t kRowBlockWarp = 256;
constexpr std::int64_t kRowBlockWarpMinNnz = 20000000;
// Plain calls run the runs kernel (whole-row runs reduced by a segmented scan), which took the
// warp form's lead down to R-MAT scale 19. `spindle bench mxv`, H200, session 35 (fp32, ms,
// relabelled, the gather of u included):
//   graph (entries, avg row)  | warp form (256) | row_block/512 | row_block/1024 | best cuSPARSE
//   R-MAT 18 (3.9M, 15)       | 0.0377          | 0.0312        | 0.0340         | 0.0335
//   R-MAT 19 (8.0M, 15)       | 0.0521          | 0.0599        | 0.0583         | 0.0608
//   R-MAT 20 (16M, 15)        | 0.0877          | 0.1009        | 0.1000         | 0.1181
//   R-MAT 22, edge factor 2   | 0.0974          | 0.0905        | 0.1028         | 0.0802
//     (8.3M, 2)
// so plain calls take it from 6e6 entries when rows average 8 entries or more, and from 2e7 on
// whatever the average.
constexpr std::int64_t kRowBlockWarpPlainMinNnz = 6000000;
constexpr double kRowBlockWarpPlainMinAvgRow = 8.0;
// ...except where u outgrows L2 and fewer than kRowBlockWarpPastL2MinEmptyShare of the rows are
// empty: there the block form row_block/1024 (relabelled) leads. `spindle bench mxv --quick
// --reps 10`, H100, session 11 (fp32, ms, relabelled, a warp per long row; share of empty rows):
//   graph (u)                 | empty | warp form (256) | row_block/512 | row_block/1024 | cuSPARSE
//   rmat22 (16.8 MB)          | 52%   | 0.3993          | 0.5012        | 0.4924         | 0.5588
//   plaw22-g2.1 (16.8 MB)     | 4.4%  | 0.4137          | 0.4517        | 0.4444         | 0.4536
//   plaw22-g2.5 (16.8 MB)     | 0.1%  | 0.5739          | 0.6469        | 0.6404         | 0.5877
//   bip22 (4.2 MB of items)   | 0%    | 0.3778          | 0.4766        | 0.4686         | 0.5082
//   rmat24 (67 MB)            | 56%   | 2.0357          | 2.5577        | 2.4567         | 3.2571
//   rmat25 (134 MB)           | 58%   | 4.9011          | 5.3973        | 5.3326         | 9.2237
//   plaw24-g2.1 (67 MB)       | 4.8%  | 2.9412          | 2.7062        | 2.6666         | 3.3542
//   plaw24-g2.5 (67 MB)       | 0.1%  | 5.2098          | 4.9066        | 4.8380         | 5.3462
// The rule follows the table; it is not profiled. What separates the families past L2 is their
// empty rows: about half of R-MAT's rows, a few percent of the power laws'.
constexpr double kRowBlockWarpPastL2MinEmptyShare = 0.25;
// merge_path when rows outnumber entries: nnz_split walks a chunk's rows 32 per window step, so
// chunks covering long runs of empty rows slow down, while merge path gives every thread the same
// rows + entries. Not reached by the benchmark's graphs: on R-MAT scale 22 with edge factor 2
// (avg 2.0, 70% empty rows) nnz_split/512 ran 3.5% ahead of merge_path/6, so the cut-off stays at
// one entry per row, below any graph measured.
constexpr double kMergeMaxAvgRow = 1.0;
// merge_path items per thread: 6 best at scale 22-23 (8 was 4-14% slower there), within 5% of
// the best K elsewhere.
constexpr int kMergeItems = 6;
// Even rows this short run one thread per row: uniform scale 22, edge factor 2 (avg 2.0) ran
// 0.078 ms on row_per_thread, as fast as subwarp/2 and 23% ahead of nnz_split / merge_path
// (H200). 2D meshes of 4.19 M vertices (avg 4.0; `bench mxv --graphs mesh22,mesh22-r`, H100,
// fp32): row_per_thread 1.26x / 1.06x the best cuSPARSE where row_block/1024 ran 0.90x / 1.02x.
constexpr double kRowPerThreadMaxAvg = 5.0;
constexpr int kDefaultBlockThreads = 256;
// LaunchParams::tile value that relabels columns for the mxv kernels (ops/cuda/mxv/mxv_entry.cuh).
constexpr int kRelabelColumns = 1;

// Launch defaults of a plan whose parameters are left at 0 (forced kernels, tuning candidates):
// subwarp lanes, nnz_split's entries per warp, merge_path's items per thread (16 at most: its
// shared memory), row_block's entries per block (256 threads).
constexpr int kDefaultLanes = 8;
constexpr std::int64_t kDefaultChunk = 1024;
constexpr int kDefaultMergeItems = 8;
constexpr int kMaxMergeItems = 16;
constexpr std::int64_t kDefaultRowBlockEntries = 1024;
// row_block's loads by the graph's size (KernelForm): RowBlockSmall below kSmallNnz (one launch,
// short rows by a segmented scan; plain calls only, the general path takes RowBlockL2),
// RowBlockL2 while the index and value streams take at most kRowBlockL2ResidentShare of L2,
// RowBlockStreaming (evict-first streams) above. The share is set between R-MAT 18 (31.5 MB on a
// 60 MB L2: plain loads 30.7 us, streaming 30.3-33.6) and R-MAT 19 (64 MB: plain loads 13%
// slower), H200.
constexpr double kRowBlockL2ResidentShare = 0.6;
// column_segmented (ops/cuda/mxv/column_segmented.cuh) when u outgrows L2: each range of columns
// holds kColumnSegmentL2Share of L2 worth of u, so that its gathers stay in L2 while the matrix
// streams past. Prototype on an H100 (50 MB L2; fp32 pattern, ms, best cuSPARSE -> ranges):
// uniform scale 25 (u 134 MB) 15.27 -> 2 ranges 15.08, 3 11.78, 4 8.42, 6 (22 MB) 5.07, 8 (17
// MB) 5.19-6.70, 12 6.95, 16 9.16; scrambled mesh of 16.8 M vertices (u 67 MB) 1.62 -> 2 ranges
// 1.07, 3 (22 MB) 0.79, 4 0.94-1.20, 6 1.46; uniform scale 22 (u 17 MB, in L2) 0.60 -> 0.59-1.27
// (no gain). Planned when u is at least kColumnSegmentMinL2Multiple times L2, on rows no more
// uneven than kRelabelImbalance (skewed graphs keep row_block over relabelled columns, whose hot
// set stays in L1), and when the layout (a copy of the entries) takes at most
// kColumnSegmentMaxMemoryShare of the device's memory.
constexpr double kColumnSegmentL2Share = 0.45;
constexpr double kColumnSegmentMinL2Multiple = 1.0;
constexpr double kColumnSegmentMaxMemoryShare = 0.25;
// sliced_coo's layout keeps row ids in 29 bits (partition.hpp, kSlicedEnd).
constexpr std::int64_t kSlicedMaxRows = cuda::kSlicedEnd;

std::string fmt(double v) { return format_g3(v); }

Plan base(OpKind op) {
  Plan p;
  p.op = op;
  p.device = Device::Cuda;
  p.params.block_threads = kDefaultBlockThreads;
  return p;
}

// Lanes per row for subwarp_per_row: the power of two at least half the average row (two
// entries per lane: uniform avg 16 ran best with 8 lanes, 4-7% ahead of 4 and 16), 32 when rows
// are skewed (the long rows dominate: email-Eu-core, as20graph).
int lanes_for(const GraphStats& s) {
  if (s.imbalance() > kBalancedImbalance) return 32;
  int lanes = 2;
  while (lanes < 32 && lanes * 2 < s.avg_row) lanes *= 2;
  return lanes;
}

std::string cuda_mxv_cannot(MxvKernel k, const MxvInfo& info) {
  if (!info.precompiled && k != MxvKernel::Generic && k != MxvKernel::CpuRowBalanced) {
    return std::string(to_string(info.semiring)) +
           " has no specialized kernels in this build (only generic)";
  }
  const bool plain = !info.masked && !info.accum && info.input_full;
  switch (k) {
    case MxvKernel::CpuRowBalanced:
      return "cpu_row_balanced is a CPU kernel";
    case MxvKernel::RowPerThread:
    case MxvKernel::NnzSplitSegmented:
    case MxvKernel::MergePath:
    case MxvKernel::ColumnSegmented:
      if (!plain) {
        return std::string(to_string(k)) +
               " runs plain calls only (no mask, accumulator or absent input entries)";
      }
      return "";
    case MxvKernel::SellP:
      return "sell_p is not implemented";
    case MxvKernel::PushScatter:
      if (info.op != OpKind::Vxm || info.transpose_a) {
        return "push_scatter runs vxm over the rows of A only (not mxv or a transposed vxm)";
      }
      if (push_monoid(info.semiring) == PushMonoid::None) {
        return "push_scatter needs a min, max, lor or any monoid (a plus would depend on the "
               "order the atomics land in)";
      }
      return "";  // vxm runs it before any pull planning (ops/core/vxm_push.hpp)
    case MxvKernel::Cusparse:
      if (info.semiring != SemiringKind::PlusTimes) return "cuSPARSE computes plus_times only";
      if (info.masked || info.accum) return "cuSPARSE has no mask or accumulator";
      if (!info.input_full) return "cuSPARSE needs every input entry present";
      return "";
    default:
      return "";
  }
}

bool reads_no_values(const MxvInfo& info) {
  return info.matrix_value == ValueKind::Pattern || info.semiring == SemiringKind::AnyPair ||
         info.semiring == SemiringKind::PlusPair;
}

int index_bytes(const MxvInfo& info) { return info.index == IndexKind::Int64 ? 8 : 4; }
int semiring_value_bytes(const MxvInfo& info) { return info.value == ValueKind::Double ? 8 : 4; }

// column_segmented's default range: kColumnSegmentL2Share of L2 worth of u (1 column when the
// device's L2 is unknown: the caller's width then decides).
std::int64_t column_segment_width(const MxvInfo& info, const DeviceCaps& caps) {
  return std::max<std::int64_t>(
      1, static_cast<std::int64_t>(kColumnSegmentL2Share * static_cast<double>(caps.l2_bytes)) /
             semiring_value_bytes(info));
}

std::int64_t column_segments_layout_bytes(const GraphStats& stats, const MxvInfo& info,
                                          std::int64_t segments) {
  return cuda::column_segments_bytes(stats.rows, stats.nnz, segments, index_bytes(info),
                                     reads_no_values(info) ? 0 : semiring_value_bytes(info));
}

// True when column_segmented pays (kColumnSegmentMinL2Multiple): u outgrows L2, the rows are
// even enough and the layout fits its share of the device's memory.
bool column_segments_pay(const GraphStats& stats, const MxvInfo& info, const DeviceCaps& caps) {
  if (caps.l2_bytes <= 0 || stats.imbalance() > kRelabelImbalance) return false;
  const double u_bytes = static_cast<double>(stats.cols) * semiring_value_bytes(info);
  if (u_bytes < kColumnSegmentMinL2Multiple * static_cast<double>(caps.l2_bytes)) return false;
  const std::int64_t segments =
      cuda::column_segment_count(stats.cols, column_segment_width(info, caps));
  if (segments < 2 || segments > cuda::kMaxColumnSegments) return false;
  return caps.global_mem_bytes <= 0 ||
         static_cast<double>(column_segments_layout_bytes(stats, info, segments)) <=
             kColumnSegmentMaxMemoryShare * static_cast<double>(caps.global_mem_bytes);
}

// The columns' spread that decides relabelling: the sampled in-degree stdv/avg, or the rows'
// stdv/avg where the statistics carry no estimate.
double column_imbalance(const GraphStats& s) {
  return s.col_imbalance_est >= 0.0 ? s.col_imbalance_est : s.imbalance();
}

int power_of_two_lanes(int lanes) {
  int l = 2;
  while (l < 32 && l < lanes) l *= 2;
  return l;
}

}  // namespace

std::string finalize_mxv_cuda(Plan& p, const GraphStats& stats, const MxvInfo& info,
                              const DeviceCaps& caps) {
  if (std::string why = cuda_mxv_cannot(p.mxv, info); !why.empty()) return why;
  const bool plain = !info.masked && !info.accum && info.input_full;
  LaunchParams& q = p.params;
  q.form = KernelForm::Default;
  q.vec = 0;
  switch (p.mxv) {
    case MxvKernel::RowPerThread:
      if (q.block_threads <= 0 || q.block_threads > 256) q.block_threads = 256;
      break;
    case MxvKernel::SubwarpPerRow:
      q.lanes_per_row = q.lanes_per_row > 0 ? power_of_two_lanes(q.lanes_per_row) : kDefaultLanes;
      if (q.block_threads < 32 || q.block_threads > 256) q.block_threads = 256;
      break;
    case MxvKernel::NnzSplitSegmented:
      if (stats.nnz == 0) return "nnz_split_segmented has no stored entries to split";
      q.items_per_worker =
          ((q.items_per_worker > 0 ? q.items_per_worker : kDefaultChunk) + 31) / 32 * 32;
      q.block_threads = 128;
      break;
    case MxvKernel::MergePath:
      q.items_per_worker = std::min<std::int64_t>(
          q.items_per_worker > 0 ? q.items_per_worker : kDefaultMergeItems, kMaxMergeItems);
      q.block_threads = 0;
      break;
    case MxvKernel::RowBlock: {
      std::int64_t entries = q.items_per_worker > 0 ? q.items_per_worker : kDefaultRowBlockEntries;
      const bool four_bytes = info.value == ValueKind::Float && info.index == IndexKind::Int32;
      const std::int64_t staging = four_bytes ? cuda::row_block_warp_runs_smem<float>(0)
                                   : info.value == ValueKind::Double
                                       ? cuda::row_block_warp_smem<double, false>(0)
                                       : cuda::row_block_warp_smem<float, false>(0);
      if (entries <= cuda::kRowBlockWarpEntries && plain && staging <= caps.smem_per_block_optin) {
        q.form = KernelForm::RowBlockWarp;
        q.items_per_worker = cuda::kRowBlockWarpEntries;
        q.block_threads = cuda::kRowBlockWarpWarps * 32;
        break;
      }
      // The block form: 512 entries (128 threads) or 1024 (256 threads).
      entries = entries <= 512 ? 512 : 1024;
      q.items_per_worker = entries;
      q.block_threads = static_cast<int>(entries / 4);
      const double stream_bytes = static_cast<double>(stats.nnz) *
                                  static_cast<double>((info.index == IndexKind::Int64 ? 8 : 4) +
                                                      (reads_no_values(info)             ? 0
                                                       : info.value == ValueKind::Double ? 8
                                                                                         : 4));
      if (stats.nnz < kSmallNnz) {
        q.form = plain ? KernelForm::RowBlockSmall : KernelForm::RowBlockL2;
      } else {
        q.form = stream_bytes <= kRowBlockL2ResidentShare * static_cast<double>(caps.l2_bytes)
                     ? KernelForm::RowBlockL2
                     : KernelForm::RowBlockStreaming;
      }
      break;
    }
    case MxvKernel::SlicedCoo: {
      std::int64_t slot = cuda::sliced_slot_for(stats.max_row);
      if (slot == 0) {
        return "sliced_coo: a row of " + std::to_string(stats.max_row) +
               " entries is longer than its largest slot of " +
               std::to_string(cuda::kSlicedLargeBlockSlot);
      }
      if (stats.rows >= kSlicedMaxRows) {
        return "sliced_coo: " + std::to_string(stats.rows) +
               " rows do not fit its layout's 29-bit row ids";
      }
      if (q.items_per_worker > 0) {
        slot = std::max(
            slot, cuda::sliced_slot_for(std::min(q.items_per_worker, cuda::kSlicedLargeBlockSlot)));
      }
      q.items_per_worker = slot;
      q.block_threads = cuda::sliced_block_threads(slot);
      q.tile = 0;  // its layout is a copy of the entries: nothing to relabel
      break;
    }
    case MxvKernel::ColumnSegmented: {
      const std::int64_t width =
          q.items_per_worker > 0 ? q.items_per_worker : column_segment_width(info, caps);
      const std::int64_t segments = cuda::column_segment_count(stats.cols, width);
      if (segments > cuda::kMaxColumnSegments) {
        return "column_segmented: " + std::to_string(segments) + " ranges of " +
               std::to_string(width) + " columns, more than its " +
               std::to_string(cuda::kMaxColumnSegments);
      }
      const std::int64_t bytes = column_segments_layout_bytes(stats, info, segments);
      if (caps.global_mem_bytes > 0 && bytes > caps.global_mem_bytes / 2) {
        return "column_segmented: its layout of " + fmt(static_cast<double>(bytes) / 1e9) +
               " GB (a copy of the entries) exceeds half the device's memory";
      }
      q.items_per_worker = width;
      q.block_threads = 256;
      q.lanes_per_row = 0;
      // The ranges cut the graph's own column ids, or the relabelled ones (tile 1).
      q.tile = q.tile == kRelabelColumns ? kRelabelColumns : 0;
      break;
    }
    case MxvKernel::Cusparse:
      q.block_threads = 0;
      q.lanes_per_row = 0;
      q.items_per_worker = 0;
      break;
    case MxvKernel::PushScatter:
      // cuda_mxv_cannot checked vxm over A with a push monoid: vxm pushes (ops/core/mxv.cpp)
      // before any pull is planned.
      q = LaunchParams{};
      q.block_threads = 256;
      break;
    case MxvKernel::Generic: {
      const Plan g = plan_generic_mxv(stats, info, "");
      if (q.lanes_per_row <= 0) q.lanes_per_row = g.params.lanes_per_row;
      q.lanes_per_row = power_of_two_lanes(q.lanes_per_row);
      if (q.items_per_worker <= 0) q.items_per_worker = g.params.items_per_worker;
      q.block_threads = 256;
      q.tile = 0;
      break;
    }
    default:
      return std::string(to_string(p.mxv)) + " is not a CUDA pull kernel";
  }
  return "";
}

Plan plan_mxv_cuda(const GraphStats& stats, const MxvInfo& info, const DeviceCaps& caps,
                   const Descriptor& desc, const Plan* tuned) {
  if (desc.mxv_kernel == MxvKernel::Generic) {
    Plan g = plan_generic_mxv(stats, info, generic_why(info.op, info.semiring, info.value, true));
    g.forced = true;
    return g;
  }
  if (!info.precompiled) {
    return settle_mxv_plan(
        plan_generic_mxv(stats, info, generic_why(info.op, info.semiring, info.value, false)),
        stats, info, caps, desc, nullptr);
  }
  Plan p = base(info.op);
  const double imbalance = stats.imbalance();
  const std::string shape = "avg row " + fmt(stats.avg_row) + ", stdv/avg " + fmt(imbalance) +
                            ", max row " + std::to_string(stats.max_row);
  const bool plain = !info.masked && !info.accum && info.input_full;
  // The smallest of sliced_coo's slots that holds the longest row (0: none does).
  const std::int64_t sliced_slot = cuda::sliced_slot_for(stats.max_row);
  if (stats.nnz + stats.empty_rows < kSmallNnz && sliced_slot > 0 &&
      (plain || imbalance > kSlicedGeneralMinImbalance)) {
    p.mxv = MxvKernel::SlicedCoo;
    p.params.items_per_worker = sliced_slot;
    p.params.block_threads = cuda::sliced_block_threads(sliced_slot);
    p.reason = "small (" + std::to_string(stats.nnz) +
               " entries, launch-bound): entries stored with their rows in slots of " +
               std::to_string(p.params.items_per_worker) +
               " at fixed offsets, one level of loads fewer; " + shape;
  } else if (stats.nnz < kSmallNnz && stats.max_row <= kSmallLongRow &&
             imbalance > kSmallSkewImbalance) {
    p.mxv = MxvKernel::RowBlock;
    p.params.items_per_worker = kRowBlockLarge;
    p.params.block_threads = static_cast<int>(kRowBlockLarge / 4);
    p.reason =
        "small (" + std::to_string(stats.nnz) +
        " entries, launch-bound) but skewed: one launch, each long row a block of its own; " +
        shape;
  } else if (stats.nnz < kSmallNnz && stats.max_row <= kSmallLongRow) {
    p.mxv = MxvKernel::SubwarpPerRow;
    p.params.lanes_per_row = lanes_for(stats);
    p.reason = "small (" + std::to_string(stats.nnz) + " entries, launch-bound): one kernel, " +
               std::to_string(p.params.lanes_per_row) + " lanes per row; " + shape;
  } else if (info.masked && !info.mask_complemented && stats.max_row <= kLongRow) {
    // A mask lets row kernels skip unselected rows entirely; balanced kernels compute them all.
    p.mxv = MxvKernel::SubwarpPerRow;
    p.params.lanes_per_row = lanes_for(stats);
    p.reason = "masked: a row kernel skips unselected rows; " + shape;
  } else if (plain && column_segments_pay(stats, info, caps)) {
    const std::int64_t width = column_segment_width(info, caps);
    const std::int64_t segments = cuda::column_segment_count(stats.cols, width);
    p.mxv = MxvKernel::ColumnSegmented;
    p.params.items_per_worker = width;
    p.reason = "u of " + fmt(static_cast<double>(stats.cols) * semiring_value_bytes(info) / 1e6) +
               " MB outgrows L2 (" + fmt(static_cast<double>(caps.l2_bytes) / 1e6) +
               " MB): columns in " + std::to_string(segments) + " ranges of " +
               std::to_string(width) + " (" +
               fmt(static_cast<double>(width) * semiring_value_bytes(info) / 1e6) +
               " MB of u each, served from L2), one pass over the rows per range; layout " +
               fmt(static_cast<double>(column_segments_layout_bytes(stats, info, segments)) / 1e6) +
               " MB, built once per graph; " + shape;
  } else if (plain && imbalance <= kBalancedImbalance && stats.max_row <= kLongRow &&
             stats.avg_row < kRowPerThreadMaxAvg) {
    p.mxv = MxvKernel::RowPerThread;
    p.reason = "even, very short rows (avg < " + fmt(kRowPerThreadMaxAvg) +
               "): one thread per row; " + shape;
  } else if (imbalance <= kBalancedImbalance && stats.max_row <= kLongRow &&
             stats.nnz >= kRowBlockEvenMinNnz) {
    p.mxv = MxvKernel::RowBlock;
    p.params.items_per_worker = kRowBlockLarge;
    p.params.block_threads = static_cast<int>(kRowBlockLarge / 4);
    p.reason = "even rows, " + std::to_string(stats.nnz) +
               " entries: blocks of whole rows with up to " + std::to_string(kRowBlockLarge) +
               " entries staged in shared memory; " + shape;
  } else if (imbalance <= kBalancedImbalance && stats.max_row <= kLongRow) {
    p.mxv = MxvKernel::SubwarpPerRow;
    p.params.lanes_per_row = lanes_for(stats);
    p.reason = "even rows (stdv/avg <= " + fmt(kBalancedImbalance) +
               "): " + std::to_string(p.params.lanes_per_row) + " lanes per row; " + shape;
  } else if (plain && stats.avg_row < kMergeMaxAvgRow) {
    p.mxv = MxvKernel::MergePath;
    p.params.items_per_worker = kMergeItems;
    p.reason = "skewed, short rows: merge path balances rows + entries; " + shape;
  } else {
    p.mxv = MxvKernel::RowBlock;
    p.params.items_per_worker =
        stats.nnz < kRowBlockSmallBelowNnz ? kRowBlockSmall : kRowBlockLarge;
    p.params.block_threads = static_cast<int>(p.params.items_per_worker / 4);
    p.reason = "skewed rows: blocks of whole rows with up to " +
               std::to_string(p.params.items_per_worker) +
               " entries staged in shared memory, long rows split; " + shape;
  }
  // Relabelled columns on the general path too (masks, accumulators, an input with absent
  // entries: the entry gathers u's presence into the new order beside its values; masks and the
  // output keep the rows' order). Measured outside `spindle bench`, H200, R-MAT scale 22,
  // fp32 values, ms (the block form row_block/1024 without relabelling -> with it):
  //   complemented structural mask, 10 / 50 / 90% of the rows computed: 0.5318 / 0.5435 / 0.5471
  //   -> 0.5055 / 0.5148 / 0.5172 (1.05-1.06x); plain structural mask: 1.05-1.06x;
  //   no mask, u with every other entry absent: 0.7162 -> 0.6094 (1.18x).
  // The warp form stays with plain calls: on the general path it has no shared-memory copy of
  // the hot set and ran within 1% of the relabelled block form (0.92-0.96x without relabelling).
  // Only measured at that size, the general path is relabelled from kRowBlockWarpMinNnz entries
  // on: below, an extra gather launch (u's presence) weighs more against a shorter call.
  const double col_imbalance = column_imbalance(stats);
  if (p.mxv == MxvKernel::RowBlock && col_imbalance > kRelabelImbalance &&
      stats.cols >= kRelabelMinCols && (plain || stats.nnz >= kRowBlockWarpMinNnz)) {
    p.params.tile = kRelabelColumns;
    const std::string columns =
        "; columns relabelled by in-degree (in-degree stdv/avg " + fmt(col_imbalance) +
        (stats.col_imbalance_est >= 0.0 ? ", sampled" : ", from the rows") + "): ";
    // Measured with float values and int32 indices only (with 8-byte ones the kernel gives up
    // its next-task prefetch to fit 64 registers, and the hot set halves for double).
    const bool warp_size =
        stats.nnz >= kRowBlockWarpMinNnz ||
        (stats.nnz >= kRowBlockWarpPlainMinNnz && stats.avg_row >= kRowBlockWarpPlainMinAvgRow);
    const bool warp_form =
        plain && warp_size && info.value == ValueKind::Float && info.index == IndexKind::Int32;
    const double u_bytes = static_cast<double>(stats.cols) * semiring_value_bytes(info);
    const double empty_share = static_cast<double>(stats.empty_rows) /
                               static_cast<double>(std::max<std::int64_t>(stats.rows, 1));
    const bool full_rows_past_l2 = caps.l2_bytes > 0 &&
                                   u_bytes > static_cast<double>(caps.l2_bytes) &&
                                   empty_share < kRowBlockWarpPastL2MinEmptyShare;
    if (warp_form && full_rows_past_l2 && p.params.items_per_worker == kRowBlockLarge) {
      p.reason += columns +
                  "hot entries of u packed into L1-resident lines; the block form, not "
                  "the warp form: u (" +
                  fmt(u_bytes / 1e6) + " MB) outgrows L2 and " + fmt(100.0 * empty_share) +
                  "% of the rows are empty (the warp form from " +
                  fmt(100.0 * kRowBlockWarpPastL2MinEmptyShare) + "% on)";
    } else if (warp_form) {
      p.params.items_per_worker = kRowBlockWarp;
      p.params.block_threads = 1024;
      p.reason = std::string(imbalance > kRelabelImbalance ? "skewed rows, " : "skewed columns, ") +
                 std::to_string(stats.nnz) +
                 " entries: row_block's warp form (runs of whole rows with up to " +
                 std::to_string(kRowBlockWarp) +
                 " entries whatever their lengths, one per warp task on a persistent grid, "
                 "reduced by a segmented scan; longer rows split); " +
                 shape + columns + "the hottest 160 KB of u in shared memory";
    } else {
      p.reason += columns + "hot entries of u packed into L1-resident lines";
    }
  }
  if (info.op == OpKind::Vxm) p.reason = "vxm as a pull over the cached transpose; " + p.reason;
  if (const std::string why = finalize_mxv_cuda(p, stats, info, caps); !why.empty()) {
    throw InvalidArgument("mxv planner: its own pick cannot run (" + why + ")");
  }
  return settle_mxv_plan(p, stats, info, caps, desc, tuned);
}

Plan settle_mxv_plan(const Plan& rules, const GraphStats& stats, const MxvInfo& info,
                     const DeviceCaps& caps, const Descriptor& desc, const Plan* tuned) {
  if (desc.mxv_kernel != MxvKernel::Auto) {
    Plan f = rules;
    if (f.mxv != desc.mxv_kernel) f.params = LaunchParams{};
    f.mxv = desc.mxv_kernel;
    const std::string why = finalize_mxv_cuda(f, stats, info, caps);
    if (why.empty()) {
      f.forced = true;
      f.tuned = false;
      f.reason = "forced by the descriptor";
      return f;
    }
    return apply_forced(rules, &Plan::mxv, desc.mxv_kernel, why);
  }
  const bool plain = !info.masked && !info.accum && info.input_full;
  if (tuned != nullptr && plain && info.precompiled) {
    // A winner of tuning mode (spindle/cuda/tune.hpp) for this graph, semiring and value type.
    Plan t = *tuned;
    t.op = info.op;
    t.device = Device::Cuda;
    t.mxm = MxmKernel::Auto;
    t.sddmm = SddmmKernel::Auto;
    if (const std::string why = finalize_mxv_cuda(t, stats, info, caps); why.empty()) {
      t.tuned = true;
      t.forced = false;
      if (t.reason.empty()) t.reason = "tuned on this graph";
      return t;
    }
  }
  return rules;
}

// plan_mxm_cuda and plan_sddmm_cuda: planner_cuda_mxm.cpp (owned by the SpMM/SDDMM backend).

}  // namespace spindle::detail
