// SPDX-License-Identifier: Apache-2.0
// The CUDA planner's mxv decisions, checked on a CPU-only build with reference_hopper_caps():
// graph statistics shaped like the benchmark's graph families go to the kernel family that won
// there, forced kernels are honoured or fall back with a reason, and the planner is a pure
// function of its inputs.
#include <gtest/gtest.h>

#include "ops/core/planner.hpp"
#include "ops/core/vxm_push.hpp"

namespace spindle {
namespace {

GraphStats stats(std::int64_t rows, std::int64_t nnz, double stdv, std::int64_t max_row,
                 std::int64_t empty_rows) {
  GraphStats s;
  s.rows = rows;
  s.cols = rows;
  s.nnz = nnz;
  s.avg_row = rows ? static_cast<double>(nnz) / rows : 0.0;
  s.stdv_row = stdv;
  s.max_row = max_row;
  s.empty_rows = empty_rows;
  return s;
}

// Shapes of the benchmark's graphs (generate_rmat / generate_uniform, edge factor 16).
const GraphStats kRmat22 = stats(4194304, 65200000, 186.0, 98095, 1800000);
const GraphStats kUniform22 = stats(4194304, 67100000, 4.0, 40, 0);
const GraphStats kSmallMesh = stats(1138, 4054, 1.5, 18, 0);

Plan plan(const GraphStats& s, detail::MxvInfo info = {}, Descriptor d = {}) {
  return detail::plan_mxv_cuda(s, info, reference_hopper_caps(), d);
}

TEST(PlannerCuda, SendsSkewedRmatRowsToRowBlockSizedByTheEntryCount) {
  // Plain calls on large skewed graphs: the warp form over relabelled columns.
  const Plan p = plan(kRmat22);
  EXPECT_EQ(p.device, Device::Cuda);
  EXPECT_EQ(p.mxv, MxvKernel::RowBlock) << p.describe();
  EXPECT_EQ(p.params.items_per_worker, 256) << p.describe();
  EXPECT_EQ(p.params.block_threads, 1024);
  EXPECT_EQ(p.params.tile, 1) << p.describe();
  EXPECT_NE(p.reason.find("warp form"), std::string::npos) << p.reason;
  // Double values or int64 indices (not measured with the warp form): the block form.
  detail::MxvInfo wide;
  wide.value = ValueKind::Double;
  EXPECT_EQ(plan(kRmat22, wide).params.items_per_worker, 1024) << plan(kRmat22, wide).describe();
  wide.value = ValueKind::Float;
  wide.index = IndexKind::Int64;
  EXPECT_EQ(plan(kRmat22, wide).params.items_per_worker, 1024) << plan(kRmat22, wide).describe();
  // R-MAT scale 19-20 (8-16M entries, 15 per row): the warp form too since its runs kernel.
  const Plan r20 = plan(stats(1048576, 16085559, 140.0, 40000, 450000));
  EXPECT_EQ(r20.mxv, MxvKernel::RowBlock) << r20.describe();
  EXPECT_EQ(r20.params.items_per_worker, 256) << r20.describe();
  EXPECT_EQ(r20.params.tile, 1) << r20.describe();
  EXPECT_EQ(plan(stats(524288, 7967491, 120.0, 20000, 200000)).params.items_per_worker, 256);
  // R-MAT 22 with edge factor 2 (8.3M entries, 2 per row): the block form.
  const Plan ef2 = plan(stats(4194304, 8341448, 26.6, 12000, 2900000));
  EXPECT_EQ(ef2.mxv, MxvKernel::RowBlock) << ef2.describe();
  EXPECT_NE(ef2.params.items_per_worker, 256) << ef2.describe();
  // The general path on R-MAT 20 keeps the block form.
  detail::MxvInfo acc20;
  acc20.accum = true;
  EXPECT_EQ(plan(stats(1048576, 16085559, 140.0, 40000, 450000), acc20).params.items_per_worker,
            1024);
  // Masked: the block form with 1024 entries per block (the warp form is for plain calls), over
  // relabelled columns.
  detail::MxvInfo masked;
  masked.masked = true;
  masked.mask_complemented = true;  // a complemented mask keeps the balanced kernels
  const Plan m = plan(kRmat22, masked);
  EXPECT_EQ(m.mxv, MxvKernel::RowBlock) << m.describe();
  EXPECT_EQ(m.params.items_per_worker, 1024) << m.describe();
  EXPECT_EQ(m.params.block_threads, 256);
  EXPECT_EQ(m.params.tile, 1) << m.describe();
  EXPECT_EQ(m.reason.find("warp form"), std::string::npos) << m.reason;
  EXPECT_FALSE(p.reason.empty());
  // R-MAT scale 18 (3.9M entries): the smaller blocks.
  const Plan small = plan(stats(262144, 3939696, 120.0, 9000, 110000));
  EXPECT_EQ(small.mxv, MxvKernel::RowBlock) << small.describe();
  EXPECT_EQ(small.params.items_per_worker, 512) << small.describe();
  EXPECT_EQ(small.params.block_threads, 128);
}

TEST(PlannerCuda, SendsEvenRowsToSubwarpWithLanesNearTheAverageRowLength) {
  const Plan p = plan(stats(524288, 8388470, 4.0, 40, 0));  // uniform scale 19
  EXPECT_EQ(p.mxv, MxvKernel::SubwarpPerRow) << p.describe();
  EXPECT_GE(p.params.lanes_per_row, 4);
  EXPECT_LE(p.params.lanes_per_row, 32);
}

TEST(PlannerCuda, SendsLargeEvenGraphsToRowBlockWithoutRelabelling) {
  const Plan p = plan(kUniform22);
  EXPECT_EQ(p.mxv, MxvKernel::RowBlock) << p.describe();
  EXPECT_EQ(p.params.items_per_worker, 1024);
  EXPECT_EQ(p.params.tile, 0) << p.describe();
}

// u past L2 on even rows: column_segmented, its ranges a share of L2 (reference caps: an H100's
// 50 MB). uniform 25 (u 134 MB) and a scrambled 2D mesh of 16.8 M vertices (u 67 MB) take it;
// uniform 22 (u 17 MB) does not, nor skewed rows (R-MAT 25 keeps row_block over relabelled
// columns), masked calls, or a layout past its share of the device's memory.
TEST(PlannerCuda, SendsEvenGraphsWhoseInputOutgrowsL2ToColumnSegmented) {
  const DeviceCaps caps = reference_hopper_caps();
  const Plan u25 = plan(stats(33554432, 536870912, 4.0, 40, 0));
  ASSERT_EQ(u25.mxv, MxvKernel::ColumnSegmented) << u25.describe();
  const std::int64_t width = u25.params.items_per_worker;
  EXPECT_GT(width * 4, caps.l2_bytes / 4) << u25.describe();  // each slice: a share of L2
  EXPECT_LT(width * 4, caps.l2_bytes / 2) << u25.describe();
  EXPECT_GE((33554432 + width - 1) / width, 4) << u25.describe();
  EXPECT_NE(u25.reason.find("outgrows L2"), std::string::npos) << u25.reason;
  // Double values: half the columns per range.
  detail::MxvInfo wide;
  wide.value = ValueKind::Double;
  const Plan u25d = plan(stats(33554432, 536870912, 4.0, 40, 0), wide);
  ASSERT_EQ(u25d.mxv, MxvKernel::ColumnSegmented) << u25d.describe();
  EXPECT_EQ(u25d.params.items_per_worker, width / 2) << u25d.describe();
  const Plan mesh = plan(stats(16777216, 67092480, 0.1, 4, 0));
  EXPECT_EQ(mesh.mxv, MxvKernel::ColumnSegmented) << mesh.describe();
  EXPECT_NE(plan(kUniform22).mxv, MxvKernel::ColumnSegmented) << plan(kUniform22).describe();
  const Plan r25 = plan(stats(33554432, 529000000, 400.0, 400000, 15000000));
  EXPECT_EQ(r25.mxv, MxvKernel::RowBlock) << r25.describe();
  detail::MxvInfo masked;
  masked.masked = true;
  EXPECT_NE(plan(stats(33554432, 536870912, 4.0, 40, 0), masked).mxv, MxvKernel::ColumnSegmented);
  detail::MxvInfo acc;
  acc.accum = true;
  EXPECT_NE(plan(stats(33554432, 536870912, 4.0, 40, 0), acc).mxv, MxvKernel::ColumnSegmented);
  // 8 G entries: a layout of 32 GB and more, past a quarter of 80 GB.
  EXPECT_NE(plan(stats(std::int64_t{1} << 29, std::int64_t{1} << 33, 4.0, 40, 0)).mxv,
            MxvKernel::ColumnSegmented);
  // Forced: any width up to kMaxColumnSegments ranges; more are refused with the count.
  Descriptor d;
  d.mxv_kernel = MxvKernel::ColumnSegmented;
  const Plan forced = plan(kUniform22, {}, d);
  EXPECT_EQ(forced.mxv, MxvKernel::ColumnSegmented) << forced.describe();
  EXPECT_TRUE(forced.forced);
  Plan narrow;
  narrow.device = Device::Cuda;
  narrow.mxv = MxvKernel::ColumnSegmented;
  narrow.params.items_per_worker = 100;  // 41944 ranges
  const std::string why = detail::finalize_mxv_cuda(narrow, kUniform22, detail::MxvInfo{}, caps);
  EXPECT_NE(why.find("41944 ranges"), std::string::npos) << why;
  narrow.params.items_per_worker = 4096;  // 1024 ranges
  EXPECT_EQ(detail::finalize_mxv_cuda(narrow, kUniform22, detail::MxvInfo{}, caps), "");
  EXPECT_EQ(narrow.params.items_per_worker, 4096);
  EXPECT_EQ(narrow.params.tile, 0);
  // The general path refuses it (the plan falls back and says why).
  const Plan fell = plan(kUniform22, masked, d);
  EXPECT_NE(fell.mxv, MxvKernel::ColumnSegmented) << fell.describe();
  EXPECT_NE(fell.reason.find("plain calls only"), std::string::npos) << fell.reason;
}

TEST(PlannerCuda, SendsSmallGraphsToASingleLaunchKernel) {
  // Plain calls on small graphs whose rows fit a slot: sliced_coo, with the smallest slot that
  // holds the longest row (warp slots of 128, block slots of 512 or 2048).
  const Plan p = plan(kSmallMesh);
  EXPECT_EQ(p.mxv, MxvKernel::SlicedCoo) << p.describe();
  EXPECT_EQ(p.params.items_per_worker, 128) << p.describe();
  EXPECT_EQ(p.params.block_threads, 128);
  EXPECT_EQ(p.params.tile, 0);
  EXPECT_NE(p.reason.find("launch-bound"), std::string::npos) << p.reason;
  // email-Eu-core's shape (longest row 345) and as20graph's (1459).
  const Plan email = plan(stats(1005, 25571, 33.3, 345, 20));
  EXPECT_EQ(email.mxv, MxvKernel::SlicedCoo) << email.describe();
  EXPECT_EQ(email.params.items_per_worker, 512);
  EXPECT_EQ(email.params.block_threads, 128);
  const Plan as20 = plan(stats(6474, 26467, 25.0, 1459, 0));
  EXPECT_EQ(as20.mxv, MxvKernel::SlicedCoo) << as20.describe();
  EXPECT_EQ(as20.params.items_per_worker, 2048);
  EXPECT_EQ(as20.params.block_threads, 512);
  // A row longer than the largest slot: the CSR kernels' small rules (one launch). Skewed:
  // row_block with 1024 entries per block (its small form on a graph this size), no relabelling.
  const Plan skewed = plan(stats(6474, 26467, 25.0, 3000, 0));
  EXPECT_EQ(skewed.mxv, MxvKernel::RowBlock) << skewed.describe();
  EXPECT_EQ(skewed.params.items_per_worker, 1024);
  EXPECT_EQ(skewed.params.tile, 0);
  EXPECT_EQ(plan(stats(1005, 25571, 4.0, 3000, 20)).mxv, MxvKernel::SubwarpPerRow);
  // Entries plus empty rows (each takes a placeholder in the layout) past the small bound.
  EXPECT_NE(plan(stats(200000, 100000, 1.0, 10, 120000)).mxv, MxvKernel::SlicedCoo);
  // The general path takes it on uneven rows only (the mesh's stdv/avg is 0.42, as20graph's
  // 6.1); on even ones (stdv/avg 0.05, cryg2500's shape) it keeps the CSR kernels' small rules.
  detail::MxvInfo masked;
  masked.masked = true;
  EXPECT_EQ(plan(kSmallMesh, masked).mxv, MxvKernel::SlicedCoo) << plan(kSmallMesh, masked).reason;
  detail::MxvInfo acc;
  acc.accum = true;
  EXPECT_EQ(plan(stats(6474, 26467, 25.0, 1459, 0), acc).mxv, MxvKernel::SlicedCoo);
  detail::MxvInfo sparse_in;
  sparse_in.input_full = false;
  EXPECT_EQ(plan(stats(1005, 25571, 33.3, 345, 20), sparse_in).params.items_per_worker, 512);
  const GraphStats even = stats(2500, 12349, 0.25, 5, 0);
  EXPECT_EQ(plan(even).mxv, MxvKernel::SlicedCoo);
  const Plan pm = plan(even, masked);
  EXPECT_TRUE(pm.mxv == MxvKernel::SubwarpPerRow || pm.mxv == MxvKernel::RowPerThread)
      << pm.describe();
  EXPECT_NE(plan(even, acc).mxv, MxvKernel::SlicedCoo);
  // Forced: honoured where its slots hold the longest row; elsewhere the planner keeps its own
  // pick and says why (the plan shown is the plan that runs: nothing falls back at launch).
  Descriptor d;
  d.mxv_kernel = MxvKernel::SlicedCoo;
  EXPECT_EQ(plan(even, {}, d).mxv, MxvKernel::SlicedCoo);
  const Plan refused = plan(kRmat22, {}, d);
  EXPECT_NE(refused.mxv, MxvKernel::SlicedCoo);
  EXPECT_NE(refused.reason.find("longer than its largest slot"), std::string::npos)
      << refused.reason;
}

TEST(PlannerCuda, LanesGrowWithTheAverageRowLength) {
  int last = 0;
  // From kRowPerThreadMaxAvg (5) up: shorter even rows run one thread per row.
  for (double avg : {5.0, 6.0, 12.0, 24.0, 48.0, 100.0}) {
    const auto n = std::int64_t{100000};
    const Plan p = plan(stats(n, static_cast<std::int64_t>(avg * n), 0.1 * avg,
                              static_cast<std::int64_t>(avg * 1.5) + 1, 0));
    ASSERT_EQ(p.mxv, MxvKernel::SubwarpPerRow) << p.describe();
    EXPECT_GE(p.params.lanes_per_row, last);
    last = p.params.lanes_per_row;
  }
  EXPECT_EQ(last, 32);
}

TEST(PlannerCuda, RelabelsColumnsOnlyForSkewedRowBlockCallsWithMoreColumnsThanTheHotSet) {
  const GraphStats rmat23 = stats(8388608, 131159231, 213.0, 152949, 4500000);
  EXPECT_EQ(plan(rmat23).params.tile, 1) << plan(rmat23).describe();
  EXPECT_EQ(plan(kRmat22).params.tile, 1) << plan(kRmat22).describe();
  EXPECT_NE(plan(kRmat22).reason.find("relabelled"), std::string::npos);
  EXPECT_EQ(plan(stats(8388608, 134217599, 4.0, 40, 0)).params.tile, 0);  // uniform: no skew
  // Skewed but narrow: every entry of u fits the hot set.
  EXPECT_EQ(plan(stats(40000, 2000000, 400.0, 30000, 1000)).params.tile, 0);
  // The general path is relabelled too (u's presence gathered beside its values), with the
  // block form: masked, accumulating, or an input with absent entries.
  detail::MxvInfo masked;
  masked.masked = true;
  const Plan pm = plan(rmat23, masked);
  EXPECT_EQ(pm.params.tile, 1) << pm.describe();
  EXPECT_EQ(pm.params.items_per_worker, 1024) << pm.describe();
  detail::MxvInfo sparse_input;
  sparse_input.input_full = false;
  EXPECT_EQ(plan(rmat23, sparse_input).params.tile, 1);
  EXPECT_EQ(plan(rmat23, sparse_input).params.items_per_worker, 1024);
  detail::MxvInfo accum;
  accum.accum = true;
  EXPECT_EQ(plan(rmat23, accum).params.tile, 1);
  // A call with a complemented mask on an even graph reaches row_block too, but is not
  // relabelled (nothing is hot).
  detail::MxvInfo complemented = masked;
  complemented.mask_complemented = true;
  const Plan even = plan(stats(8388608, 134217599, 4.0, 40, 0), complemented);
  EXPECT_EQ(even.mxv, MxvKernel::RowBlock) << even.describe();
  EXPECT_EQ(even.params.tile, 0) << even.describe();
  // Below 2e7 entries (R-MAT scale 20) only plain calls are relabelled: the general path was
  // measured at scale 22 only.
  const GraphStats rmat20 = stats(1048576, 16085559, 140.0, 40000, 450000);
  EXPECT_EQ(plan(rmat20).params.tile, 1) << plan(rmat20).describe();
  EXPECT_EQ(plan(rmat20, complemented).mxv, MxvKernel::RowBlock);
  EXPECT_EQ(plan(rmat20, complemented).params.tile, 0) << plan(rmat20, complemented).describe();
  EXPECT_EQ(plan(rmat20, accum).params.tile, 0);
}

TEST(PlannerCuda, RelabelsByTheSampledColumnSpreadWhereTheGraphCarriesOne) {
  // bip22 (4.19 M users x 1.05 M items, even rows, item popularity exponent 2.2): its columns
  // are skewed although its rows are not. The warp form over relabelled columns.
  GraphStats bip = stats(4194304, 66852349, 3.976, 41, 1);
  bip.cols = 1048576;
  bip.col_imbalance_est = 14.0;  // bip20 (the same law at 2^18 items): 13.5
  const Plan b = plan(bip);
  EXPECT_EQ(b.mxv, MxvKernel::RowBlock) << b.describe();
  EXPECT_EQ(b.params.tile, 1) << b.describe();
  EXPECT_EQ(b.params.items_per_worker, 256) << b.describe();
  EXPECT_NE(b.reason.find("skewed columns"), std::string::npos) << b.reason;
  EXPECT_NE(b.reason.find("in-degree stdv/avg 14, sampled"), std::string::npos) << b.reason;
  // The same rows over uniform columns (a uniform graph's spread is about 0.25): not relabelled.
  bip.col_imbalance_est = 0.25;
  EXPECT_EQ(plan(bip).params.tile, 0) << plan(bip).describe();
  // Skewed rows over even columns (the transpose of a bipartite graph, say) keep their columns:
  // nothing is hot. Without an estimate the rows' spread stands in, as before.
  GraphStats rmat = kRmat22;
  rmat.col_imbalance_est = 0.3;
  EXPECT_EQ(plan(rmat).mxv, MxvKernel::RowBlock) << plan(rmat).describe();
  EXPECT_EQ(plan(rmat).params.tile, 0) << plan(rmat).describe();
  EXPECT_EQ(plan(kRmat22).params.tile, 1) << plan(kRmat22).describe();
  EXPECT_NE(plan(kRmat22).reason.find("from the rows"), std::string::npos);
  rmat.col_imbalance_est = 12.0;
  EXPECT_EQ(plan(rmat).params.tile, 1) << plan(rmat).describe();
  // Even rows below row_block's size keep their kernel and their columns.
  GraphStats small_bip = stats(262144, 4194304, 3.97, 41, 0);
  small_bip.col_imbalance_est = 14.0;
  EXPECT_EQ(plan(small_bip).params.tile, 0) << plan(small_bip).describe();
}

TEST(PlannerCuda, FullSkewedRowsPastL2TakeTheBlockFormAndRmatKeepsTheWarpForm) {
  // plaw24-g2.1 (16.8 M rows, u 67 MB past an H100's 50 MB L2, 4.8% of its rows empty): the
  // block form row_block/1024 over relabelled columns (H100: 2.667 ms against the warp form's
  // 2.941).
  GraphStats plaw24 = stats(16777216, 233577164, 861.4, 1952293, 806536);
  plaw24.col_imbalance_est = 61.5;
  const Plan b = plan(plaw24);
  EXPECT_EQ(b.mxv, MxvKernel::RowBlock) << b.describe();
  EXPECT_EQ(b.params.tile, 1) << b.describe();
  EXPECT_EQ(b.params.items_per_worker, 1024) << b.describe();
  EXPECT_NE(b.reason.find("outgrows L2 and 4.81% of the rows are empty"), std::string::npos)
      << b.reason;
  // R-MAT 24 (56% of its rows empty) keeps the warp form (2.036 against 2.457 ms), and so does a
  // power law whose u fits L2 (plaw22-g2.1: 0.414 against 0.444 ms).
  GraphStats rmat24 = stats(16777216, 263431906, 245.0, 239648, 9396007);
  rmat24.col_imbalance_est = 15.0;
  EXPECT_EQ(plan(rmat24).params.items_per_worker, 256) << plan(rmat24).describe();
  GraphStats plaw22 = stats(4194304, 57773256, 511.0, 572605, 183516);
  plaw22.col_imbalance_est = 37.0;
  EXPECT_EQ(plan(plaw22).params.items_per_worker, 256) << plan(plaw22).describe();
  // The boundary: a quarter of the rows empty is the warp form's again.
  plaw24.empty_rows = plaw24.rows / 4;
  EXPECT_EQ(plan(plaw24).params.items_per_worker, 256) << plan(plaw24).describe();
  plaw24.empty_rows = plaw24.rows / 4 - 1;
  EXPECT_EQ(plan(plaw24).params.items_per_worker, 1024) << plan(plaw24).describe();
  // Only plain calls took the warp form; the general path is unchanged (the block form).
  detail::MxvInfo masked;
  masked.masked = true;
  EXPECT_EQ(plan(plaw24, masked).params.items_per_worker, 1024) << plan(plaw24, masked).describe();
  EXPECT_EQ(plan(plaw24, masked).reason.find("outgrows L2"), std::string::npos);
}

TEST(PlannerCuda, SendsRowDominatedGraphsToMergePathAndEvenShortRowsToRowPerThread) {
  const Plan skewed = plan(stats(4194304, 8341448, 26.6, 12000, 2900000));  // R-MAT, edge factor 2
  EXPECT_EQ(skewed.mxv, MxvKernel::RowBlock) << skewed.describe();
  const Plan rows = plan(stats(4194304, 2000000, 3.0, 500, 2900000));  // avg 0.48
  EXPECT_EQ(rows.mxv, MxvKernel::MergePath) << rows.describe();
  const Plan even = plan(stats(4194304, 8388606, 1.4, 14, 560000));  // uniform, edge factor 2
  EXPECT_EQ(even.mxv, MxvKernel::RowPerThread) << even.describe();
  // A 2D mesh of 4.19 M vertices (avg 4.0; its u fits L2): one thread per row too; uniform 22
  // (avg 16) keeps row_block.
  const Plan mesh = plan(stats(4194304, 16769024, 0.1, 4, 0));
  EXPECT_EQ(mesh.mxv, MxvKernel::RowPerThread) << mesh.describe();
  EXPECT_EQ(plan(kUniform22).mxv, MxvKernel::RowBlock) << plan(kUniform22).describe();
}

TEST(PlannerCuda, ForcedKernelRunsAndAnImpossibleForceFallsBackWithAReason) {
  Descriptor d;
  d.force(MxvKernel::RowPerThread);
  const Plan forced = plan(kRmat22, {}, d);
  EXPECT_EQ(forced.mxv, MxvKernel::RowPerThread);
  EXPECT_TRUE(forced.forced);

  detail::MxvInfo minplus;
  minplus.semiring = SemiringKind::MinPlus;
  d.force(MxvKernel::Cusparse);
  const Plan fallback = plan(kRmat22, minplus, d);
  EXPECT_NE(fallback.mxv, MxvKernel::Cusparse);
  EXPECT_FALSE(fallback.forced);
  EXPECT_NE(fallback.reason.find("cannot run"), std::string::npos) << fallback.reason;

  d.force(MxvKernel::Cusparse);
  const Plan cus = plan(kRmat22, {}, d);
  EXPECT_EQ(cus.mxv, MxvKernel::Cusparse);
}

TEST(PlannerCuda, IsAPureFunctionOfItsInputs) {
  for (const GraphStats& s : {kRmat22, kUniform22, kSmallMesh}) {
    const Plan a = plan(s), b = plan(s);
    EXPECT_EQ(a.describe(), b.describe());
  }
}

TEST(PlannerCuda, VxmPlansSayTheyPullOverTheTranspose) {
  detail::MxvInfo info;
  info.op = OpKind::Vxm;
  const Plan p = plan(kRmat22, info);
  EXPECT_EQ(p.op, OpKind::Vxm);
  EXPECT_NE(p.reason.find("transpose"), std::string::npos) << p.reason;
}

// vxm's push or pull (ops/core/vxm_push.hpp): a sparse input whose terms are a small share of A's
// entries pushes; a plus monoid, a full input, a small graph or a large share pulls, and says why.
TEST(PlannerCuda, VxmPushesSparseInputsWithExactMonoidsOnly) {
  detail::MxvInfo info;
  info.op = OpKind::Vxm;
  info.semiring = SemiringKind::AnyPair;
  info.input_full = false;
  detail::PushInput frontier;
  frontier.present = 1000;
  frontier.sources = 900;
  frontier.edges = 20000;
  const detail::PushDecision d = detail::plan_vxm_push_cuda(kRmat22, info, frontier, true, {});
  EXPECT_TRUE(d.push) << d.note;
  EXPECT_EQ(d.plan.mxv, MxvKernel::PushScatter);
  EXPECT_EQ(d.plan.op, OpKind::Vxm);
  EXPECT_EQ(d.plan.device, Device::Cuda);
  EXPECT_FALSE(d.plan.forced);
  EXPECT_NE(d.plan.reason.find("20000 out-entries"), std::string::npos) << d.plan.reason;

  detail::PushInput big = frontier;
  big.edges = kRmat22.nnz / 2;
  const detail::PushDecision pull = detail::plan_vxm_push_cuda(kRmat22, info, big, true, {});
  EXPECT_FALSE(pull.push);
  EXPECT_NE(pull.note.find("above"), std::string::npos) << pull.note;
  // Without a transpose yet, the same input pushes: the pull would build A^T first.
  const detail::PushDecision fresh = detail::plan_vxm_push_cuda(kRmat22, info, big, false, {});
  EXPECT_TRUE(fresh.push) << fresh.note;
  EXPECT_NE(fresh.plan.reason.find("transpose"), std::string::npos) << fresh.plan.reason;

  detail::MxvInfo plus = info;
  plus.semiring = SemiringKind::PlusTimes;
  EXPECT_FALSE(detail::plan_vxm_push_cuda(kRmat22, plus, frontier, false, {}).push);
  detail::MxvInfo full = info;
  full.input_full = true;
  EXPECT_FALSE(detail::plan_vxm_push_cuda(kRmat22, full, frontier, false, {}).push);
  EXPECT_FALSE(detail::plan_vxm_push_cuda(kSmallMesh, info, {3, 3, 9}, false, {}).push);
  // A mid-sized graph (1e6 entries) pushes a tiny input while it has no transpose, and pulls it
  // once the transpose exists (the pull is then shorter than the push's fixed cost).
  const GraphStats mid = stats(100000, 1000000, 20.0, 5000, 100);
  EXPECT_TRUE(detail::plan_vxm_push_cuda(mid, info, {3, 3, 90}, false, {}).push);
  const detail::PushDecision mid_pull = detail::plan_vxm_push_cuda(mid, info, {3, 3, 90}, true, {});
  EXPECT_FALSE(mid_pull.push);
  EXPECT_NE(mid_pull.note.find("once the transpose is built"), std::string::npos) << mid_pull.note;

  // Forced: pushes whatever the share, if the monoid allows it.
  Descriptor forced;
  forced.force(MxvKernel::PushScatter);
  const detail::PushDecision f = detail::plan_vxm_push_cuda(kRmat22, full, big, true, forced);
  EXPECT_TRUE(f.push);
  EXPECT_TRUE(f.plan.forced);
  EXPECT_FALSE(detail::plan_vxm_push_cuda(kRmat22, plus, frontier, true, forced).push);

  // Which calls pay for the input count at all (a mid-sized graph only while it has no
  // transpose: afterwards the rule would pull it anyway).
  const auto cand = [](Device dev, SemiringKind k, const Descriptor& desc, bool full,
                       std::int64_t nnz, bool cached) {
    return detail::push_candidate(dev, k, desc, full, nnz, cached);
  };
  EXPECT_TRUE(cand(Device::Cuda, SemiringKind::MinPlus, {}, false, 1 << 20, false));
  EXPECT_FALSE(cand(Device::Cuda, SemiringKind::MinPlus, {}, false, 1 << 20, true));
  EXPECT_TRUE(cand(Device::Cuda, SemiringKind::MinPlus, {}, false, 1 << 24, true));
  EXPECT_FALSE(cand(Device::Cpu, SemiringKind::MinPlus, {}, false, 1 << 20, false));
  EXPECT_FALSE(cand(Device::Cuda, SemiringKind::PlusTimes, {}, false, 1 << 20, false));
  EXPECT_FALSE(cand(Device::Cuda, SemiringKind::MinPlus, {}, true, 1 << 20, false));
  EXPECT_FALSE(cand(Device::Cuda, SemiringKind::MinPlus, {}, false, 100, false));
  EXPECT_TRUE(cand(Device::Cuda, SemiringKind::MinPlus, forced, true, 100, true));
  Descriptor transposed;
  transposed.with_transpose_a(true);
  EXPECT_FALSE(cand(Device::Cuda, SemiringKind::MinPlus, transposed, false, 1 << 20, false));
  Descriptor other;
  other.force(MxvKernel::RowBlock);
  EXPECT_FALSE(cand(Device::Cuda, SemiringKind::MinPlus, other, false, 1 << 20, false));
}

TEST(PlannerCuda, AForcedPushThatCannotRunFallsBackWithAReason) {
  Descriptor d;
  d.force(MxvKernel::PushScatter);
  detail::MxvInfo info;
  info.op = OpKind::Vxm;  // plus_times: no push monoid
  const Plan p = plan(kRmat22, info, d);
  EXPECT_NE(p.mxv, MxvKernel::PushScatter);
  EXPECT_NE(p.reason.find("min, max, lor or any"), std::string::npos) << p.reason;
  const Plan m = plan(kRmat22, {}, d);  // an mxv
  EXPECT_NE(m.mxv, MxvKernel::PushScatter);
  EXPECT_NE(m.reason.find("vxm over the rows of A only"), std::string::npos) << m.reason;
  // With a push monoid the forced push stands (what plan_for_vxm and `--kernel` warnings see).
  info.semiring = SemiringKind::MinPlus;
  const Plan ok = plan(kRmat22, info, d);
  EXPECT_EQ(ok.mxv, MxvKernel::PushScatter) << ok.reason;
  EXPECT_TRUE(ok.forced);
}

}  // namespace
}  // namespace spindle
