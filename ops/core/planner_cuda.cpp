// SPDX-License-Identifier: Apache-2.0
// CUDA planner rules for mxv / vxm. A pure function of (GraphStats, call info, DeviceCaps,
// Descriptor): plain host code compiled in every build, so CPU-only tests check its decisions
// with reference_hopper_caps().
//
// Starting point: Ginkgo's Alg. 2 (seed 002: load balancing above 1e6 rows or when a row is
// longer than 64) and dgSPARSE's rules (seed 000 §2.2: balance when stdv_row / avg_row is high;
// short rows waste the lanes of a warp-per-row kernel). PROVISIONAL: the thresholds below are
// still the seeds' rules adapted to our kernels; they are replaced by measured values (with the
// measurement named on each) once apps/bench/mxv_bench.cpp has run on the GPU.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "ops/core/planner.hpp"

namespace spindle::detail {
namespace {

// --- Thresholds (see the comment on each for the measurement behind it) ----------------------

// Balanced rows (dgSPARSE's stdv/avg test) with no long row run subwarp_per_row.
constexpr double kBalancedImbalance = 1.0;  // stdv_row / avg_row
// Ginkgo Alg. 2's long-row test: a row longer than this stalls its warp in a row-based kernel.
constexpr std::int64_t kLongRow = 1024;
// merge_path instead of nnz_split when rows are many compared to entries: nnz_split walks the
// rows of a chunk 32 per step, so chunks covering long runs of empty / one-entry rows are slow,
// while merge path gives every thread the same rows + entries.
constexpr double kMergeEmptyFraction = 0.05;
constexpr double kMergeMaxAvgRow = 4.0;
// Below this many entries a call is launch-bound (a few microseconds whatever the kernel): pick
// the single-launch kernel (no fix-up pass).
constexpr std::int64_t kTinyNnz = 1 << 16;
// Launch parameters.
constexpr std::int64_t kNnzSplitChunk = 1024;  // entries per warp
constexpr int kMergeItemsFloat = 8;            // merge-path items per thread, 4-byte values
constexpr int kMergeItemsDouble = 6;           // 8-byte values: less shared memory per tile
constexpr int kDefaultBlockThreads = 256;

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

Plan base(OpKind op) {
  Plan p;
  p.op = op;
  p.device = Device::Cuda;
  p.params.block_threads = kDefaultBlockThreads;
  return p;
}

// Lanes per row for subwarp_per_row: the power of two nearest to the average row length, so
// most rows take one or two loads per lane (2..32).
int lanes_for(double avg_row) {
  int lanes = 2;
  while (lanes < 32 && lanes * 1.5 < avg_row) lanes *= 2;
  return lanes;
}

std::string cuda_mxv_cannot(MxvKernel k, const MxvInfo& info) {
  switch (k) {
    case MxvKernel::CpuRowBalanced:
      return "cpu_row_balanced is a CPU kernel";
    case MxvKernel::SellP:
      return "sell_p is not implemented";
    case MxvKernel::PushScatter:
      return "push_scatter is not implemented (vxm pulls over the cached transpose)";
    case MxvKernel::Cusparse:
      if (info.semiring != SemiringKind::PlusTimes) return "cuSPARSE computes plus_times only";
      if (info.masked || info.accum) return "cuSPARSE has no mask or accumulator";
      if (!info.input_full) return "cuSPARSE needs every input entry present";
      return "";
    default:
      return "";
  }
}

}  // namespace

Plan plan_mxv_cuda(const GraphStats& stats, const MxvInfo& info, const DeviceCaps& caps,
                   const Descriptor& desc) {
  (void)caps;
  Plan p = base(info.op);
  const double imbalance = stats.imbalance();
  const double empty_fraction =
      stats.rows > 0 ? static_cast<double>(stats.empty_rows) / static_cast<double>(stats.rows)
                     : 0.0;
  const bool wide = info.value == ValueKind::Double;
  const std::string shape = "avg row " + fmt(stats.avg_row) + ", stdv/avg " + fmt(imbalance) +
                            ", max row " + std::to_string(stats.max_row);
  if (stats.nnz < kTinyNnz && stats.max_row <= kLongRow) {
    p.mxv = MxvKernel::SubwarpPerRow;
    p.params.lanes_per_row = lanes_for(stats.avg_row);
    p.reason = "small (" + std::to_string(stats.nnz) + " entries): one launch, " +
               std::to_string(p.params.lanes_per_row) + " lanes per row; " + shape;
  } else if (info.masked && !info.mask_complemented && stats.max_row <= kLongRow) {
    // A mask lets row kernels skip unselected rows entirely; balanced kernels compute them all.
    p.mxv = MxvKernel::SubwarpPerRow;
    p.params.lanes_per_row = lanes_for(stats.avg_row);
    p.reason = "masked: a row kernel skips unselected rows; " + shape;
  } else if (imbalance <= kBalancedImbalance && stats.max_row <= kLongRow) {
    p.mxv = MxvKernel::SubwarpPerRow;
    p.params.lanes_per_row = lanes_for(stats.avg_row);
    p.reason = "balanced rows (stdv/avg <= " + fmt(kBalancedImbalance) +
               "): " + std::to_string(p.params.lanes_per_row) + " lanes per row; " + shape;
  } else if (empty_fraction > kMergeEmptyFraction || stats.avg_row < kMergeMaxAvgRow) {
    p.mxv = MxvKernel::MergePath;
    p.params.items_per_worker = wide ? kMergeItemsDouble : kMergeItemsFloat;
    p.reason = "skewed rows with " + fmt(100.0 * empty_fraction) +
               "% empty rows: merge path balances rows + entries; " + shape;
  } else {
    p.mxv = MxvKernel::NnzSplitSegmented;
    p.params.items_per_worker = kNnzSplitChunk;
    p.reason = "skewed rows, few empty: fixed nnz chunks per warp (VSR); " + shape;
  }
  if (info.op == OpKind::Vxm) p.reason = "vxm as a pull over the cached transpose; " + p.reason;
  if (desc.mxv_kernel == MxvKernel::Auto) return p;
  return apply_forced(p, &Plan::mxv, desc.mxv_kernel, cuda_mxv_cannot(desc.mxv_kernel, info));
}

// plan_mxm_cuda and plan_sddmm_cuda: planner_cuda_mxm.cpp (owned by the SpMM/SDDMM backend).

}  // namespace spindle::detail
