// SPDX-License-Identifier: Apache-2.0
// The CUDA planner's mxm / sddmm decisions (ops/core/planner_cuda_mxm.cpp) on the statistics of
// the graphs they were measured on (H200, spindle_bench_mxm / spindle_bench_sddmm): each
// expectation is the kernel that measured fastest there. Plain host code: runs without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "ops/core/planner.hpp"
#include "ops/core/spmm_limits.hpp"
#include "spindle/executor.hpp"

namespace spindle::detail {
namespace {

GraphStats stats_of(std::int64_t rows, std::int64_t nnz, double stdv, std::int64_t max_row) {
  GraphStats s;
  s.rows = rows;
  s.cols = rows;
  s.nnz = nnz;
  s.avg_row = static_cast<double>(nnz) / static_cast<double>(rows);
  s.stdv_row = stdv;
  s.max_row = max_row;
  return s;
}

MxmKernel mxm_pick(const GraphStats& s, std::int64_t n) {
  MxmInfo info;
  info.n = n;
  return plan_mxm_cuda(s, info, reference_hopper_caps(), Descriptor{}).mxm;
}

SddmmKernel sddmm_pick(const GraphStats& s, std::int64_t k) {
  SddmmInfo info;
  info.k = k;
  return plan_sddmm_cuda(s, info, reference_hopper_caps(), Descriptor{}).sddmm;
}

const GraphStats kRmat22 = stats_of(4194304, 65243581, 186.2, 97929);
const GraphStats kUniform22 = stats_of(4194304, 67108746, 4.0, 41);
const GraphStats kBcsstk13 = stats_of(2003, 83883, 22.8, 95);
const GraphStats kAs20 = stats_of(6474, 26467, 25.0, 1459);
const GraphStats kEmail = stats_of(1005, 25571, 33.3, 334);

TEST(MxmPlanner, WidthOneRunsAsAnSpmvWithTheMxvRulesPick) {
  for (const GraphStats* s : {&kRmat22, &kUniform22, &kAs20, &kBcsstk13, &kEmail}) {
    MxmInfo info;
    info.n = 1;
    const Plan p = plan_mxm_cuda(*s, info, reference_hopper_caps(), Descriptor{});
    EXPECT_EQ(p.mxm, MxmKernel::Spmv);
    MxvInfo mi;
    const Plan mv = plan_mxv_cuda(*s, mi, reference_hopper_caps(), Descriptor{});
    EXPECT_EQ(p.mxv, mv.mxv);
    EXPECT_EQ(p.params.tile, mv.params.tile);
    EXPECT_EQ(p.params.lanes_per_row, mv.params.lanes_per_row);
    EXPECT_NE(p.reason.find("SpMV"), std::string::npos) << p.reason;
    EXPECT_EQ(p.kernel_name(), std::string("spmv/") + to_string(mv.mxv));
  }
  // An accumulator keeps the SpMM kernels; forcing spmv at N > 1 falls back with a reason.
  MxmInfo acc;
  acc.n = 1;
  acc.accum = true;
  EXPECT_EQ(plan_mxm_cuda(kRmat22, acc, reference_hopper_caps(), Descriptor{}).mxm,
            MxmKernel::RowBlock);
  MxmInfo wide;
  wide.n = 2;
  Descriptor d;
  d.mxm_kernel = MxmKernel::Spmv;
  const Plan f = plan_mxm_cuda(kRmat22, wide, reference_hopper_caps(), d);
  EXPECT_EQ(f.mxm, MxmKernel::RowBlock);
  EXPECT_FALSE(f.forced);
  EXPECT_NE(f.reason.find("spmv computes N = 1 only"), std::string::npos) << f.reason;
  wide.n = 1;
  const Plan g = plan_mxm_cuda(kRmat22, wide, reference_hopper_caps(), d);
  EXPECT_EQ(g.mxm, MxmKernel::Spmv);
  EXPECT_TRUE(g.forced);
}

TEST(MxmPlanner, NarrowWidthsTakeRowBlocksUnlessRowsAreLong) {
  for (std::int64_t n : {2, 3, 4, 8}) {
    EXPECT_EQ(mxm_pick(kRmat22, n), MxmKernel::RowBlock) << "N = " << n;
    EXPECT_EQ(mxm_pick(kUniform22, n), MxmKernel::RowBlock) << "N = " << n;
    EXPECT_EQ(mxm_pick(kAs20, n), MxmKernel::RowBlock) << "N = " << n;
  }
}

TEST(MxmPlanner, SkewedGraphsLoadBalanceFromSixteenWhereTheGroupFormRuns) {
  // Large skewed graphs (the balanced kernel's group form): nnz_balanced_seq from N = 16.
  for (std::int64_t n : {16, 17, 32, 64, 128, 256}) {
    EXPECT_EQ(mxm_pick(kRmat22, n), MxmKernel::NnzBalancedSeq) << "N = " << n;
  }
  EXPECT_EQ(mxm_pick(kRmat22, 8), MxmKernel::RowBlock);
  // Below the group form's size (its warp form would run) skewed N = 16 keeps row_block; from
  // N = 17 it load-balances as before.
  const GraphStats mid = stats_of(1 << 16, kSpmmGroupFormMinNnz - 1, 60.0, 5000);
  ASSERT_GE(mid.nnz, kSpmmSmallGraphNnz);
  EXPECT_EQ(mxm_pick(mid, 16), MxmKernel::RowBlock);
  EXPECT_EQ(mxm_pick(mid, 17), MxmKernel::NnzBalancedSeq);
  const GraphStats big = stats_of(1 << 16, kSpmmGroupFormMinNnz, 60.0, 5000);
  EXPECT_EQ(mxm_pick(big, 16), MxmKernel::NnzBalancedSeq);
}

TEST(MxmPlanner, SmallGraphsTakeRowBlocksBelowSixteenThenRowCaching) {
  const GraphStats bus = stats_of(1138, 4054, 2.6, 18);
  for (std::int64_t n : {9, 12, 15}) {
    EXPECT_EQ(mxm_pick(kAs20, n), MxmKernel::RowBlock) << "N = " << n;
    EXPECT_EQ(mxm_pick(bus, n), MxmKernel::RowBlock) << "N = " << n;
  }
  // N = 16: row caching, except with long average rows where one row dominates (parallel
  // reduction, the test below).
  EXPECT_EQ(mxm_pick(kAs20, 16), MxmKernel::RowCacheSeq);
  EXPECT_EQ(mxm_pick(bus, 16), MxmKernel::RowCacheSeq);
  EXPECT_EQ(mxm_pick(kBcsstk13, 16), MxmKernel::RowCacheSeq);
  EXPECT_EQ(mxm_pick(kEmail, 16), MxmKernel::ParallelReduceVec);
  // From N = 32 (16 without that exception): row_cache_seq with a warp per row whose spare lanes
  // split the entries, its rows cut into pieces where one row dominates (as20graph: a row of
  // 1459 against 4.1 on average; email-Eu-core: 334 against 25), whole rows otherwise (bcsstk13:
  // 95 against 42; 1138_bus: 18 against 3.6). Passes of 32 columns for bcsstk13's long average
  // rows at 32 < N <= 128 only.
  for (std::int64_t n : {32, 64, 100, 128, 256}) {
    for (const GraphStats* s : {&kAs20, &kEmail}) {
      MxmInfo info;
      info.n = n;
      const Plan p = plan_mxm_cuda(*s, info, reference_hopper_caps(), Descriptor{});
      EXPECT_EQ(p.mxm, MxmKernel::RowCacheSeq) << "N = " << n;
      EXPECT_EQ(p.params.items_per_worker, 16) << "N = " << n;
      EXPECT_EQ(p.params.lanes_per_row, 32) << "N = " << n;
      EXPECT_EQ(p.params.tile, 0) << "N = " << n;
      EXPECT_NE(p.reason.find("pieces of <= 16"), std::string::npos) << p.reason;
      EXPECT_NE(p.reason.find("splitting its entries"), std::string::npos) << p.reason;
    }
    for (const GraphStats* s : {&kBcsstk13, &bus}) {
      MxmInfo info;
      info.n = n;
      const Plan p = plan_mxm_cuda(*s, info, reference_hopper_caps(), Descriptor{});
      EXPECT_EQ(p.mxm, MxmKernel::RowCacheSeq) << "N = " << n;
      EXPECT_EQ(p.params.items_per_worker, 0) << "N = " << n;
      EXPECT_EQ(p.params.lanes_per_row, 32) << "N = " << n;
      const bool passes = s == &kBcsstk13 && n > 32 && n <= 128;
      EXPECT_EQ(p.params.tile, passes ? 32 : 0) << "N = " << n;
      EXPECT_EQ(p.reason.find("passes of 32 columns") != std::string::npos, passes) << p.reason;
      EXPECT_NE(p.reason.find("whole rows"), std::string::npos) << p.reason;
    }
  }
  // Forcing another kernel drops the pieces: forced row_block on a small graph carries its own
  // small-graph bound instead (rows over 64 entries in blocks of their own, the value its launch
  // used to pick by itself); larger graphs never get the pieces.
  MxmInfo info;
  info.n = 64;
  Descriptor d;
  d.mxm_kernel = MxmKernel::RowBlock;
  const Plan f = plan_mxm_cuda(kAs20, info, reference_hopper_caps(), d);
  EXPECT_EQ(f.mxm, MxmKernel::RowBlock);
  EXPECT_TRUE(f.forced);
  EXPECT_EQ(f.params.items_per_worker, detail::kSpmmSmallGraphLongRow);
  EXPECT_EQ(plan_mxm_cuda(kUniform22, info, reference_hopper_caps(), Descriptor{})
                .params.items_per_worker,
            0);
  EXPECT_EQ(
      plan_mxm_cuda(kUniform22, info, reference_hopper_caps(), Descriptor{}).params.lanes_per_row,
      0);
}

// The tuner and `spindle bench mxm` try spmm_small_graph_seq_forms() on small graphs: every
// row_cache_seq form the planner picks there must be one of them (or the plain form), or the
// tuner could never confirm the planner's pick and the benchmark would not show it.
TEST(MxmPlanner, SmallGraphPicksAreAmongTheTunersForms) {
  const GraphStats bus = stats_of(1138, 4054, 2.6, 18);
  for (const GraphStats* s : {&kAs20, &kEmail, &kBcsstk13, &bus}) {
    for (std::int64_t n : {16, 17, 32, 33, 64, 100, 128, 256}) {
      MxmInfo info;
      info.n = n;
      const Plan p = plan_mxm_cuda(*s, info, reference_hopper_caps(), Descriptor{});
      if (p.mxm != MxmKernel::RowCacheSeq) continue;
      const auto forms = spmm_small_graph_seq_forms(n, s->nnz);
      ASSERT_FALSE(forms.empty()) << "N = " << n;
      bool found =
          p.params.items_per_worker == 0 && p.params.lanes_per_row == 0 && p.params.tile == 0;
      for (const SpmmSeqForm& f : forms) {
        found = found || (f.split == p.params.items_per_worker &&
                          f.lanes == p.params.lanes_per_row && f.tile == p.params.tile);
      }
      EXPECT_TRUE(found) << "N = " << n << ": " << p.reason;
    }
  }
  // The list: pieces, a warp per row, both, and from N = 33 passes of 32 columns; nothing for
  // large graphs or below N = 16.
  EXPECT_EQ(spmm_small_graph_seq_forms(16, kAs20.nnz).size(), 3u);
  EXPECT_EQ(spmm_small_graph_seq_forms(32, kAs20.nnz).size(), 3u);
  const auto wide = spmm_small_graph_seq_forms(33, kAs20.nnz);
  ASSERT_EQ(wide.size(), 4u);
  EXPECT_EQ(wide.back().tile, kSpmmSeqEntrySetTile);
  EXPECT_EQ(wide.back().lanes, kSpmmSeqWarpLanes);
  EXPECT_TRUE(spmm_small_graph_seq_forms(15, kAs20.nnz).empty());
  EXPECT_TRUE(spmm_small_graph_seq_forms(64, kSpmmSmallGraphNnz).empty());
  EXPECT_TRUE(spmm_small_graph_seq_forms(64, kRmat22.nnz).empty());
}

TEST(MxmPlanner, BalancedRowsTakeRowCachingFromSixteen) {
  for (std::int64_t n : {9, 16, 32, 128, 256}) {
    EXPECT_EQ(mxm_pick(kUniform22, n), MxmKernel::RowCacheSeq) << "N = " << n;
  }
}

TEST(MxmPlanner, LongAverageRowsKeepParallelReductionUpToSixteen) {
  for (std::int64_t n : {2, 8}) {
    EXPECT_EQ(mxm_pick(kBcsstk13, n), MxmKernel::ParallelReduceVec) << "N = " << n;
    EXPECT_EQ(mxm_pick(kEmail, n), MxmKernel::ParallelReduceVec) << "N = " << n;
  }
  // N = 16: on a small graph without a dominant row the entry-set row kernel (the test above);
  // a large graph of long rows keeps the parallel reduction.
  EXPECT_EQ(mxm_pick(kEmail, 16), MxmKernel::ParallelReduceVec);
  EXPECT_EQ(mxm_pick(kBcsstk13, 16), MxmKernel::RowCacheSeq);
  const GraphStats large_long = stats_of(1 << 20, 30 << 20, 20.0, 120);
  EXPECT_EQ(mxm_pick(large_long, 16), MxmKernel::ParallelReduceVec);
  EXPECT_EQ(mxm_pick(kBcsstk13, 32), MxmKernel::RowCacheSeq);
  // email-Eu-core's row of 334 is cut into pieces (the test above).
  EXPECT_EQ(mxm_pick(kEmail, 32), MxmKernel::RowCacheSeq);
}

TEST(MxmPlanner, ParallelReductionUsesAboutOneLanePerAverageEntry) {
  MxmInfo info;
  info.n = 2;
  // avg row 30: 32 lanes
  const Plan p =
      plan_mxm_cuda(stats_of(1000, 30000, 20.0, 90), info, reference_hopper_caps(), Descriptor{});
  EXPECT_EQ(p.mxm, MxmKernel::ParallelReduceVec);
  EXPECT_EQ(p.params.lanes_per_row, 32);
  EXPECT_EQ(p.params.tile, 0);  // no column tiles: measured slower
}

TEST(SddmmPlanner, InterleavedReductionExceptOneChunkPerLaneAt128) {
  for (std::int64_t k : {1, 16, 32, 64, 256, 512}) {
    EXPECT_EQ(sddmm_pick(kRmat22, k), SddmmKernel::Iir) << "K = " << k;
  }
  EXPECT_EQ(sddmm_pick(kRmat22, 128), SddmmKernel::Vct);
  EXPECT_EQ(sddmm_pick(kUniform22, 100), SddmmKernel::Vct);
}

TEST(MxmPlanner, ForcedKernelsWinAndCusparseIsRefusedOutsidePlusTimes) {
  Descriptor d;
  d.force(MxmKernel::AsptTiled);
  MxmInfo info;
  info.n = 64;
  EXPECT_EQ(plan_mxm_cuda(kUniform22, info, reference_hopper_caps(), d).mxm, MxmKernel::AsptTiled);
  d.force(MxmKernel::Cusparse);
  info.semiring = SemiringKind::MaxPlus;
  const Plan p = plan_mxm_cuda(kUniform22, info, reference_hopper_caps(), d);
  EXPECT_EQ(p.mxm, MxmKernel::RowCacheSeq);
  EXPECT_FALSE(p.forced);
}

}  // namespace
}  // namespace spindle::detail
