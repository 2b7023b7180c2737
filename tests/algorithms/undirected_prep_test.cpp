// SPDX-License-Identifier: Apache-2.0
// The preparation shared by triangles() and k_truss() (algorithms/src/undirected_pattern.hpp,
// degree_order.hpp) against naive oracles, on 1 and several OpenMP threads: the parallel passes
// must give the very same CSR arrays whatever the thread count, and so the same counts,
// clustering coefficients and trusses.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "alg_test_utils.hpp"
#include "algorithms/src/degree_order.hpp"
#include "algorithms/src/undirected_pattern.hpp"
#include "spindle/algorithms/ktruss.hpp"
#include "spindle/algorithms/triangles.hpp"

namespace spindle::test {
namespace {

// Thread counts to compare, the first being the sequential reference.
constexpr int kThreadCounts[] = {1, 2, 3, 7};

// Restores the OpenMP thread count of the test's start.
class ThreadCount {
 public:
  ThreadCount() : saved_(omp_get_max_threads()) {}
  ~ThreadCount() { omp_set_num_threads(saved_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int saved_;
};

// Random directed edges with everything the undirected graph must see through: one-directional
// and reciprocal edges, the same edge given twice, self-loops, vertices without edges and a few
// hubs (long rows, for the degree order's bitmap path and the skew test of triangles()).
std::vector<std::pair<int, int>> messy_edges(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<int, int>> e;
  if (n == 0) return e;
  const auto any = [&] { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  for (int k = 0; k < 3 * n; ++k) {
    const int u = any();
    const int v = any();
    e.emplace_back(u, v);
    if (rng() % 4 == 0) e.emplace_back(v, u);   // reciprocal
    if (rng() % 8 == 0) e.emplace_back(u, v);   // duplicate
    if (rng() % 16 == 0) e.emplace_back(u, u);  // self-loop
  }
  for (int h = 0; h < 3 && h < n; ++h) {
    const int hub = any();
    const int fan = std::min(n, 40 + n / (4 << h));
    for (int k = 0; k < fan; ++k) {
      const int v = any();
      if (rng() % 2 == 0) {
        e.emplace_back(hub, v);
      } else {
        e.emplace_back(v, hub);
      }
    }
  }
  return e;
}

// The undirected simple graph, naively: sets of neighbours.
std::vector<std::set<std::int64_t>> neighbours(int n, const std::vector<std::pair<int, int>>& e) {
  std::vector<std::set<std::int64_t>> adj(static_cast<std::size_t>(n));
  for (const auto& [u, v] : e) {
    if (u == v) continue;
    adj[u].insert(v);
    adj[v].insert(u);
  }
  return adj;
}

template <class I>
struct Csr {
  std::vector<I> rp;
  std::vector<I> ci;
};

template <class I>
Csr<I> csr_of(const std::vector<std::vector<std::int64_t>>& rows) {
  Csr<I> c;
  c.rp.push_back(0);
  for (const auto& row : rows) {
    for (const std::int64_t j : row) c.ci.push_back(static_cast<I>(j));
    c.rp.push_back(static_cast<I>(c.ci.size()));
  }
  return c;
}

template <class I, class V>
void expect_prep_matches_oracle(int n, std::uint64_t seed) {
  SCOPED_TRACE("n=" + std::to_string(n) + " seed=" + std::to_string(seed));
  const std::vector<std::pair<int, int>> e = messy_edges(n, seed);
  const auto adj = neighbours(n, e);
  // Oracles: the full and lower patterns, degrees, the stable sort by degree the triangle count
  // used before its counting sort, and the relabelled lower part sorted row by row.
  std::vector<std::vector<std::int64_t>> full(n), lower(n);
  std::vector<I> degree(n), below(n);
  for (int i = 0; i < n; ++i) {
    for (const std::int64_t j : adj[i]) {
      full[i].push_back(j);
      if (j < i) lower[i].push_back(j);
    }
    degree[i] = static_cast<I>(full[i].size());
    below[i] = static_cast<I>(lower[i].size());
  }
  std::vector<I> order(n);
  for (int v = 0; v < n; ++v) order[v] = static_cast<I>(v);
  std::stable_sort(order.begin(), order.end(), [&](I a, I b) { return degree[a] < degree[b]; });
  std::vector<I> rank(n);
  for (int r = 0; r < n; ++r) rank[order[r]] = static_cast<I>(r);
  std::vector<std::vector<std::int64_t>> relabelled(n);
  for (int u = 0; u < n; ++u) {
    for (const std::int64_t w : adj[u]) {
      if (rank[w] < rank[u]) relabelled[rank[u]].push_back(rank[w]);
    }
    std::sort(relabelled[rank[u]].begin(), relabelled[rank[u]].end());
  }
  const Csr<I> want_full = csr_of<I>(full);
  const Csr<I> want_lower = csr_of<I>(lower);
  const Csr<I> want_ordered = csr_of<I>(relabelled);

  ThreadCount keep;
  for (const int threads : kThreadCounts) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    omp_set_num_threads(threads);
    const Graph<I, V> A = graph_from_edges<I, V>(n, e);  // fresh: no cached transpose
    const detail::UndirectedCounts<I> c = detail::undirected_counts(A);
    EXPECT_EQ(c.degree, degree);
    EXPECT_EQ(c.below, below);
    for (const bool given : {false, true}) {
      const Graph<I, Pattern> U =
          detail::undirected_pattern(A, false, "test", given ? &c.degree : nullptr);
      EXPECT_EQ(U.row_ptr(), want_full.rp);
      EXPECT_EQ(U.col_idx(), want_full.ci);
      const Graph<I, Pattern> L =
          detail::undirected_pattern(A, true, "test", given ? &c.below : nullptr);
      EXPECT_EQ(L.row_ptr(), want_lower.rp);
      EXPECT_EQ(L.col_idx(), want_lower.ci);
    }
    EXPECT_EQ(detail::degree_rank(degree), rank);
    const Graph<I, Pattern> Lo =
        detail::degree_ordered_lower(detail::undirected_pattern(A, false, "test"), rank);
    EXPECT_EQ(Lo.row_ptr(), want_ordered.rp);
    EXPECT_EQ(Lo.col_idx(), want_ordered.ci);
  }
}

TEST(UndirectedPrep, PatternsAndDegreeOrderMatchNaiveOracleOnAnyThreadCount) {
  // Up to 60000 vertices: past the preparation's serial cut-off (rows + entries), with rows of
  // every kind for the degree order (short and sorted, long and set as bits).
  for (const int n : {0, 1, 2, 17, 500, 60000}) {
    expect_prep_matches_oracle<std::int32_t, Pattern>(n, 7);
    expect_prep_matches_oracle<std::int64_t, float>(n, 8);
  }
}

TEST(UndirectedPrep, DegreeRankIsTheStableSortByDegree) {
  // Many ties, a zero degree and a largest degree reached once.
  const std::vector<std::int32_t> degree = {3, 0, 3, 1, 9, 1, 0, 3, 2, 1};
  EXPECT_EQ(detail::degree_rank(degree), (std::vector<std::int32_t>{6, 0, 7, 2, 9, 3, 1, 8, 5, 4}));
  EXPECT_TRUE(detail::degree_rank(std::vector<std::int64_t>{}).empty());
}

TEST(UndirectedPrep, TrianglesAndKTrussAreTheSameOnAnyThreadCount) {
  const int n = 40000;
  const std::vector<std::pair<int, int>> e = messy_edges(n, 11);
  ThreadCount keep;
  TriangleResult first;
  KTrussResult<std::int32_t> first_truss;
  for (const int threads : kThreadCounts) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    omp_set_num_threads(threads);
    const auto A = graph_from_edges<std::int32_t, double>(n, e);
    TriangleOptions o;
    o.device = Device::Cpu;
    o.clustering = true;
    const TriangleResult t = triangles(A, o);
    KTrussOptions ko;
    ko.device = Device::Cpu;
    ko.truss_numbers = true;
    const KTrussResult<std::int32_t> k = k_truss(A, 3, ko);
    if (threads == kThreadCounts[0]) {
      EXPECT_TRUE(t.degree_ordered);  // the hubs make it skewed
      EXPECT_GT(t.total, 0);
      first = t;
      first_truss = k;
      continue;
    }
    EXPECT_EQ(t.total, first.total);
    EXPECT_EQ(t.edges, first.edges);
    EXPECT_EQ(t.per_vertex, first.per_vertex);
    EXPECT_EQ(t.clustering, first.clustering);
    EXPECT_EQ(k.truss.row_ptr(), first_truss.truss.row_ptr());
    EXPECT_EQ(k.truss.col_idx(), first_truss.truss.col_idx());
    EXPECT_EQ(k.truss_numbers.values(), first_truss.truss_numbers.values());
    EXPECT_EQ(k.rounds, first_truss.rounds);
  }
}

}  // namespace
}  // namespace spindle::test
