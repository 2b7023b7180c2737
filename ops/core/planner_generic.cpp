// SPDX-License-Identifier: Apache-2.0
// Plans of the generic CUDA kernels (spindle/cuda/kernels/generic.cuh): the kernel family that
// runs every semiring without specialized kernels in this build, the built-in ones with run-time
// operator codes and user-defined ones as the user's .cu instantiated them. Its launch shape is
// two numbers: lanes per row (or per entry) and the row length from which a row gets a block of
// its own.
#include <algorithm>
#include <string>

#include "ops/core/plan_format.hpp"
#include "ops/core/planner.hpp"

namespace spindle::detail {
namespace {

// Rows of more than this many passes of their lane group run one 256-thread block each (eight
// warps over one row, combined in warp order), so that one long R-MAT row does not keep a lone
// group busy after every other row has finished. At 32 lanes a row of 2048 entries is 64 passes.
constexpr std::int64_t kGenericPassesPerRow = 64;
constexpr std::int64_t kGenericMinLongRow = 1024;
// SpMM: each lane keeps kSpmmColsPerLane output columns in registers per pass over the row
// (generic::kSpmmCols), re-reading the row once per lanes x 4 columns; rows longer than this run
// one block, its eight warps splitting the entries.
constexpr int kSpmmColsPerLane = 4;
constexpr std::int64_t kGenericSpmmLongRow = 256;

int pow2_at_least(std::int64_t x) {
  int p = 1;
  while (p < 32 && p < x) p *= 2;
  return p;
}

Plan generic_base(OpKind op) {
  Plan p;
  p.op = op;
  p.device = Device::Cuda;
  p.params.block_threads = 256;
  return p;
}

}  // namespace

std::string generic_why(OpKind op, SemiringKind kind, ValueKind value, bool forced) {
  if (forced) return "generic (forced by the descriptor)";
  if (kind == SemiringKind::Custom) {
    return "generic: a user-defined semiring (SPINDLE_CUDA_SEMIRING's kernels)";
  }
  return std::string("generic: ") + to_string(kind) + "<" + to_string(value) +
         "> is not precompiled for " + to_string(op) +
         " (precompiled: " + cuda_precompiled_list(op) +
         "; -DSPINDLE_CUDA_SEMIRINGS=" + to_string(kind) + " adds it)";
}

Plan plan_generic_mxv(const GraphStats& stats, const MxvInfo& info, const std::string& why) {
  Plan p = generic_base(info.op);
  p.mxv = MxvKernel::Generic;
  int lanes = 2;
  while (lanes < 32 && lanes * 2 < stats.avg_row) lanes *= 2;
  if (stats.imbalance() > 1.0) lanes = 32;
  p.params.lanes_per_row = lanes;
  p.params.items_per_worker = std::max(kGenericMinLongRow, kGenericPassesPerRow * lanes);
  const bool longs = stats.max_row > p.params.items_per_worker;
  p.reason =
      why + ": run-time operators, " + std::to_string(lanes) + " lanes per row" +
      (longs ? ", rows over " + std::to_string(p.params.items_per_worker) + " entries a block each"
             : "") +
      "; avg row " + format_g3(stats.avg_row) + ", max row " + std::to_string(stats.max_row);
  if (info.op == OpKind::Vxm) p.reason = "vxm as a pull over the cached transpose; " + p.reason;
  return p;
}

Plan plan_generic_mxm(const GraphStats& stats, const MxmInfo& info, const std::string& why) {
  Plan p = generic_base(OpKind::Mxm);
  p.mxm = MxmKernel::Generic;
  const int lanes = pow2_at_least((info.n + kSpmmColsPerLane - 1) / kSpmmColsPerLane);
  p.params.lanes_per_row = lanes;
  p.params.items_per_worker = kGenericSpmmLongRow;
  const bool longs = stats.max_row > kGenericSpmmLongRow;
  p.reason =
      why + ": run-time operators, N = " + std::to_string(info.n) + ", " + std::to_string(lanes) +
      " lanes per row with " + std::to_string(kSpmmColsPerLane) + " columns each" +
      (longs ? ", rows over " + std::to_string(kGenericSpmmLongRow) + " entries a block each" : "");
  return p;
}

Plan plan_generic_sddmm(const GraphStats& /*stats*/, const SddmmInfo& info,
                        const std::string& why) {
  Plan p = generic_base(OpKind::Sddmm);
  p.sddmm = SddmmKernel::Generic;
  p.params.lanes_per_row = pow2_at_least(info.k);
  p.reason = why + ": run-time operators, K = " + std::to_string(info.k) + ", " +
             std::to_string(p.params.lanes_per_row) + " lanes per entry";
  return p;
}

}  // namespace spindle::detail
