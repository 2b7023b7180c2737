// SPDX-License-Identifier: Apache-2.0
// The fused random-walk steps on CUDA against the CPU backend, and the residency promise of a
// PageRank iteration built from them: no vector moves, one scalar read per iteration.
#include <gtest/gtest.h>

#include <cmath>

#include "cuda_test_util.hpp"
#include "spindle/algorithms/pagerank.hpp"
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
  // The set-up (degrees, 1/outdeg) and the final ranks may move; the iterations must not.
  EXPECT_LE(t.uploads, 3u);
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
