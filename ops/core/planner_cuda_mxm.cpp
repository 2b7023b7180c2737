// SPDX-License-Identifier: Apache-2.0
// CUDA planner rules for mxm (SpMM) and sddmm, owned by the SpMM/SDDMM backend (ops/cuda/mxm,
// ops/cuda/sddmm). Plain host code compiled in every build, so CPU-only tests check the
// decisions with reference_hopper_caps(). The rules start from the seeds (../shared/docs/
// KERNELS.md) and each threshold below says what it rests on.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "ops/core/planner.hpp"

namespace spindle::detail {
namespace {

// dgSPARSE Insight 1 (seed 000 §2.1.2, Fig. 4): up to N = 4 a row is reduced in parallel with
// vector loads of B; wider N favours a sequential walk per output column (row caching).
constexpr std::int64_t kParallelReduceMaxN = 4;
// PRedS (seed 003 §III-B/C): interleaved reduction up to K = 32, warp-merged tiling above.
constexpr std::int64_t kIirMaxK = 32;

// When one row dominates. A sequential kernel gives a row to one group of lanes, which walks it
// with kSeqGathersInFlight B-row gathers in flight, each costing about kGatherLatencyUs (a DRAM
// round trip on H100/H200). If that serial time exceeds a quarter of the whole call's
// bandwidth-bound time (bytes over kGatherBytesPerUs, the rate cuSPARSE's SpMM reaches on
// R-MAT, GPU.md: 65.2M x 32 x 4 B in 3.43 ms), the longest row decides the run time and the
// nnz-split kernel wins (dgSPARSE Insight 2; Insight 3's "many waves hide imbalance" fails when
// one row outlasts all the waves). kMinSerialUs keeps tiny graphs, where launch latency
// dominates, on the one-launch row kernels.
constexpr double kSeqGathersInFlight = 4.0;
constexpr double kGatherLatencyUs = 0.7;
constexpr double kGatherBytesPerUs = 2.4e6;
constexpr double kSerialShare = 0.25;
constexpr double kMinSerialUs = 20.0;
// dgSPARSE's imbalance signal stdv_row / avg_row (Insight 2): above it rows are balanced by
// nnz even when no single row dominates (their Fig. 5 right: the benefit appears past ~2).
constexpr double kImbalanceBalanced = 2.0;
// Column tiles: when B (cols x N) is much larger than L2, a pass over a narrower column tile
// keeps more of B's hot rows cached; A is re-read per tile (8 bytes per entry against 4·tile
// bytes of B per entry). 32 columns = one 128-byte line of floats per gathered row.
constexpr std::int64_t kNarrowTile = 32;
constexpr double kTileWhenBOverL2 = 4.0;

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

std::string cuda_mxm_cannot(MxmKernel k, const MxmInfo& info) {
  if (k == MxmKernel::CpuRowBalanced) return "cpu_row_balanced is a CPU kernel";
  if (k == MxmKernel::Cusparse && info.semiring != SemiringKind::PlusTimes) {
    return "cuSPARSE computes plus_times only";
  }
  return "";
}

std::string cuda_sddmm_cannot(SddmmKernel k, const SddmmInfo& info) {
  if (k == SddmmKernel::CpuRowBalanced) return "cpu_row_balanced is a CPU kernel";
  if (k == SddmmKernel::Cusparse && info.semiring != SemiringKind::PlusTimes) {
    return "cuSPARSE computes plus_times only";
  }
  return "";
}

std::int64_t value_bytes(ValueKind v) { return v == ValueKind::Double ? 8 : 4; }

/// Lanes per row of parallel_reduce_vec: the average row rounded up to a power of two, 4..32
/// (short rows would leave most of a warp idle, seed 000 §2.2 last paragraph).
int reduce_lanes(double avg_row) {
  int lanes = 4;
  while (lanes < 32 && lanes < avg_row) lanes *= 2;
  return lanes;
}

}  // namespace

Plan plan_mxm_cuda(const GraphStats& stats, const MxmInfo& info, const DeviceCaps& caps,
                   const Descriptor& desc) {
  Plan p = base(OpKind::Mxm);
  const double vb = static_cast<double>(value_bytes(info.value));
  const std::int64_t n = info.n;
  // The row-dominance test (see kSerialShare).
  const double row_us = static_cast<double>(stats.max_row) / kSeqGathersInFlight * kGatherLatencyUs;
  const double total_us =
      static_cast<double>(stats.nnz) * (8.0 + vb * static_cast<double>(n)) / kGatherBytesPerUs;
  const bool row_dominates = row_us > kSerialShare * total_us && row_us > kMinSerialUs;
  const bool skewed = stats.imbalance() > kImbalanceBalanced && stats.nnz > 0;
  const std::string balance_why =
      row_dominates ? "longest row " + std::to_string(stats.max_row) + " (~" + fmt(row_us) +
                          " us serial) outlasts the call (~" + fmt(total_us) + " us)"
                    : "stdv/avg row " + fmt(stats.imbalance()) + " > " + fmt(kImbalanceBalanced);

  if (n <= kParallelReduceMaxN) {
    if (row_dominates || skewed) {
      p.mxm = MxmKernel::NnzBalancedSeq;
      p.reason =
          "dgSPARSE: N = " + std::to_string(n) + " <= 4 but " + balance_why + ", nnz-balanced";
    } else {
      p.mxm = MxmKernel::ParallelReduceVec;
      p.params.lanes_per_row = reduce_lanes(stats.avg_row);
      p.reason = "dgSPARSE Insight 1: N = " + std::to_string(n) + " <= 4, parallel reduction, " +
                 std::to_string(p.params.lanes_per_row) + " lanes for avg row " +
                 fmt(stats.avg_row);
    }
  } else {
    p.mxm = (row_dominates || skewed) ? MxmKernel::NnzBalancedSeq : MxmKernel::RowCacheSeq;
    p.reason = "dgSPARSE Insight 1: N = " + std::to_string(n) + " > 4, sequential row caching" +
               (p.mxm == MxmKernel::NnzBalancedSeq ? ", nnz-balanced: " + balance_why
                                                   : std::string(", rows balanced enough"));
    const double b_bytes = static_cast<double>(stats.cols) * static_cast<double>(n) * vb;
    if (n > kNarrowTile && caps.l2_bytes > 0 &&
        b_bytes > kTileWhenBOverL2 * static_cast<double>(caps.l2_bytes)) {
      p.params.tile = static_cast<int>(kNarrowTile);
      p.reason += ", column tiles of " + std::to_string(kNarrowTile) + " (B " + fmt(b_bytes / 1e6) +
                  " MB >> L2)";
    }
  }
  if (desc.mxm_kernel == MxmKernel::Auto) return p;
  return apply_forced(p, &Plan::mxm, desc.mxm_kernel, cuda_mxm_cannot(desc.mxm_kernel, info));
}

Plan plan_sddmm_cuda(const GraphStats& /*stats*/, const SddmmInfo& info, const DeviceCaps& /*caps*/,
                     const Descriptor& desc) {
  Plan p = base(OpKind::Sddmm);
  if (info.k <= kIirMaxK) {
    p.sddmm = SddmmKernel::Iir;
    p.reason = "PRedS: K = " + std::to_string(info.k) + " <= 32, interleaved reduction";
  } else {
    p.sddmm = SddmmKernel::Wmt;
    p.reason = "PRedS: K = " + std::to_string(info.k) + " > 32, warp-merged tiling";
  }
  if (desc.sddmm_kernel == SddmmKernel::Auto) return p;
  return apply_forced(p, &Plan::sddmm, desc.sddmm_kernel,
                      cuda_sddmm_cannot(desc.sddmm_kernel, info));
}

}  // namespace spindle::detail
