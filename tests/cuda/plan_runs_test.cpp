// SPDX-License-Identifier: Apache-2.0
// The plan the planner shows is the plan that runs: for every kernel family of every operation
// (forced through the descriptor, picked by the rules, or taken from the tuned cache), the
// kernel and launch parameters the backend records as it launches (spindle/debug/launches.hpp)
// equal plan_for_*'s plan for the same call. GPU tests: skipped without a device.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda_test_util.hpp"
#include "ops/core/tuned.hpp"
#include "spindle/debug/launches.hpp"
#include "spindle/dense.hpp"
#include "spindle/ops/mxm.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/sddmm.hpp"

namespace spindle {
namespace {

using cuda_test::Family;

// Records the launches of f().
template <class F>
std::vector<debug::LaunchRecord> launches_of(F&& f) {
  debug::record_launches(true);
  f();
  std::vector<debug::LaunchRecord> r = debug::recorded_launches();
  debug::record_launches(false);
  return r;
}

::testing::AssertionResult ran_as_planned(const std::vector<debug::LaunchRecord>& runs,
                                          const Plan& plan) {
  if (runs.size() != 1) {
    return ::testing::AssertionFailure()
           << runs.size() << " kernel families launched for the plan " << plan.describe();
  }
  const debug::LaunchRecord& r = runs[0];
  const bool same_kernel =
      r.op == plan.op && r.mxv == plan.mxv && r.mxm == plan.mxm && r.sddmm == plan.sddmm;
  if (!same_kernel || to_string(r.params) != to_string(plan.params)) {
    return ::testing::AssertionFailure()
           << "planned " << plan.kernel_name() << " [" << to_string(plan.params) << "], ran "
           << r.kernel_name() << " [" << to_string(r.params) << "]: " << plan.describe();
  }
  return ::testing::AssertionSuccess();
}

Descriptor cuda_forcing(MxvKernel k) {
  Descriptor d;
  d.on(Device::Cuda).force(k);
  return d;
}

TEST(PlanRuns, EveryMxvKernelFamilyRunsAsPlanned) {
  SPINDLE_REQUIRE_CUDA();
  using S = semiring::plus_times<float>;
  const auto small = cuda_test::make_graph<std::int32_t, float>(Family::PowerLaw, 3000, 2500, 7);
  const auto even = cuda_test::make_graph<std::int32_t, float>(Family::Uniform, 9000, 9000, 8);
  const Vector<float> u_small = cuda_test::random_vector<float>(small.cols(), 0.0, 1);
  const Vector<float> u_even = cuda_test::random_vector<float>(even.cols(), 0.0, 2);
  for (MxvKernel k :
       {MxvKernel::RowPerThread, MxvKernel::SubwarpPerRow, MxvKernel::NnzSplitSegmented,
        MxvKernel::MergePath, MxvKernel::RowBlock, MxvKernel::SlicedCoo, MxvKernel::ColumnSegmented,
        MxvKernel::Cusparse, MxvKernel::Generic}) {
    for (const auto* g : {&small, &even}) {
      SCOPED_TRACE(std::string(to_string(k)) + " on " + std::to_string(g->nnz()) + " entries");
      const Vector<float>& u = g == &small ? u_small : u_even;
      const Descriptor d = cuda_forcing(k);
      const Plan plan = plan_for_mxv<S>(*g, Mask{}, Accum::none(), d);
      EXPECT_EQ(plan.mxv, k) << plan.describe();
      Vector<float> w(g->rows());
      EXPECT_TRUE(
          ran_as_planned(launches_of([&] { mxv(w, Mask{}, Accum::none(), S{}, *g, u, d); }), plan));
    }
  }
  // The general path (a mask, an accumulator, absent inputs), rules' picks and forced kernels.
  const Vector<float> m = cuda_test::random_vector<float>(small.rows(), 0.5, 3);
  const Vector<float> u_sparse = cuda_test::random_vector<float>(small.cols(), 0.3, 4);
  for (MxvKernel k : {MxvKernel::Auto, MxvKernel::SubwarpPerRow, MxvKernel::RowBlock,
                      MxvKernel::SlicedCoo, MxvKernel::RowPerThread}) {
    SCOPED_TRACE(std::string("general path, ") + to_string(k));
    const Descriptor d = cuda_forcing(k);
    const Plan plan = plan_for_mxv<S>(small, Mask::structural(m), Accum::plus(), d);
    Vector<float> w = cuda_test::random_vector<float>(small.rows(), 0.2, 5);
    EXPECT_TRUE(ran_as_planned(
        launches_of([&] { mxv(w, Mask::structural(m), Accum::plus(), S{}, small, u_sparse, d); }),
        plan));
  }
}

TEST(PlanRuns, TunedMxvWinnersAndEveryRowBlockFormRunAsPlanned) {
  SPINDLE_REQUIRE_CUDA();
  using S = semiring::plus_times<float>;
  const auto g = cuda_test::make_graph<std::int32_t, float>(Family::Uniform, 70000, 70000, 9);
  const Vector<float> u = cuda_test::random_vector<float>(g.cols(), 0.0, 1);
  // A tuned winner is what the planner plans and what runs: the warp form (256 entries per
  // task), the block forms of 512 and 1024 entries, with and without relabelled columns.
  for (const std::int64_t entries : {256, 512, 1024}) {
    for (const int tile : {0, 1}) {
      SCOPED_TRACE("row_block/" + std::to_string(entries) + (tile ? "+relabel" : ""));
      Plan t;
      t.op = OpKind::Mxv;
      t.device = Device::Cuda;
      t.mxv = MxvKernel::RowBlock;
      t.params.items_per_worker = entries;
      t.params.tile = tile;
      t.reason = "tuned in this test";
      detail::set_tuned_mxv_plan(g, S::kind, ValueKind::Float, t);
      const Plan plan = plan_for_mxv<S>(g, Mask{}, Accum::none(), Descriptor().on(Device::Cuda));
      EXPECT_TRUE(plan.tuned) << plan.describe();
      EXPECT_EQ(plan.params.form,
                entries == 256 ? KernelForm::RowBlockWarp : KernelForm::RowBlockL2)
          << plan.describe();
      Vector<float> w(g.rows());
      EXPECT_TRUE(ran_as_planned(launches_of([&] {
                                   mxv(w, Mask{}, Accum::none(), S{}, g, u,
                                       Descriptor().on(Device::Cuda));
                                 }),
                                 plan));
    }
  }
}

TEST(PlanRuns, VxmPushAndPullRunAsPlanned) {
  SPINDLE_REQUIRE_CUDA();
  using S = semiring::min_plus<double>;
  const auto g = cuda_test::make_graph<std::int64_t, double>(Family::PowerLaw, 4000, 4000, 10);
  const Vector<double> u = cuda_test::random_vector<double>(g.rows(), 0.9, 1);
  for (MxvKernel k : {MxvKernel::PushScatter, MxvKernel::RowBlock, MxvKernel::Generic}) {
    SCOPED_TRACE(to_string(k));
    const Descriptor d = cuda_forcing(k);
    const Plan plan = plan_for_vxm<S>(g, Mask{}, Accum::none(), d);
    EXPECT_EQ(plan.mxv, k) << plan.describe();
    Vector<double> w(g.cols());
    EXPECT_TRUE(
        ran_as_planned(launches_of([&] { vxm(w, Mask{}, Accum::none(), S{}, u, g, d); }), plan));
  }
}

TEST(PlanRuns, EveryMxmKernelFamilyRunsAsPlanned) {
  SPINDLE_REQUIRE_CUDA();
  using S = semiring::plus_times<float>;
  const auto g = cuda_test::make_graph<std::int32_t, float>(Family::PowerLaw, 3000, 2500, 11);
  for (const std::int64_t n : {1, 8, 32}) {
    DenseMatrix<float> B(g.cols(), n, 0.5f);
    for (MxmKernel k : {MxmKernel::Auto, MxmKernel::ParallelReduceVec, MxmKernel::RowCacheSeq,
                        MxmKernel::NnzBalancedSeq, MxmKernel::RowBlock, MxmKernel::AsptTiled,
                        MxmKernel::Spmv, MxmKernel::Cusparse, MxmKernel::Generic}) {
      if (k == MxmKernel::Spmv && n != 1) continue;  // N = 1 only
      SCOPED_TRACE(std::string(to_string(k)) + ", N = " + std::to_string(n));
      Descriptor d;
      d.on(Device::Cuda).force(k);
      const Plan plan = plan_for_mxm<S>(g, n, d);
      if (k != MxmKernel::Auto) {
        EXPECT_EQ(plan.mxm, k) << plan.describe();
      }
      DenseMatrix<float> C;
      EXPECT_TRUE(ran_as_planned(launches_of([&] { mxm(C, Accum::none(), S{}, g, B, d); }), plan));
    }
  }
  // nnz_balanced_seq's two forms, the group form where its rule takes it (2^20 entries and more).
  const auto big = cuda_test::make_graph<std::int32_t, float>(Family::LongRows, 9000, 9000, 12);
  ASSERT_GE(big.nnz(), std::int64_t{1} << 20);
  DenseMatrix<float> B(big.cols(), 64, 0.25f);
  Descriptor d;
  d.on(Device::Cuda).force(MxmKernel::NnzBalancedSeq);
  const Plan plan = plan_for_mxm<S>(big, 64, d);
  EXPECT_EQ(plan.params.form, KernelForm::BalancedGroup) << plan.describe();
  DenseMatrix<float> C;
  EXPECT_TRUE(ran_as_planned(launches_of([&] { mxm(C, Accum::none(), S{}, big, B, d); }), plan));
}

TEST(PlanRuns, EverySddmmKernelFamilyRunsAsPlanned) {
  SPINDLE_REQUIRE_CUDA();
  using S = semiring::plus_times<float>;
  const auto g = cuda_test::make_graph<std::int32_t, float>(Family::PowerLaw, 2000, 1800, 13);
  const DenseMatrix<float> X(g.rows(), 24, 0.5f);
  const DenseMatrix<float> Y(g.cols(), 24, 0.25f);
  for (SddmmKernel k : {SddmmKernel::Auto, SddmmKernel::Vct, SddmmKernel::Iir, SddmmKernel::Wmt,
                        SddmmKernel::Cusparse, SddmmKernel::Generic}) {
    SCOPED_TRACE(to_string(k));
    Descriptor d;
    d.on(Device::Cuda).force(k);
    const Plan plan = plan_for_sddmm<S>(g, 24, d);
    if (k != SddmmKernel::Auto) {
      EXPECT_EQ(plan.sddmm, k) << plan.describe();
    }
    std::vector<float> out;
    EXPECT_TRUE(
        ran_as_planned(launches_of([&] { sddmm(out, Accum::none(), S{}, g, X, Y, d); }), plan));
  }
}

}  // namespace
}  // namespace spindle
