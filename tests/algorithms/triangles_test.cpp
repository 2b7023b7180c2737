// SPDX-License-Identifier: Apache-2.0
// triangles(): counts and clustering coefficients against brute force on small and random graphs,
// for every sparse mxm kernel and both index types (networkx values: networkx_reference_test).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "alg_test_utils.hpp"
#include "spindle/algorithms/triangles.hpp"
#include "spindle/executor.hpp"

namespace spindle::test {
namespace {

// Brute force over the undirected simple graph of the edges (either direction, no self-loops).
struct Brute {
  std::int64_t total = 0;
  std::vector<std::int64_t> per_vertex;
  std::vector<double> clustering;
};

Brute brute(std::int64_t n, const std::vector<std::pair<int, int>>& edges) {
  std::vector<std::set<int>> adj(static_cast<std::size_t>(n));
  for (auto [u, v] : edges) {
    if (u == v) continue;
    adj[u].insert(v);
    adj[v].insert(u);
  }
  Brute b;
  b.per_vertex.assign(static_cast<std::size_t>(n), 0);
  b.clustering.assign(static_cast<std::size_t>(n), 0.0);
  for (int u = 0; u < n; ++u) {
    for (int v : adj[u]) {
      if (v <= u) continue;
      for (int w : adj[v]) {
        if (w <= v || !adj[u].count(w)) continue;
        ++b.total;
        ++b.per_vertex[u];
        ++b.per_vertex[v];
        ++b.per_vertex[w];
      }
    }
  }
  for (int u = 0; u < n; ++u) {
    const auto d = static_cast<std::int64_t>(adj[u].size());
    if (d >= 2) b.clustering[u] = 2.0 * b.per_vertex[u] / static_cast<double>(d * (d - 1));
  }
  return b;
}

constexpr SpgemmKernel kKernels[] = {SpgemmKernel::Auto, SpgemmKernel::GustavsonDense,
                                     SpgemmKernel::GustavsonHash, SpgemmKernel::MaskedGustavson,
                                     SpgemmKernel::MaskedDot};

// Returns whether the total was counted after the degree relabelling.
template <class I, class V>
bool expect_brute(std::int64_t n, const std::vector<std::pair<int, int>>& edges) {
  const Graph<I, V> g = graph_from_edges<I, V>(n, edges);
  const Brute want = brute(n, edges);
  bool relabelled = false;
  for (const SpgemmKernel k : kKernels) {
    SCOPED_TRACE(to_string(k));
    TriangleOptions o;
    o.kernel = k;
    const TriangleResult t = triangles(g, o);
    EXPECT_EQ(t.total, want.total);
    relabelled = t.degree_ordered;
    o.clustering = true;
    const TriangleResult r = triangles(g, o);
    EXPECT_EQ(r.total, want.total);
    EXPECT_EQ(r.per_vertex, want.per_vertex);
    EXPECT_EQ(r.clustering, want.clustering);
  }
  return relabelled;
}

TEST(Triangles, CompleteGraphOnFourVertices) {
  const std::vector<std::pair<int, int>> k4 = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  const auto g = graph_from_edges<std::int32_t, Pattern>(4, k4);
  TriangleOptions o;
  o.clustering = true;
  const TriangleResult r = triangles(g, o);
  EXPECT_EQ(r.total, 4);
  EXPECT_EQ(r.edges, 6);
  EXPECT_EQ(r.per_vertex, (std::vector<std::int64_t>{3, 3, 3, 3}));
  EXPECT_EQ(r.clustering, (std::vector<double>{1, 1, 1, 1}));
  expect_brute<std::int64_t, double>(4, k4);
}

TEST(Triangles, DirectionsDuplicatesAndSelfLoopsAreIgnored) {
  // One triangle given with mixed directions, a reciprocal pair and self-loops; a pendant vertex.
  const std::vector<std::pair<int, int>> e = {{0, 1}, {2, 1}, {0, 2}, {2, 0},
                                              {1, 1}, {3, 3}, {3, 0}, {4, 4}};
  expect_brute<std::int32_t, Pattern>(5, e);
  expect_brute<std::int64_t, float>(5, e);
  const auto r = triangles(graph_from_edges<std::int32_t, Pattern>(5, e));
  EXPECT_EQ(r.total, 1);
}

TEST(Triangles, RandomGraphsWithHubsMatchBruteForce) {
  std::mt19937_64 rng(11);
  int relabelled = 0;
  for (int n : {1, 2, 50, 300, 1000}) {
    std::vector<std::pair<int, int>> e;
    for (int t = 0; t < n * 6; ++t) {
      const int u = static_cast<int>(rng() % n);
      const int v =
          (rng() % 3 == 0) ? static_cast<int>(rng() % std::min(n, 5)) : static_cast<int>(rng() % n);
      e.emplace_back(u, v);
    }
    SCOPED_TRACE(n);
    relabelled += expect_brute<std::int32_t, double>(n, e) ? 1 : 0;
    relabelled += expect_brute<std::int64_t, Pattern>(n, e) ? 1 : 0;
  }
  EXPECT_GE(relabelled, 2);  // the hubs make the larger graphs skewed: the relabelled path ran
}

TEST(Triangles, EmptyAndNonSquareGraphs) {
  const TriangleResult r = triangles(Graph<std::int32_t, Pattern>());
  EXPECT_EQ(r.total, 0);
  TriangleOptions o;
  o.clustering = true;
  const auto lonely = graph_from_edges<std::int32_t, Pattern>(3, {});
  const TriangleResult s = triangles(lonely, o);
  EXPECT_EQ(s.per_vertex, (std::vector<std::int64_t>{0, 0, 0}));
  EXPECT_EQ(s.clustering, (std::vector<double>{0, 0, 0}));
  const Graph<std::int32_t, Pattern> rect(2, 3, {0, 1, 1}, {2});
  EXPECT_THROW(triangles(rect), InvalidArgument);
  if (!cuda_available()) {
    o.device = Device::Cuda;
    EXPECT_THROW(triangles(lonely, o), Unsupported);
  }
}

}  // namespace
}  // namespace spindle::test
