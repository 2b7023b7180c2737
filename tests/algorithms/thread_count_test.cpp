// SPDX-License-Identifier: Apache-2.0
// PageRank and power iteration give the same bits on 1, 2, 3 and 4 OpenMP threads, on an R-MAT
// graph of about 400 K entries (large enough that every kernel and every reduction of an
// iteration runs on several threads): the thread count may then follow the machine's load from
// one call to the next without changing any result.

#include <gtest/gtest.h>
#include <omp.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "spindle/algorithms/pagerank.hpp"
#include "spindle/algorithms/power_iteration.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/executor.hpp"
#include "spindle/loaders/generate.hpp"

namespace spindle {
namespace {

constexpr int kThreadCounts[] = {1, 2, 3, 4};

// Sets the OpenMP thread count for each step of the loop and keeps it: the adaptation to the
// machine's load is turned off (this machine may have fewer cores than the counts compared, or
// be busy), and both are restored however the test ends.
class ExactThreads {
 public:
  ExactThreads() : saved_(omp_get_max_threads()), adaptive_(adaptive_cpu_threads()) {
    set_adaptive_cpu_threads(false);
  }
  ~ExactThreads() {
    omp_set_num_threads(saved_);
    set_adaptive_cpu_threads(adaptive_);
  }
  ExactThreads(const ExactThreads&) = delete;
  ExactThreads& operator=(const ExactThreads&) = delete;

 private:
  int saved_;
  bool adaptive_;
};

template <class T>
bool same_bits(const Vector<T>& a, const Vector<T>& b) {
  return a.size() == b.size() && a.is_full() && b.is_full() &&
         std::memcmp(a.data(), b.data(), sizeof(T) * static_cast<std::size_t>(a.size())) == 0;
}

template <class T, class G>
void expect_pagerank_same_on_every_thread_count(const G& g, PageRankPreset preset,
                                                const char* what) {
  SCOPED_TRACE(what);
  const ExactThreads keep;
  PageRankOptions o;
  o.preset = preset;
  o.device = Device::Cpu;
  o.tol = 1e-9;  // many iterations (networkx's preset stops at n * tol)
  PageRankResult<T> ref;
  for (const int threads : kThreadCounts) {
    omp_set_num_threads(threads);
    const PageRankResult<T> r = pagerank<T>(g, o);
    if (threads == kThreadCounts[0]) {
      ASSERT_GE(r.iterations, 10);
      ref = r;
      continue;
    }
    EXPECT_EQ(r.iterations, ref.iterations) << threads << " threads";
    EXPECT_TRUE(same_bits(r.ranks, ref.ranks)) << threads << " threads";
  }
}

Coo<std::int32_t> rmat15() {
  Coo<std::int32_t> coo = generate_rmat<std::int32_t>(15, 16, 3);
  coo.val.resize(coo.row.size());
  for (std::size_t k = 0; k < coo.val.size(); ++k) coo.val[k] = 1.0 + double(k % 11) / 7.0;
  return coo;
}

TEST(ThreadCount, PageRankIsBitIdenticalOnEveryThreadCount) {
  const Coo<std::int32_t> coo = rmat15();
  const auto p = build_graph<std::int32_t, Pattern>(coo);
  ASSERT_GT(p.nnz(), 300000);
  expect_pagerank_same_on_every_thread_count<float>(p, PageRankPreset::Default, "pattern, float");
  expect_pagerank_same_on_every_thread_count<double>(p, PageRankPreset::Default, "pattern, double");
  expect_pagerank_same_on_every_thread_count<double>(p, PageRankPreset::NetworkX,
                                                     "pattern, double, networkx");
  const auto w = build_graph<std::int32_t, float>(coo);
  expect_pagerank_same_on_every_thread_count<float>(w, PageRankPreset::Default, "weighted, float");
}

TEST(ThreadCount, PowerIterationIsBitIdenticalOnEveryThreadCount) {
  BuildOptions b;
  b.symmetrize = true;
  const auto g = build_graph<std::int32_t, Pattern>(rmat15(), b);
  ASSERT_GT(g.nnz(), 300000);
  const ExactThreads keep;
  PowerIterationOptions o;
  o.device = Device::Cpu;
  o.tol = 1e-7;
  o.max_iter = 60;
  PowerIterationResult<double> ref;
  for (const int threads : kThreadCounts) {
    omp_set_num_threads(threads);
    const auto r = power_iteration<double>(g, o);
    if (threads == kThreadCounts[0]) {
      ASSERT_GT(r.iterations, 5);
      ref = r;
      continue;
    }
    EXPECT_EQ(r.iterations, ref.iterations) << threads << " threads";
    EXPECT_EQ(std::memcmp(&r.eigenvalue, &ref.eigenvalue, sizeof(double)), 0)
        << threads << " threads: " << r.eigenvalue << " against " << ref.eigenvalue;
    EXPECT_TRUE(same_bits(r.vector, ref.vector)) << threads << " threads";
  }
}

}  // namespace
}  // namespace spindle
