// SPDX-License-Identifier: Apache-2.0
// The fused random-walk steps on CUDA against the CPU backend, and the residency promise of a
// PageRank iteration built from them: no vector moves, one scalar read per iteration.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "cuda_test_util.hpp"
#include "spindle/algorithms/pagerank.hpp"
#include "spindle/algorithms/power_iteration.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/rank.hpp"

namespace spindle {
namespace {

using cuda_test::Family;

template <class T>
Vector<T> full_random(std::int64_t n, std::uint64_t seed, int zero_every = 0) {
  Vector<T> v = cuda_test::random_vector<T>(n, 0.0, seed);
  if (zero_every > 0) {
    for (std::int64_t i = 0; i < n; i += zero_every) v[i] = T(0);
  }
  return v;
}

template <class T>
void check_steps(std::int64_t n, bool sparse_y, bool with_p) {
  const Vector<T> x = full_random<T>(n, 1), s = full_random<T>(n, 2, 7), p = full_random<T>(n, 3);
  Vector<T> w_gpu(n, T(-1)), w_cpu, l_gpu, l_cpu;
  {
    cuda_test::PoisonOutputs poison;
    scale_and_leak(w_gpu, l_gpu, x, s, Descriptor().on(Device::Cuda));
  }
  scale_and_leak(w_cpu, l_cpu, x, s, Descriptor().on(Device::Cpu));
  EXPECT_TRUE(cuda_test::same_result(w_gpu, w_cpu, true)) << "w, n " << n;
  EXPECT_TRUE(cuda_test::same_result(l_gpu, l_cpu, false)) << "leak, n " << n;
  Vector<T> y = full_random<T>(n, 4);
  if (sparse_y) {
    for (std::int64_t i = 0; i < n; i += 3) y.remove(i);
  }
  Vector<T> y_gpu = y, y_cpu = y;
  const T r_gpu = teleport_and_residual(y_gpu, x, l_gpu, 0.15 / n, 0.85 / n, with_p ? &p : nullptr,
                                        Descriptor().on(Device::Cuda));
  const T r_cpu = teleport_and_residual(y_cpu, x, l_cpu, 0.15 / n, 0.85 / n, with_p ? &p : nullptr,
                                        Descriptor().on(Device::Cpu));
  EXPECT_TRUE(y_gpu.is_full());
  EXPECT_TRUE(cuda_test::same_result(y_gpu, y_cpu, false)) << "x_new, n " << n;
  const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
  EXPECT_NEAR(double(r_gpu), double(r_cpu), tol * std::max(1.0, std::fabs(double(r_cpu))));
}

TEST(RankStepsCuda, MatchCpuForEverySizeClass) {
  SPINDLE_REQUIRE_CUDA();
  for (std::int64_t n : {1, 255, 8192, 8193, 300001}) {
    for (bool sparse : {false, true}) {
      for (bool with_p : {false, true}) {
        check_steps<float>(n, sparse, with_p);
        check_steps<double>(n, sparse, with_p);
      }
    }
  }
}

/// The fused step on CUDA: the same bits as the two CUDA calls it replaces, run to run too, and
/// the CPU's values.
template <class T>
void check_fused_step(std::int64_t n, bool sparse_y, bool with_p) {
  const Vector<T> x = full_random<T>(n, 11), s = full_random<T>(n, 12, 5),
                  p = full_random<T>(n, 13);
  Vector<T> y = full_random<T>(n, 14);
  if (sparse_y) {
    for (std::int64_t i = 0; i < n; i += 3) y.remove(i);
  }
  const double t0 = 0.15 / double(n), t1 = 0.85 / double(n);
  const Descriptor gpu = Descriptor().on(Device::Cuda), cpu = Descriptor().on(Device::Cpu);
  Vector<T> y_two = y, w_two, l_two(1, T(0.375));
  const T r_two = teleport_and_residual<T>(y_two, x, l_two, t0, t1, with_p ? &p : nullptr, gpu);
  scale_and_leak(w_two, l_two, y_two, s, gpu);

  Vector<T> y_one = y, w_one(n, T(-1)), l_one(1, T(0.375));
  T r_one{};
  {
    cuda_test::PoisonOutputs poison;
    PendingScalar<T> r = teleport_residual_and_scale<T>(y_one, x, l_one, t0, t1,
                                                        with_p ? &p : nullptr, w_one, s, gpu);
    r_one = r.get();
  }
  const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
  EXPECT_EQ(std::memcmp(&r_one, &r_two, sizeof(T)), 0) << "residual, n " << n;
  EXPECT_TRUE(cuda_test::same_result(y_one, y_two, true)) << "x_new, n " << n;
  EXPECT_TRUE(cuda_test::same_result(w_one, w_two, true)) << "w, n " << n;
  EXPECT_TRUE(cuda_test::same_result(l_one, l_two, true)) << "leak, n " << n;
  {  // run to run: the same bits
    Vector<T> y_again = y, w_again, l_again(1, T(0.375));
    const T r_again = teleport_residual_and_scale<T>(y_again, x, l_again, t0, t1,
                                                     with_p ? &p : nullptr, w_again, s, gpu)
                          .get();
    EXPECT_EQ(std::memcmp(&r_again, &r_one, sizeof(T)), 0) << "residual again, n " << n;
    EXPECT_TRUE(cuda_test::same_result(l_again, l_one, true)) << "leak again, n " << n;
  }

  Vector<T> y_cpu = y, w_cpu, l_cpu(1, T(0.375));
  const T r_cpu =
      teleport_residual_and_scale<T>(y_cpu, x, l_cpu, t0, t1, with_p ? &p : nullptr, w_cpu, s, cpu)
          .get();
  EXPECT_TRUE(cuda_test::same_result(y_one, y_cpu, false)) << "x_new vs CPU, n " << n;
  EXPECT_TRUE(cuda_test::same_result(w_one, w_cpu, false)) << "w vs CPU, n " << n;
  EXPECT_TRUE(cuda_test::same_result(l_one, l_cpu, false)) << "leak vs CPU, n " << n;
  EXPECT_NEAR(double(r_one), double(r_cpu), tol * std::max(1.0, std::fabs(double(r_cpu))));
}

TEST(RankStepsCuda, FusedStepGivesTheTwoCallsBitsAndMatchesCpu) {
  SPINDLE_REQUIRE_CUDA();
  for (std::int64_t n : {1, 255, 8192, 8193, 300001}) {
    for (bool sparse : {false, true}) {
      for (bool with_p : {false, true}) {
        check_fused_step<float>(n, sparse, with_p);
        check_fused_step<double>(n, sparse, with_p);
      }
    }
  }
}

TEST(RankStepsCuda, PendingResidualsArriveInAnyOrderOrAreDroppedUnread) {
  SPINDLE_REQUIRE_CUDA();
  // More residuals in flight than one page of read-back slots (64), read newest first, some
  // dropped unread: each must hold its own step's value.
  const std::int64_t n = 5000;
  const Vector<float> x(n, 0.0f), s(n, 1.0f);
  const Descriptor gpu = Descriptor().on(Device::Cuda);
  std::vector<PendingScalar<float>> pending;
  std::vector<float> want;
  Vector<float> w, leak(1, 0.0f);
  for (int k = 0; k < 150; ++k) {
    Vector<float> y(n, static_cast<float>(k + 1));  // residual n * (k + 1 + c), c = t0 = 1e-3
    pending.push_back(
        teleport_residual_and_scale<float>(y, x, leak, 1e-3, 0.0, nullptr, w, s, gpu));
    want.push_back(static_cast<float>(n) * (static_cast<float>(k + 1) + 1e-3f));
  }
  for (int k = 149; k >= 0; --k) {
    if (k % 7 == 3) continue;  // never read: its slot goes back when it is destroyed
    EXPECT_NEAR(pending[k].get(), want[k], 1e-4 * want[k]) << "step " << k;
  }
  pending.clear();
  for (int k = 0; k < 3; ++k) {  // slots are reused after the clear
    Vector<float> y(n, 2.0f);
    EXPECT_NEAR(teleport_residual_and_scale<float>(y, x, leak, 0.0, 0.0, nullptr, w, s, gpu).get(),
                2.0f * n, 1e-3);
  }
}

TEST(RankStepsCuda, PageRankStopsAtTheSameIterationWithTheSameRanksAsAFixedRun) {
  SPINDLE_REQUIRE_CUDA();
  // The CUDA loop reads each residual one iteration late and drops the extra iteration it ran:
  // the answer must be that of a run fixed at the stopping iteration, to the bit, and the CPU's.
  const auto A = cuda_test::make_graph<std::int32_t, Pattern>(Family::PowerLaw, 30011, 30011, 10);
  PageRankOptions o;
  o.device = Device::Cuda;
  o.tol = 1e-5;
  std::vector<std::pair<int, double>> seen;
  o.on_iteration = [&](int k, double r) { seen.emplace_back(k, r); };
  const auto conv = pagerank<float>(A, o);
  ASSERT_TRUE(conv.converged);
  ASSERT_GT(conv.iterations, 3);
  ASSERT_EQ(static_cast<int>(seen.size()), conv.iterations) << "one callback per iteration kept";
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i].first, int(i) + 1);
  EXPECT_EQ(seen.back().second, conv.residual);
  EXPECT_LT(conv.residual, 1e-5);
  EXPECT_GE(seen[seen.size() - 2].second, 1e-5) << "it stopped at the first residual under tol";

  PageRankOptions fixed;
  fixed.device = Device::Cuda;
  fixed.tol = 0.0;
  fixed.max_iter = conv.iterations;
  const auto f = pagerank<float>(A, fixed);
  EXPECT_EQ(f.iterations, conv.iterations);
  EXPECT_EQ(f.residual, conv.residual);
  ASSERT_EQ(f.ranks.size(), conv.ranks.size());
  EXPECT_EQ(std::memcmp(f.ranks.data(), conv.ranks.data(), sizeof(float) * f.ranks.size()), 0);

  fixed.device = Device::Cpu;
  const auto c = pagerank<float>(A, fixed);
  EXPECT_NEAR(c.residual, conv.residual, 1e-6);
  double l1 = 0.0;
  for (std::int64_t i = 0; i < A.rows(); ++i)
    l1 += std::fabs(double(conv.ranks[i]) - double(c.ranks[i]));
  EXPECT_LT(l1, 1e-5);
}

template <class T>
void check_normalize(std::int64_t n, bool zero) {
  const Vector<T> x = full_random<T>(n, 21);
  const Vector<T> y0 = zero ? Vector<T>(n, T(0)) : full_random<T>(n, 22);
  const Descriptor gpu = Descriptor().on(Device::Cuda), cpu = Descriptor().on(Device::Cpu);
  Vector<T> y_gpu = y0, y_cpu = y0, y_again = y0;
  T norm_gpu{}, change_gpu{};
  {
    cuda_test::PoisonOutputs poison;
    NormalizedStep<T> s = normalize_and_distance(y_gpu, x, gpu);
    norm_gpu = s.norm.get();
    change_gpu = s.change.get();
  }
  NormalizedStep<T> c = normalize_and_distance(y_cpu, x, cpu);
  const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
  EXPECT_NEAR(double(norm_gpu), double(c.norm.get()), tol * std::max(1.0, double(c.norm.get())))
      << "norm, n " << n;
  EXPECT_NEAR(double(change_gpu), double(c.change.get()),
              tol * std::max(1.0, double(c.change.get())))
      << "change, n " << n;
  EXPECT_TRUE(cuda_test::same_result(y_gpu, y_cpu, false)) << "y, n " << n;
  if (zero) {
    EXPECT_EQ(norm_gpu, T(0));
  }
  NormalizedStep<T> again = normalize_and_distance(y_again, x, gpu);
  const T change_again = again.change.get();  // read out of order: the change first
  const T norm_again = again.norm.get();
  EXPECT_EQ(std::memcmp(&norm_again, &norm_gpu, sizeof(T)), 0) << "run to run, n " << n;
  EXPECT_EQ(std::memcmp(&change_again, &change_gpu, sizeof(T)), 0) << "run to run, n " << n;
  EXPECT_TRUE(cuda_test::same_result(y_again, y_gpu, true)) << "run to run, n " << n;
}

TEST(RankStepsCuda, NormalizeAndDistanceMatchesCpuAndRepeatsItsBits) {
  SPINDLE_REQUIRE_CUDA();
  for (std::int64_t n : {1, 255, 8192, 8193, 300001}) {
    check_normalize<float>(n, false);
    check_normalize<double>(n, false);
  }
  check_normalize<float>(5000, true);
  check_normalize<double>(5000, true);
}

TEST(RankStepsCuda, PageRankStopRulesHoldWithTheLateRead) {
  SPINDLE_REQUIRE_CUDA();
  // Around the stopping iteration K: max_iter K (nothing dropped), K + 1 (the dropped iteration
  // is the last one), K - 1 (no convergence); the Boost preset runs max_iter regardless; a
  // personalized run matches the CPU. Iteration counts, flags and callbacks as on the CPU loop.
  const auto A = cuda_test::make_graph<std::int32_t, Pattern>(Family::PowerLaw, 20011, 20011, 12);
  PageRankOptions o;
  o.device = Device::Cuda;
  o.tol = 1e-5;
  int calls = 0;
  o.on_iteration = [&](int k, double) { EXPECT_EQ(k, ++calls); };
  const auto conv = pagerank<float>(A, o);
  ASSERT_TRUE(conv.converged);
  const int K = conv.iterations;
  ASSERT_GT(K, 3);
  EXPECT_EQ(calls, K);
  for (int cap : {K, K + 1, K - 1}) {
    calls = 0;
    o.max_iter = cap;
    const auto r = pagerank<float>(A, o);
    EXPECT_EQ(r.iterations, std::min(cap, K)) << "max_iter " << cap;
    EXPECT_EQ(r.converged, cap >= K) << "max_iter " << cap;
    EXPECT_EQ(calls, r.iterations) << "max_iter " << cap;
    if (cap >= K) {
      EXPECT_EQ(std::memcmp(r.ranks.data(), conv.ranks.data(), sizeof(float) * r.ranks.size()), 0)
          << "max_iter " << cap;
    }
  }
  PageRankOptions boost;
  boost.device = Device::Cuda;
  boost.preset = PageRankPreset::Boost;
  boost.max_iter = 7;
  calls = 0;
  boost.on_iteration = [&](int k, double) { EXPECT_EQ(k, ++calls); };
  const auto b = pagerank<float>(A, boost);
  EXPECT_EQ(b.iterations, 7);
  EXPECT_EQ(calls, 7);

  PageRankOptions pers;
  pers.device = Device::Cuda;
  pers.tol = 0.0;
  pers.max_iter = 15;
  pers.personalization.assign(static_cast<std::size_t>(A.rows()), 0.0);
  for (std::size_t i = 0; i < pers.personalization.size(); i += 97) pers.personalization[i] = 1.0;
  const auto pg = pagerank<float>(A, pers);
  pers.device = Device::Cpu;
  const auto pc = pagerank<float>(A, pers);
  EXPECT_EQ(pg.iterations, 15);
  double l1 = 0.0;
  for (std::int64_t i = 0; i < A.rows(); ++i) l1 += std::fabs(double(pg.ranks[i]) - pc.ranks[i]);
  EXPECT_LT(l1, 1e-5);
  EXPECT_NEAR(pg.residual, pc.residual, 1e-6);
}

TEST(RankStepsCuda, PowerIterationStopsWhereAFixedRunEndsAndReadsTwoScalarsPerIteration) {
  SPINDLE_REQUIRE_CUDA();
  // Scalars read one iteration late: the converged answer must be a fixed run's of that length,
  // to the bit, and the iterations must not read anything else.
  const auto A = cuda_test::make_graph<std::int32_t, Pattern>(Family::PowerLaw, 20011, 20011, 8);
  PowerIterationOptions o;
  o.device = Device::Cuda;
  o.centrality = true;
  o.tol = 1e-8;  // networkx's threshold n * tol: 2e-4 here
  o.max_iter = 500;
  (void)power_iteration<float>(A, o);  // uploads and transposes once
  reset_transfer_stats();
  const auto conv = power_iteration<float>(A, o);
  const TransferStats t = transfer_stats();
  ASSERT_TRUE(conv.converged);
  ASSERT_GT(conv.iterations, 3);
  // Two per iteration queued (norm and change; the dropped iteration's included: the run stops
  // before max_iter) and the three dot products of the final Rayleigh quotient and residual.
  EXPECT_EQ(t.scalar_reads, 2u * static_cast<unsigned>(conv.iterations + 1) + 3u);
  EXPECT_EQ(t.graph_uploads, 0u);

  PowerIterationOptions fixed = o;
  fixed.tol = 0.0;
  fixed.max_iter = conv.iterations;
  const auto f = power_iteration<float>(A, fixed);
  EXPECT_EQ(f.iterations, conv.iterations);
  EXPECT_EQ(f.last_change, conv.last_change);
  EXPECT_EQ(f.eigenvalue, conv.eigenvalue);
  ASSERT_EQ(f.vector.size(), conv.vector.size());
  EXPECT_EQ(std::memcmp(f.vector.data(), conv.vector.data(), sizeof(float) * f.vector.size()), 0);

  fixed.max_iter = conv.iterations - 1;  // stops at max_iter without converging
  const auto short_run = power_iteration<float>(A, fixed);
  EXPECT_EQ(short_run.iterations, conv.iterations - 1);
  o.max_iter = conv.iterations - 1;
  EXPECT_FALSE(power_iteration<float>(A, o).converged);

  fixed.max_iter = conv.iterations;
  fixed.device = Device::Cpu;
  const auto c = power_iteration<float>(A, fixed);
  EXPECT_NEAR(c.eigenvalue, conv.eigenvalue, 1e-4 * std::fabs(c.eigenvalue));
  double l1 = 0.0;
  for (std::int64_t i = 0; i < A.rows(); ++i)
    l1 += std::fabs(double(conv.vector[i]) - double(c.vector[i]));
  EXPECT_LT(l1, 1e-4);
}

TEST(RankStepsCuda, PowerIterationReportsAVanishedIterate) {
  SPINDLE_REQUIRE_CUDA();
  // A directed path has a nilpotent adjacency: in plain mode without shift the iterate reaches 0.
  const std::int32_t n = 6;
  Coo<std::int32_t> coo;
  coo.rows = coo.cols = n;
  for (std::int32_t i = 0; i + 1 < n; ++i) {
    coo.row.push_back(i);
    coo.col.push_back(i + 1);
  }
  const auto A = build_graph<std::int32_t, Pattern>(std::move(coo));
  PowerIterationOptions o;
  o.device = Device::Cuda;
  o.max_iter = 20;
  const auto g = power_iteration<float>(A, o);
  o.device = Device::Cpu;
  const auto c = power_iteration<float>(A, o);
  EXPECT_TRUE(g.vanished);
  EXPECT_EQ(g.vanished, c.vanished);
  EXPECT_EQ(g.iterations, c.iterations);
  EXPECT_EQ(g.converged, c.converged);
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(g.vector[i], 0.0f);
}

TEST(RankStepsCuda, PageRankIterationMovesNoVectorAndReadsOneScalar) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = cuda_test::make_graph<std::int32_t, Pattern>(Family::PowerLaw, 20011, 20011, 9);
  PageRankOptions o;
  o.device = Device::Cuda;
  o.tol = 0.0;  // run every iteration
  o.max_iter = 3;
  (void)pagerank<float>(A, o);  // uploads the graph and builds its transpose once
  reset_transfer_stats();
  o.max_iter = 10;
  const auto r = pagerank<float>(A, o);
  const TransferStats t = transfer_stats();
  EXPECT_EQ(t.graph_uploads, 0u);
  EXPECT_EQ(t.scalar_reads, 10u) << "one residual per iteration and nothing else";
  // The constants (the zeros the degrees add into, the start vector) are filled on the device:
  // nothing is uploaded. Only the final ranks may be downloaded.
  EXPECT_EQ(t.uploads, 0u);
  EXPECT_LE(t.downloads, 1u);
  o.device = Device::Cpu;
  const auto c = pagerank<float>(A, o);
  double l1 = 0.0;
  for (std::int64_t i = 0; i < A.rows(); ++i)
    l1 += std::fabs(double(r.ranks[i]) - double(c.ranks[i]));
  EXPECT_LT(l1, 1e-5);
}

}  // namespace
}  // namespace spindle
