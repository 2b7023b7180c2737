// SPDX-License-Identifier: Apache-2.0
// The same algorithm code on the CUDA backend: results match the CPU backend (float tolerance
// for plus_times, exact for BFS and for SSSP). Skips without a GPU; in a build without CUDA,
// asking for Device::Cuda must throw Unsupported.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "../alg_test_utils.hpp"
#include "spindle/algorithms.hpp"
#include "spindle/executor.hpp"

namespace spindle::test {
namespace {

#define SPINDLE_REQUIRE_CUDA()                                                       \
  do {                                                                               \
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device (or built without CUDA)"; \
  } while (0)

TEST(AlgorithmsCuda, DeviceCudaWithoutCudaThrowsUnsupported) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  const auto g = random_graph<std::int32_t, Pattern>(Family::Uniform, 20, 1);
  PageRankOptions pr;
  pr.device = Device::Cuda;
  EXPECT_THROW(pagerank<float>(g, pr), Unsupported);
  PowerIterationOptions pi;
  pi.device = Device::Cuda;
  EXPECT_THROW(power_iteration<float>(g, pi), Unsupported);
  GcnOptions go;
  go.device = Device::Cuda;
  EXPECT_THROW(
      gcn_inference(g, random_features<float>(20, 4, 1), glorot_model<float>(4, {2}, 1), go),
      Unsupported);
  BfsOptions bo;
  bo.device = Device::Cuda;
  EXPECT_THROW(bfs(g, 0, bo), Unsupported);
  SsspOptions so;
  so.device = Device::Cuda;
  EXPECT_THROW(sssp<float>(g, 0, so), Unsupported);
}

TEST(AlgorithmsCuda, PageRankMatchesCpuOnPowerLawGraph) {
  SPINDLE_REQUIRE_CUDA();
  const auto g = random_graph<std::int32_t, Pattern>(Family::PowerLaw, 5000, 3);
  for (PageRankPreset p : {PageRankPreset::Default, PageRankPreset::NetworkX, PageRankPreset::Gap,
                           PageRankPreset::Boost}) {
    PageRankOptions o;
    o.preset = p;
    o.device = Device::Cpu;
    const auto cpu = pagerank<float>(g, o);
    o.device = Device::Cuda;
    const auto gpu = pagerank<float>(g, o);
    double d = 0.0;
    for (std::int64_t v = 0; v < cpu.ranks.size(); ++v) d += std::fabs(cpu.ranks[v] - gpu.ranks[v]);
    // Boost's ranks sum to about n instead of 1.
    EXPECT_LE(d, p == PageRankPreset::Boost ? 1e-5 * 5000 : 1e-5) << to_string(p);
  }
}

// Tuning mode: the tuned run matches the CPU, says what won, writes the plan cache, and a second
// run takes the winner from the file (a valued graph: unweighted PageRank multiplies by a new
// pattern copy per call, so nothing is left in memory).
TEST(AlgorithmsCuda, PageRankTuningModeMatchesCpuAndUsesThePlanCache) {
  SPINDLE_REQUIRE_CUDA();
  const auto g = random_graph<std::int32_t, float>(Family::PowerLaw, 5000, 13, 1.0, 2.0);
  PageRankOptions o;
  o.device = Device::Cpu;
  const auto cpu = pagerank<float>(g, o);
  EXPECT_TRUE(cpu.tuned.empty());
  const std::string cache = ::testing::TempDir() + "spindle_pagerank_plans.txt";
  std::remove(cache.c_str());
  o.device = Device::Cuda;
  o.tune = true;
  o.plan_cache = cache;
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const auto gpu = pagerank<float>(g, o);
    double d = 0.0;
    for (std::int64_t v = 0; v < cpu.ranks.size(); ++v) d += std::fabs(cpu.ranks[v] - gpu.ranks[v]);
    EXPECT_LE(d, 1e-5);
    EXPECT_EQ(gpu.iterations, cpu.iterations);
    ASSERT_FALSE(gpu.tuned.empty());
    if (run == 0) {
      EXPECT_NE(gpu.tuned.find("fastest of"), std::string::npos) << gpu.tuned;
    } else {
      EXPECT_NE(gpu.tuned.find("cached"), std::string::npos) << gpu.tuned;
    }
    std::ifstream in(cache);
    ASSERT_TRUE(in.good()) << cache;
    std::string line;
    int entries = 0;
    while (std::getline(in, line)) entries += !line.empty() && line[0] != '#';
    EXPECT_EQ(entries, 1);
  }
  // A forced kernel wins over tuning mode: nothing is tuned.
  o.mxv_kernel = MxvKernel::MergePath;
  EXPECT_TRUE(pagerank<float>(g, o).tuned.empty());
  std::remove(cache.c_str());
}

TEST(AlgorithmsCuda, PowerIterationBfsSsspMatchCpu) {
  SPINDLE_REQUIRE_CUDA();
  const auto g = random_graph<std::int32_t, float>(Family::Uniform, 3000, 4, 1.0, 8.0);
  PowerIterationOptions pi;
  pi.centrality = true;
  pi.device = Device::Cpu;
  const auto pc = power_iteration<float>(g, pi);
  pi.device = Device::Cuda;
  const auto pg = power_iteration<float>(g, pi);
  EXPECT_NEAR(pc.eigenvalue, pg.eigenvalue, 1e-3 * std::fabs(pc.eigenvalue));

  BfsOptions bo;
  bo.parents = true;
  bo.device = Device::Cpu;
  const auto bc = bfs(g, 7, bo);
  bo.device = Device::Cuda;
  const auto bg = bfs(g, 7, bo);
  EXPECT_EQ(bc.level, bg.level);
  EXPECT_EQ(bc.parent, bg.parent);

  // Integer-valued weights: every distance is exact in double on both backends.
  const auto gi = random_graph<std::int32_t, double>(Family::Uniform, 3000, 5, 1.0, 1.0);
  SsspOptions so;
  so.device = Device::Cpu;
  const auto sc = sssp<double>(gi, 7, so);
  so.device = Device::Cuda;
  const auto sg = sssp<double>(gi, 7, so);
  EXPECT_EQ(sc.distance.values(), sg.distance.values());
}

TEST(AlgorithmsCuda, GcnMatchesCpu) {
  SPINDLE_REQUIRE_CUDA();
  try {
    DenseMatrix<float> c;
    gemm(c, DenseMatrix<float>(2, 2, 1.0f), DenseMatrix<float>(2, 2, 1.0f), Device::Cuda);
  } catch (const Unsupported& e) {
    GTEST_SKIP() << "dense gemm on CUDA not available yet: " << e.what();
  }
  const auto g = random_graph<std::int32_t, float>(Family::Uniform, 3000, 4, 1.0, 8.0);
  const auto X = random_features<float>(3000, 16, 2);
  const auto model = glorot_model<float>(16, {32, 8}, 3);
  GcnOptions go;
  go.device = Device::Cpu;
  const auto hc = gcn_inference(g, X, model, go);
  go.device = Device::Cuda;
  const auto hg = gcn_inference(g, X, model, go);
  double m = 0.0;
  for (std::int64_t e = 0; e < hc.size(); ++e) {
    m = std::max(m, double(std::fabs(hc.data()[e] - hg.data()[e])));
  }
  EXPECT_LE(m, 1e-4);

  // Tuning mode: the same result, and each aggregation reports its tuned SpMM, each transform
  // its cuBLAS algorithm.
  go.tune = true;
  std::vector<std::string> tuned, tuned_gemm;
  go.on_stage = [&](const GcnStage& st) {
    if (st.kind == GcnStage::Kind::Aggregate) tuned.push_back(st.tuned);
    if (st.kind == GcnStage::Kind::Transform) tuned_gemm.push_back(st.tuned);
  };
  const auto ht = gcn_inference(g, X, model, go);
  m = 0.0;
  for (std::int64_t e = 0; e < hc.size(); ++e) {
    m = std::max(m, double(std::fabs(hc.data()[e] - ht.data()[e])));
  }
  EXPECT_LE(m, 1e-4);
  ASSERT_EQ(tuned.size(), 2u);
  for (const std::string& t : tuned) EXPECT_NE(t.find("fastest of"), std::string::npos) << t;
  ASSERT_EQ(tuned_gemm.size(), 2u);
  for (const std::string& t : tuned_gemm) {
    EXPECT_TRUE(t.find("fastest of") != std::string::npos || t.find("cached") != std::string::npos)
        << t;
  }
}

}  // namespace
}  // namespace spindle::test
