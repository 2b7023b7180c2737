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
#include "deferred_host_util.hpp"
#include "ops/cuda/gemm/split_tf32.hpp"
#include "ops/cuda/mxm/mxm_project.hpp"
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

// PageRankMethod::Anderson on CUDA (its dot products and extrapolation run as device ops): the
// CPU's fixed point within float's reach, and no more products than the power iteration.
TEST(AlgorithmsCuda, PageRankAndersonMatchesCpu) {
  SPINDLE_REQUIRE_CUDA();
  const auto g = random_graph<std::int32_t, Pattern>(Family::PowerLaw, 20000, 5);
  PageRankOptions o;
  o.device = Device::Cpu;
  const auto exact = [&] {
    PageRankOptions t = o;
    t.tol = 1e-13;
    t.max_iter = 1000;
    return pagerank<double>(g, t);
  }();
  o.method = PageRankMethod::Anderson;
  o.device = Device::Cuda;
  const auto gpu = pagerank<float>(g, o);
  PageRankOptions power;
  power.device = Device::Cuda;
  const auto pw = pagerank<float>(g, power);
  ASSERT_TRUE(gpu.converged);
  double d = 0.0;
  for (std::int64_t v = 0; v < gpu.ranks.size(); ++v) {
    d += std::fabs(static_cast<double>(gpu.ranks[v]) - exact.ranks[v]);
  }
  EXPECT_LE(d, 1e-5);
  EXPECT_LE(gpu.iterations, pw.iterations);
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

// BFS and SSSP make their vectors on the device (no host array, no upload of one: the source
// entry goes in through the index-list assign, the frontier's ids through apply_index, both on
// the device) and move only their results: one download per result array.
// Before this, a BFS with parents uploaded four vectors it had made on the host. Levels run over
// the valued graph itself, parents over its pattern copy kept with the graph: either way no graph
// upload after the first call.
TEST(AlgorithmsCuda, BfsAndSsspMoveOnlyTheirResults) {
  SPINDLE_REQUIRE_CUDA();
  const auto weighted = random_graph<std::int32_t, float>(Family::PowerLaw, 20000, 8, 1.0, 4.0);
  const auto pattern = weighted.with_values<Pattern>();
  auto check = [](const auto& g, bool parents) {
    SCOPED_TRACE(std::string(parents ? "parents" : "levels") +
                 (is_pattern_v<typename std::decay_t<decltype(g)>::value_type> ? ", pattern graph"
                                                                               : ", valued graph"));
    BfsOptions bo;
    bo.parents = parents;
    bo.device = Device::Cpu;
    const auto want = bfs(g, 11, bo);
    bo.device = Device::Cuda;
    (void)bfs(g, 11, bo);  // the graph's device copy is made once, outside the counted call
    reset_transfer_stats();
    const auto got = bfs(g, 11, bo);
    const TransferStats t = transfer_stats();
    EXPECT_EQ(t.uploads, 0u);
    EXPECT_EQ(t.downloads, parents ? 2u : 1u);
    EXPECT_EQ(t.graph_uploads, 0u);
    EXPECT_EQ(got.level, want.level);
    EXPECT_EQ(got.parent, want.parent);
    EXPECT_EQ(got.reached, want.reached);
    EXPECT_EQ(got.depth, want.depth);
    EXPECT_GT(want.reached, 1000);
  };
  check(weighted, false);
  check(weighted, true);
  check(pattern, true);
  SsspOptions so;
  so.device = Device::Cpu;
  const auto want = sssp<double>(pattern, 11, so);
  so.device = Device::Cuda;
  (void)sssp<double>(pattern, 11, so);
  reset_transfer_stats();
  const auto got = sssp<double>(pattern, 11, so);
  const TransferStats t = transfer_stats();
  EXPECT_EQ(t.uploads, 0u);
  EXPECT_EQ(t.downloads, 0u);  // the distances stay on the device until read
  EXPECT_EQ(got.reached, want.reached);
  EXPECT_EQ(got.distance.values(), want.distance.values());
}

// Unweighted PageRank and power iteration over a valued graph run over its pattern, a copy kept
// with the graph: a second call uploads no graph (before, every call copied the structure, built
// the copy's transpose on the host and uploaded it), and gives the same ranks as the first and as
// the CPU backend.
TEST(AlgorithmsCuda, UnweightedRunsOverAValuedGraphReuseItsPattern) {
  SPINDLE_REQUIRE_CUDA();
  const auto g = random_graph<std::int32_t, float>(Family::PowerLaw, 20000, 9, 0.5, 4.0);
  PageRankOptions po;
  po.device = Device::Cpu;
  const auto want = pagerank<float>(g, po);
  po.device = Device::Cuda;
  const auto first = pagerank<float>(g, po);
  reset_transfer_stats();
  const auto second = pagerank<float>(g, po);
  EXPECT_EQ(transfer_stats().graph_uploads, 0u);
  EXPECT_EQ(first.iterations, second.iterations);
  EXPECT_EQ(first.ranks.values(), second.ranks.values());
  double l1 = 0.0;
  for (std::int64_t v = 0; v < g.rows(); ++v) l1 += std::fabs(second.ranks[v] - want.ranks[v]);
  EXPECT_LT(l1, 1e-4);
  PowerIterationOptions pi;
  pi.centrality = true;
  pi.device = Device::Cuda;
  const auto p1 = power_iteration<float>(g, pi);
  reset_transfer_stats();
  const auto p2 = power_iteration<float>(g, pi);
  EXPECT_EQ(transfer_stats().graph_uploads, 0u);
  EXPECT_EQ(p1.eigenvalue, p2.eigenvalue);
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

// A device inference's workspace lives on the device: no matrix of it makes a host array (no
// host memory, no page faults, nothing zero-filled for the device to overwrite), and reading the
// result makes that one array and downloads into it.
TEST(AlgorithmsCuda, GcnWorkspaceMakesNoHostArrays) {
  SPINDLE_REQUIRE_CUDA();
  const auto g = random_graph<std::int32_t, float>(Family::PowerLaw, 4000, 6, 1.0, 8.0);
  const auto X = random_features<float>(4000, 16, 5);
  GcnOptions go;
  go.device = Device::Cpu;
  const auto A_hat = gcn_normalize<float>(g, go);
  for (const auto& widths :
       {std::vector<std::int64_t>{32, 8}, std::vector<std::int64_t>{8, 32, 4}}) {
    const auto model = glorot_model<float>(16, widths, 6);
    go.device = Device::Cpu;
    const auto want = gcn_inference_normalized(A_hat, X, model, go);
    go.device = Device::Cuda;
    GcnWorkspace<float> ws;
    gcn_inference_normalized(A_hat, X, model, ws, go);
    for (std::size_t l = 0; l < ws.tmp.size(); ++l) {
      EXPECT_FALSE(host_array_made(ws.tmp[l])) << "tmp " << l;
      EXPECT_FALSE(host_array_made(ws.out[l])) << "out " << l;
    }
    reset_transfer_stats();
    const DenseMatrix<float>& got = ws.out.back();
    double m = 0.0;
    for (std::int64_t e = 0; e < want.size(); ++e) {
      m = std::max(m, double(std::fabs(want.data()[e] - got.data()[e])));
    }
    EXPECT_LE(m, 1e-4);
    EXPECT_EQ(transfer_stats().downloads, 1u);
    EXPECT_TRUE(host_array_made(ws.out.back()));
  }
}

// GcnOptions::fuse (opt-in): a hidden layer before a transform-first layer runs ReLU(Â H W +
// b)·W_next in one SpMM (ops/cuda/mxm/mxm_project.hpp). Forced on this small graph through the test
// hook (the planner takes the group form only from 2^20 entries): three layers of which two fuse,
// the same result as the CPU backend and as the unfused order, the steps reported as run.
// GcnOptions::fuse_dense (on by default): a 64-64-16 model's hidden layer aggregates first and
// runs both dense products in one kernel on a compute capability 9.0 device; elsewhere the
// layers run as before. Either way the result matches the CPU backend, and the pair's stage is
// reported exactly where split_tf32_mlp_applies says it runs.
TEST(AlgorithmsCuda, GcnGemmPairMatchesCpuAndSkipsTheNextTransform) {
  SPINDLE_REQUIRE_CUDA();
  const auto g = random_graph<std::int32_t, float>(Family::PowerLaw, 5000, 6, 1.0, 8.0);
  const auto X = random_features<float>(5000, 64, 5);
  auto model = glorot_model<float>(64, {64, 16}, 6);
  for (std::int64_t j = 0; j < 64; ++j) model.biases[0][j] = 0.01f * static_cast<float>(j % 7 - 3);
  GcnOptions go;
  go.device = Device::Cpu;
  const auto A_hat = gcn_normalize<float>(g, go);
  const auto want = gcn_inference_normalized(A_hat, X, model, go);
  go.device = Device::Cuda;
  int pairs = 0, transforms = 0;
  go.on_stage = [&](const GcnStage& st) {
    if (st.kind != GcnStage::Kind::Transform) return;
    ++transforms;
    if (st.project) {
      ++pairs;
      EXPECT_EQ(st.layer, 0u);
      EXPECT_EQ(st.in_width, 64);
      EXPECT_EQ(st.out_width, 16);
    }
  };
  const auto got = gcn_inference_normalized(A_hat, X, model, go);
  ASSERT_EQ(got.rows(), want.rows());
  ASSERT_EQ(got.cols(), want.cols());
  double m = 0.0;
  for (std::int64_t e = 0; e < want.size(); ++e) {
    m = std::max(m, double(std::fabs(want.data()[e] - got.data()[e])));
  }
  EXPECT_LE(m, 1e-4);
  const bool applies = detail::cuda::split_tf32_mlp_applies(5000, 64, 64, 16);
  EXPECT_EQ(pairs, applies ? 1 : 0);
  EXPECT_EQ(transforms, applies ? 1 : 2);
  // Off: both transforms run on their own, same result up to rounding.
  go.fuse_dense = false;
  pairs = transforms = 0;
  const auto off = gcn_inference_normalized(A_hat, X, model, go);
  EXPECT_EQ(pairs, 0);
  EXPECT_EQ(transforms, 2);
  m = 0.0;
  for (std::int64_t e = 0; e < want.size(); ++e) {
    m = std::max(m, double(std::fabs(off.data()[e] - got.data()[e])));
  }
  EXPECT_LE(m, 1e-4);
}

TEST(AlgorithmsCuda, GcnFusedProjectionMatchesCpuAndSkipsTheNextTransform) {
  SPINDLE_REQUIRE_CUDA();
  const auto g = random_graph<std::int32_t, float>(Family::PowerLaw, 3000, 6, 1.0, 8.0);
  const auto X = random_features<float>(3000, 16, 2);
  const auto model = glorot_model<float>(16, {16, 16, 4}, 3);
  GcnOptions go;
  go.device = Device::Cpu;
  const auto A_hat = gcn_normalize<float>(g, go);
  const auto want = gcn_inference_normalized(A_hat, X, model, go);
  auto max_diff = [&](const DenseMatrix<float>& got) {
    double m = 0.0;
    for (std::int64_t e = 0; e < want.size(); ++e) {
      m = std::max(m, double(std::fabs(want.data()[e] - got.data()[e])));
    }
    return m;
  };
  go.device = Device::Cuda;
  go.fuse = true;
  std::vector<GcnStage> seen;
  go.on_stage = [&](const GcnStage& st) { seen.push_back(st); };
  detail::cuda::debug_mxm_project_force(true);
  GcnWorkspace<float> ws;
  const DenseMatrix<float>& fused = gcn_inference_normalized(A_hat, X, model, ws, go);
  detail::cuda::debug_mxm_project_force(false);
  ASSERT_EQ(fused.rows(), 3000);
  ASSERT_EQ(fused.cols(), 4);
  EXPECT_LE(max_diff(fused), 1e-4);
  EXPECT_EQ(ws.out[0].size(), 0);  // went straight into layer 1's product
  EXPECT_EQ(ws.out[1].size(), 0);
  using K = GcnStage::Kind;
  struct Want {
    K kind;
    std::size_t layer;
    std::int64_t in, out;
    bool project;
  };
  const Want steps[] = {{K::Transform, 0, 16, 16, false},
                        {K::Aggregate, 0, 16, 16, true},
                        {K::Aggregate, 1, 16, 4, true},
                        {K::Aggregate, 2, 4, 4, false}};
  ASSERT_EQ(seen.size(), std::size(steps));
  for (std::size_t i = 0; i < seen.size(); ++i) {
    SCOPED_TRACE("fused step " + std::to_string(i));
    EXPECT_EQ(seen[i].kind, steps[i].kind);
    EXPECT_EQ(seen[i].layer, steps[i].layer);
    EXPECT_EQ(seen[i].in_width, steps[i].in);
    EXPECT_EQ(seen[i].out_width, steps[i].out);
    EXPECT_EQ(seen[i].project, steps[i].project);
  }
  // fuse off (the default): every layer's GEMM and SpMM, the same numbers (the GEMM pair off
  // too: GcnGemmPairMatchesCpuAndSkipsTheNextTransform covers it).
  seen.clear();
  go.fuse = GcnOptions{}.fuse;
  go.fuse_dense = false;
  EXPECT_FALSE(go.fuse);
  detail::cuda::debug_mxm_project_force(true);
  const DenseMatrix<float> unfused = gcn_inference_normalized(A_hat, X, model, go);
  detail::cuda::debug_mxm_project_force(false);
  EXPECT_LE(max_diff(unfused), 1e-4);
  ASSERT_EQ(seen.size(), 6u);
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].kind, i % 2 == 0 ? K::Transform : K::Aggregate) << "step " << i;
    EXPECT_FALSE(seen[i].project) << "step " << i;
  }
}

}  // namespace
}  // namespace spindle::test
