// SPDX-License-Identifier: Apache-2.0
// GPU mxm / sddmm through the public API (Device::Cuda, the planner choosing) against the CPU
// backend (Device::Cpu) on the same inputs: every built-in semiring, the fused epilogue, mean
// aggregation (row scaling through scale() then plus_times), and the planner's decisions.
// Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/mxm_test_util.hpp"
#include "ops/cuda/mxm/mxm_fused.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/mxm.hpp"
#include "spindle/ops/reduce.hpp"
#include "spindle/ops/sddmm.hpp"

namespace spindle::test {
namespace {

Descriptor on(Device d) {
  Descriptor desc;
  desc.device = d;
  return desc;
}

template <class T>
void expect_same(const DenseMatrix<T>& got, const DenseMatrix<T>& want) {
  ASSERT_EQ(got.rows(), want.rows());
  ASSERT_EQ(got.cols(), want.cols());
  const std::int64_t bad = first_mismatch(got.data(), want.data(), want.size());
  if (bad >= 0) {
    ADD_FAILURE() << "first mismatch at (" << bad / want.cols() << ", " << bad % want.cols()
                  << "): cuda " << got.data()[bad] << ", cpu " << want.data()[bad];
  }
}

template <class S>
void gpu_equals_cpu(const Graph<std::int32_t, float>& A, std::int64_t n, std::uint64_t seed) {
  SCOPED_TRACE(std::string(to_string(S::kind)) + ", N = " + std::to_string(n));
  using T = typename S::value_type;
  const DenseMatrix<T> B = random_dense<T>(A.cols(), n, seed);
  DenseMatrix<T> c_gpu, c_cpu;
  mxm(c_gpu, S{}, A, B, on(Device::Cuda));
  mxm(c_cpu, S{}, A, B, on(Device::Cpu));
  expect_same(c_gpu, c_cpu);
}

TEST(MxmCudaApi, PlannerChosenKernelsMatchCpuBackendForEverySemiring) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const auto A = to_graph<std::int32_t, float>(make_shape(Shape::PowerLaw, 3));
  for (std::int64_t n : {1, 4, 33, 128}) {
    gpu_equals_cpu<semiring::plus_times<float>>(A, n, 1);
    gpu_equals_cpu<semiring::min_plus<float>>(A, n, 2);
    gpu_equals_cpu<semiring::max_plus<float>>(A, n, 3);
    gpu_equals_cpu<semiring::max_times<float>>(A, n, 4);
    gpu_equals_cpu<semiring::min_times<float>>(A, n, 5);
    gpu_equals_cpu<semiring::plus_min<float>>(A, n, 6);
    gpu_equals_cpu<semiring::lor_land<float>>(A, n, 7);
    gpu_equals_cpu<semiring::any_pair<float>>(A, n, 8);
    gpu_equals_cpu<semiring::plus_pair<float>>(A, n, 9);
    gpu_equals_cpu<semiring::max_min<float>>(A, n, 10);
    gpu_equals_cpu<semiring::plus_times<double>>(A, n, 11);
  }
}

TEST(MxmCudaApi, FusedBiasReluEpilogueMatchesCpuComposition) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const auto A = to_graph<std::int32_t, float>(make_shape(Shape::DenseRow5000, 4));
  // N = 1 is planned as an SpMV; with an epilogue it runs row_block instead.
  for (std::int64_t n : {1, 3, 32, 100}) {
    const DenseMatrix<float> B = random_dense<float>(A.cols(), n, 5);
    Vector<float> bias(n);
    for (std::int64_t c = 0; c < n; ++c) bias[c] = static_cast<float>(c % 5) / 4.0f - 0.5f;
    MxmEpilogue<float> epi;
    epi.bias = &bias;
    epi.act = UnaryOp::Relu;
    DenseMatrix<float> c_gpu, c_cpu;
    mxm(c_gpu, semiring::plus_times<float>{}, A, B, epi, on(Device::Cuda));
    mxm(c_cpu, semiring::plus_times<float>{}, A, B, epi, on(Device::Cpu));
    expect_same(c_gpu, c_cpu);
    // And with an accumulator on top.
    DenseMatrix<float> a_gpu = random_dense<float>(A.rows(), n, 6), a_cpu = a_gpu;
    mxm(a_gpu, Accum::plus(), semiring::plus_times<float>{}, A, B, epi, on(Device::Cuda));
    mxm(a_cpu, Accum::plus(), semiring::plus_times<float>{}, A, B, epi, on(Device::Cpu));
    expect_same(a_gpu, a_cpu);
  }
}

TEST(MxmCudaApi, MeanAggregationThroughRowScalingMatchesOracle) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const Csr m = make_shape(Shape::PowerLaw, 9);
  const auto A = to_graph<std::int32_t, Pattern>(m);
  // mean over neighbours = plus_times over A scaled by 1/deg on the left (scale = "apply").
  Vector<float> deg(A.rows());
  reduce_rows(deg, Mask{}, Accum::none(), MonoidKind::Plus, A, on(Device::Cpu));
  Vector<float> inv(A.rows());
  apply(inv, Mask{}, Accum::none(), Unary<float>::make(UnaryOp::ScalarDiv, 1.0f), deg,
        on(Device::Cpu));
  const Graph<std::int32_t, float> M = scale(inv, A, Vector<float>(A.cols(), 1.0f));
  const DenseMatrix<float> B = random_dense<float>(A.cols(), 16, 3);
  DenseMatrix<float> C;
  mxm(C, semiring::plus_times<float>{}, M, B, on(Device::Cuda));
  for (std::int64_t i = 0; i < m.rows; ++i) {
    const std::int64_t len = m.rp[i + 1] - m.rp[i];
    for (std::int64_t c = 0; c < 16; ++c) {
      double s = 0;
      for (std::int64_t e = m.rp[i]; e < m.rp[i + 1]; ++e) s += B(m.ci[e], c);
      const double want = len > 0 ? s / static_cast<double>(len) : 0.0;
      ASSERT_NEAR(C(i, c), want, 1e-5 * (1.0 + std::abs(want))) << "row " << i << " col " << c;
    }
  }
}

TEST(SddmmCudaApi, PlannerChosenKernelsMatchCpuBackend) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const auto S = to_graph<std::int32_t, float>(make_shape(Shape::PowerLaw, 12));
  for (std::int64_t k : {1, 16, 31, 64, 130}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    const DenseMatrix<float> X = random_dense<float>(S.rows(), k, 1 + k);
    const DenseMatrix<float> Y = random_dense<float>(S.cols(), k, 2 + k);
    std::vector<float> o_gpu, o_cpu;
    sddmm(o_gpu, semiring::plus_times<float>{}, S, X, Y, on(Device::Cuda));
    sddmm(o_cpu, semiring::plus_times<float>{}, S, X, Y, on(Device::Cpu));
    ASSERT_EQ(o_gpu.size(), o_cpu.size());
    EXPECT_EQ(-1,
              first_mismatch(o_gpu.data(), o_cpu.data(), static_cast<std::int64_t>(o_cpu.size())));
    std::vector<float> m_gpu, m_cpu;
    sddmm(m_gpu, semiring::max_plus<float>{}, S, X, Y, on(Device::Cuda));
    sddmm(m_cpu, semiring::max_plus<float>{}, S, X, Y, on(Device::Cpu));
    EXPECT_EQ(-1,
              first_mismatch(m_gpu.data(), m_cpu.data(), static_cast<std::int64_t>(m_cpu.size())));
  }
}

TEST(MxmCudaApi, PlannerPicksByWidthAndSkew) {
  SPINDLE_SKIP_WITHOUT_GPU();
  // A small graph (48K entries): row blocks below N = 16, row caching (whole rows: no row
  // dominates) from N = 16.
  const auto U = to_graph<std::int32_t, float>(make_shape(Shape::Uniform, 1));
  Descriptor d = on(Device::Cuda);
  EXPECT_EQ(plan_for_mxm<semiring::plus_times<float>>(U, 1, d).mxm, MxmKernel::Spmv);
  EXPECT_EQ(plan_for_mxm<semiring::plus_times<float>>(U, 2, d).mxm, MxmKernel::RowBlock);
  EXPECT_EQ(plan_for_mxm<semiring::plus_times<float>>(U, 8, d).mxm, MxmKernel::RowBlock);
  EXPECT_EQ(plan_for_mxm<semiring::plus_times<float>>(U, 16, d).mxm, MxmKernel::RowCacheSeq);
  EXPECT_EQ(plan_for_mxm<semiring::plus_times<float>>(U, 64, d).mxm, MxmKernel::RowCacheSeq);
  EXPECT_EQ(plan_for_mxm<semiring::plus_times<float>>(U, 64, d).params.items_per_worker, 0);
  // 164K entries with a row of 20000: row blocks (long rows in pieces) up to N = 16, load
  // balancing above.
  const auto H = to_graph<std::int32_t, float>(make_shape(Shape::HugeRow, 1));
  EXPECT_EQ(plan_for_mxm<semiring::plus_times<float>>(H, 2, d).mxm, MxmKernel::RowBlock);
  EXPECT_EQ(plan_for_mxm<semiring::plus_times<float>>(H, 16, d).mxm, MxmKernel::RowBlock);
  EXPECT_EQ(plan_for_mxm<semiring::plus_times<float>>(H, 64, d).mxm, MxmKernel::NnzBalancedSeq);
  // Forcing works, and the forced kernel is what runs.
  d.force(MxmKernel::AsptTiled);
  EXPECT_EQ(plan_for_mxm<semiring::plus_times<float>>(U, 64, d).mxm, MxmKernel::AsptTiled);
}

TEST(MxmCudaApi, TuningCachesOneWinnerPerWidthAndLaterCallsStillMatchCpu) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const auto A = to_graph<std::int32_t, float>(make_shape(Shape::PowerLaw, 21));
  const TuneResult first = tune_mxm<semiring::plus_times<float>>(A, 33);
  EXPECT_TRUE(first.best.tuned);
  EXPECT_FALSE(first.from_cache);
  EXPECT_GE(first.candidates.size(), 3u);
  // Every candidate was timed (device time, > 0) and the winner is the fastest of them.
  auto fastest = [](const TuneResult& r) {
    std::size_t best = 0;
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
      EXPECT_GT(r.candidates[i].second, 0.0) << i;
      if (r.candidates[i].second < r.candidates[best].second) best = i;
    }
    return r.candidates[best].first;
  };
  const Plan quickest = fastest(first);
  EXPECT_EQ(first.best.mxm, quickest.mxm);
  EXPECT_EQ(to_string(first.best.params), to_string(quickest.params));
  const TuneResult again = tune_mxm<semiring::plus_times<float>>(A, 33);
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.best.mxm, first.best.mxm);
  gpu_equals_cpu<semiring::plus_times<float>>(A, 33, 22);  // runs the tuned winner
  // At N = 1 the SpMV route is one of the candidates.
  const TuneResult one = tune_mxm<semiring::plus_times<float>>(A, 1);
  bool has_spmv = false;
  for (const auto& c : one.candidates) has_spmv = has_spmv || c.first.mxm == MxmKernel::Spmv;
  EXPECT_TRUE(has_spmv);
  gpu_equals_cpu<semiring::plus_times<float>>(A, 1, 23);
  const TuneResult sd = tune_sddmm<semiring::plus_times<float>>(A, 32);
  EXPECT_TRUE(sd.best.tuned);
  EXPECT_EQ(sd.candidates.size(), 3u);
  EXPECT_EQ(sd.best.sddmm, fastest(sd).sddmm);
  const DenseMatrix<float> X = random_dense<float>(A.rows(), 32, 1);
  const DenseMatrix<float> Y = random_dense<float>(A.cols(), 32, 2);
  std::vector<float> o_gpu, o_cpu;
  sddmm(o_gpu, semiring::plus_times<float>{}, A, X, Y, on(Device::Cuda));
  sddmm(o_cpu, semiring::plus_times<float>{}, A, X, Y, on(Device::Cpu));
  EXPECT_EQ(-1,
            first_mismatch(o_gpu.data(), o_cpu.data(), static_cast<std::int64_t>(o_cpu.size())));
}

}  // namespace
}  // namespace spindle::test
