// SPDX-License-Identifier: Apache-2.0
// CUDA planner rules, first version: the published rules from ../shared/docs/KERNELS.md as they
// stand, not yet tuned on our own measurements (the CUDA backend owns this file and will set the
// thresholds from its benchmarks). Plain host code: compiled in every build so CPU-only tests can
// check the decisions with reference_hopper_caps().
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "ops/core/planner.hpp"

namespace spindle::detail {
namespace {

// Ginkgo's rule (seed 002, Alg. 2): above a million rows or with any row longer than 64 the
// classical kernel loses to load balancing.
constexpr std::int64_t kLoadBalanceRows = 1000000;
constexpr std::int64_t kLoadBalanceMaxRow = 64;
// Ginkgo's oversubscription ω (warps per SM multiple) by nnz (seed 002 §3.2).
constexpr std::int64_t kOmegaSmallNnz = 200000;
constexpr std::int64_t kOmegaMediumNnz = 2000000;
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

std::string cuda_mxv_cannot(MxvKernel k, const MxvInfo& info) {
  switch (k) {
    case MxvKernel::CpuRowBalanced:
      return "cpu_row_balanced is a CPU kernel";
    case MxvKernel::PushScatter:
      return info.op == OpKind::Vxm ? "" : "push_scatter runs vxm only";
    case MxvKernel::Cusparse:
      if (info.semiring != SemiringKind::PlusTimes) return "cuSPARSE computes plus_times only";
      if (info.masked || info.accum) return "cuSPARSE has no mask or accumulator";
      return "";
    default:
      return "";
  }
}

}  // namespace

Plan plan_mxv_cuda(const GraphStats& stats, const MxvInfo& info, const DeviceCaps& /*caps*/,
                   const Descriptor& desc) {
  Plan p = base(info.op);
  if (stats.rows > kLoadBalanceRows || stats.max_row > kLoadBalanceMaxRow) {
    p.mxv = MxvKernel::NnzSplitSegmented;
    p.params.oversubscription = stats.nnz < kOmegaSmallNnz    ? 8
                                : stats.nnz < kOmegaMediumNnz ? 32
                                                              : 128;
    p.reason =
        stats.rows > kLoadBalanceRows
            ? "Ginkgo Alg. 2: " + std::to_string(stats.rows) + " rows > 1e6, load-balanced"
            : "Ginkgo Alg. 2: max row " + std::to_string(stats.max_row) + " > 64, load-balanced";
  } else {
    // Classical: lanes per row from the average row length (short rows waste lanes).
    int lanes = 2;
    while (lanes < 32 && lanes < stats.avg_row) lanes *= 2;
    p.mxv = MxvKernel::SubwarpPerRow;
    p.params.lanes_per_row = lanes;
    p.reason = "Ginkgo Alg. 2: max row " + std::to_string(stats.max_row) +
               " <= 64, classical with " + std::to_string(lanes) + " lanes for avg row " +
               fmt(stats.avg_row);
  }
  if (desc.mxv_kernel == MxvKernel::Auto) return p;
  return apply_forced(p, &Plan::mxv, desc.mxv_kernel, cuda_mxv_cannot(desc.mxv_kernel, info));
}

// plan_mxm_cuda and plan_sddmm_cuda: planner_cuda_mxm.cpp (owned by the SpMM/SDDMM backend).

}  // namespace spindle::detail
