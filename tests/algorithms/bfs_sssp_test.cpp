// SPDX-License-Identifier: Apache-2.0
// BFS against a textbook queue BFS; SSSP against Dijkstra (non-negative weights) and a textbook
// Bellman–Ford (negative weights), all written here over the edge list.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

#include "alg_test_utils.hpp"
#include "spindle/algorithms/bfs.hpp"
#include "spindle/algorithms/sssp.hpp"

namespace spindle::test {
namespace {

std::vector<std::vector<std::pair<std::int64_t, double>>> adjacency(const Edges& A) {
  std::vector<std::vector<std::pair<std::int64_t, double>>> adj(A.n);
  for (const auto& e : A.e) adj[e.u].push_back({e.v, e.w});
  return adj;
}

std::vector<std::int64_t> queue_bfs(const Edges& A, std::int64_t s) {
  const auto adj = adjacency(A);
  std::vector<std::int64_t> level(A.n, -1);
  std::queue<std::int64_t> q;
  level[s] = 0;
  q.push(s);
  while (!q.empty()) {
    const auto u = q.front();
    q.pop();
    for (const auto& [v, w] : adj[u]) {
      (void)w;
      if (level[v] < 0) {
        level[v] = level[u] + 1;
        q.push(v);
      }
    }
  }
  return level;
}

std::vector<double> dijkstra(const Edges& A, std::int64_t s) {
  const auto adj = adjacency(A);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> d(A.n, inf);
  using Item = std::pair<double, std::int64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
  d[s] = 0;
  pq.push({0.0, s});
  while (!pq.empty()) {
    const auto [du, u] = pq.top();
    pq.pop();
    if (du > d[u]) continue;
    for (const auto& [v, w] : adj[u]) {
      if (du + w < d[v]) {
        d[v] = du + w;
        pq.push({d[v], v});
      }
    }
  }
  return d;
}

/// Textbook Bellman–Ford: n-1 passes over every edge; returns false on a reachable negative cycle.
bool bellman_ford(const Edges& A, std::int64_t s, std::vector<double>& d) {
  const double inf = std::numeric_limits<double>::infinity();
  d.assign(A.n, inf);
  d[s] = 0;
  for (std::int64_t pass = 0; pass + 1 < A.n; ++pass)
    for (const auto& e : A.e)
      if (d[e.u] < inf && d[e.u] + e.w < d[e.v]) d[e.v] = d[e.u] + e.w;
  for (const auto& e : A.e)
    if (d[e.u] < inf && d[e.u] + e.w < d[e.v]) return false;
  return true;
}

TEST(Bfs, LevelsMatchQueueBfsOnRandomFamilies) {
  for (Family f : kFamilies) {
    for (std::int64_t n : {1, 2, 50, 400}) {
      const auto g = random_graph<std::int32_t, double>(f, n, 70 + n);
      const Edges e = to_edges(g);
      for (std::int64_t s : {std::int64_t(0), n / 2, n - 1}) {
        const auto want = queue_bfs(e, s);
        BfsOptions o;
        o.device = Device::Cpu;
        const auto got = bfs(g, s, o);
        SCOPED_TRACE(std::string(family_name(f)) + " n=" + std::to_string(n) +
                     " s=" + std::to_string(s));
        EXPECT_EQ(got.level, want);
        EXPECT_TRUE(got.parent.empty());
        std::int64_t reached = 0, maxl = -1;
        for (auto l : want) {
          reached += l >= 0;
          maxl = std::max(maxl, l);
        }
        EXPECT_EQ(got.reached, reached);
        EXPECT_EQ(got.depth, maxl + 1);
      }
    }
  }
}

TEST(Bfs, ParentsAreSmallestIdInNeighborsOnThePreviousLevel) {
  for (Family f : kFamilies) {
    const auto g = random_graph<std::int64_t, Pattern>(f, 300, 5);
    const Edges e = to_edges(g);
    const std::int64_t s = 1;
    const auto level = queue_bfs(e, s);
    std::vector<std::int64_t> want(300, -1);
    want[s] = s;
    for (const auto& x : e.e) {
      if (x.v == s || level[x.u] < 0 || level[x.v] != level[x.u] + 1) continue;
      if (want[x.v] < 0 || x.u < want[x.v]) want[x.v] = x.u;
    }
    BfsOptions o;
    o.parents = true;
    o.device = Device::Cpu;
    const auto got = bfs(g, s, o);
    SCOPED_TRACE(family_name(f));
    EXPECT_EQ(got.level, level);
    EXPECT_EQ(got.parent, want);
  }
}

TEST(Bfs, SourceOutOfRangeThrowsIndexOutOfBounds) {
  const auto g = random_graph<std::int32_t, Pattern>(Family::Uniform, 10, 1);
  EXPECT_THROW(bfs(g, 10), IndexOutOfBounds);
  EXPECT_THROW(bfs(g, -1), IndexOutOfBounds);
  EXPECT_THROW(sssp<double>(g, 10), IndexOutOfBounds);
  EXPECT_THROW(sssp<double>(g, -3), IndexOutOfBounds);
  EXPECT_THROW(bfs(Graph<std::int32_t, Pattern>(), 0), IndexOutOfBounds);
}

TEST(Sssp, MatchesDijkstraWithNonNegativeWeights) {
  for (Family f : kFamilies) {
    for (std::int64_t n : {1, 3, 80, 500}) {
      const auto g = random_graph<std::int32_t, double>(f, n, 900 + n, 0.0, 10.0);
      const Edges e = to_edges(g);
      const std::int64_t s = n / 3;
      const auto want = dijkstra(e, s);
      SsspOptions o;
      o.device = Device::Cpu;
      const auto got = sssp<double>(g, s, o);
      SCOPED_TRACE(std::string(family_name(f)) + " n=" + std::to_string(n));
      ASSERT_EQ(got.distance.size(), n);
      std::int64_t reached = 0;
      for (std::int64_t v = 0; v < n; ++v) {
        if (std::isinf(want[v])) {
          EXPECT_TRUE(std::isinf(got.distance[v]) && got.distance[v] > 0) << v;
        } else {
          ++reached;
          EXPECT_NEAR(got.distance[v], want[v], 1e-12 * (1 + want[v])) << v;
        }
      }
      EXPECT_EQ(got.reached, reached);
      // Float distances agree to float rounding.
      const auto gf = sssp<float>(g, s, o);
      for (std::int64_t v = 0; v < n; ++v) {
        if (!std::isinf(want[v])) {
          EXPECT_NEAR(gf.distance[v], want[v], 1e-4 * (1 + want[v]));
        }
      }
    }
  }
}

TEST(Sssp, PatternGraphsGiveHopCounts) {
  const auto g = random_graph<std::int32_t, Pattern>(Family::PowerLaw, 200, 4);
  const auto level = queue_bfs(to_edges(g), 0);
  SsspOptions o;
  o.device = Device::Cpu;
  const auto d = sssp<double>(g, 0, o);
  for (std::int64_t v = 0; v < 200; ++v) {
    if (level[v] < 0) {
      EXPECT_TRUE(std::isinf(d.distance[v]));
    } else {
      EXPECT_EQ(d.distance[v], double(level[v]));
    }
  }
}

TEST(Sssp, MatchesBellmanFordWithNegativeWeightsOnDags) {
  for (std::int64_t n : {5, 60, 300}) {
    // DAG edges u < v can carry negative weights without forming a cycle.
    const auto g = random_graph<std::int64_t, double>(Family::Dag, n, 31 + n, -5.0, 10.0);
    const Edges e = to_edges(g);
    std::vector<double> want;
    ASSERT_TRUE(bellman_ford(e, 0, want));
    SsspOptions o;
    o.device = Device::Cpu;
    const auto got = sssp<double>(g, 0, o);
    for (std::int64_t v = 0; v < n; ++v) {
      if (std::isinf(want[v])) {
        EXPECT_TRUE(std::isinf(got.distance[v]));
      } else {
        EXPECT_NEAR(got.distance[v], want[v], 1e-12 * (1 + std::fabs(want[v])));
      }
    }
  }
}

TEST(Sssp, NegativeCycleReachableFromSourceThrows) {
  // 0 -> 1 -> 2 -> 1 with 1->2->1 summing to -1.
  const auto g = graph_from_edges<std::int32_t, double>(4, {{0, 1}, {1, 2}, {2, 1}, {2, 3}},
                                                        {1.0, 2.0, -3.0, 1.0});
  std::vector<double> d;
  ASSERT_FALSE(bellman_ford(to_edges(g), 0, d));
  EXPECT_THROW(sssp<double>(g, 0), InvalidArgument);
  // A negative self-loop is a negative cycle too.
  const auto loop = graph_from_edges<std::int32_t, double>(1, {{0, 0}}, {-0.5});
  EXPECT_THROW(sssp<double>(loop, 0), InvalidArgument);
  // Unreachable from the source: the distances are still well defined.
  const auto r = sssp<double>(g, 3);
  EXPECT_EQ(r.distance[3], 0.0);
  EXPECT_TRUE(std::isinf(r.distance[0]) && std::isinf(r.distance[1]));
}

TEST(Sssp, ZeroWeightEdgesAndPositiveSelfLoopsReachAFixedPoint) {
  const auto g = graph_from_edges<std::int32_t, double>(4, {{0, 0}, {0, 1}, {1, 2}, {2, 0}, {2, 3}},
                                                        {3.0, 0.0, 0.0, 0.0, 2.5});
  const auto r = sssp<double>(g, 0);
  EXPECT_EQ(r.distance[0], 0.0);
  EXPECT_EQ(r.distance[1], 0.0);
  EXPECT_EQ(r.distance[2], 0.0);
  EXPECT_EQ(r.distance[3], 2.5);
  EXPECT_EQ(r.reached, 4);
}

TEST(BfsSssp, DataGraphsMatchOracles) {
  SPINDLE_REQUIRE_DATA();
  const auto graphs = load_data_graphs<double>();
  for (const auto& dg : graphs) {
    SCOPED_TRACE(dg.file);
    const Edges e = to_edges(dg.graph);
    if (e.n == 0) continue;
    BfsOptions o;
    o.device = Device::Cpu;
    EXPECT_EQ(bfs(dg.graph, 0, o).level, queue_bfs(e, 0));
    bool non_negative = true;
    for (const auto& x : e.e) non_negative = non_negative && x.w >= 0;
    if (!non_negative) continue;
    const auto want = dijkstra(e, 0);
    const auto got = sssp<double>(dg.graph, 0);
    for (std::int64_t v = 0; v < e.n; ++v) {
      if (std::isinf(want[v])) {
        EXPECT_TRUE(std::isinf(got.distance[v]));
      } else {
        EXPECT_NEAR(got.distance[v], want[v], 1e-9 * (1 + want[v]));
      }
    }
  }
}

}  // namespace
}  // namespace spindle::test
