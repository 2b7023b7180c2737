// SPDX-License-Identifier: Apache-2.0
// Betweenness centrality: against networkx (exact, endpoints unnormalized, and sampled with
// networkx's own sources) on the real graphs, against a plain Brandes oracle on random graphs for
// every scaling mode, and on degenerate graphs.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "alg_test_utils.hpp"
#include "nx_fixtures.hpp"
#include "spindle/algorithms/betweenness.hpp"
#include "spindle/error.hpp"

namespace spindle::test {
namespace {

BetweennessOptions cpu() {
  BetweennessOptions o;
  o.device = Device::Cpu;
  return o;
}

double max_abs_vs_nx(const std::vector<double>& got, const DataGraph<Pattern>& g,
                     const std::string& measure) {
  const auto want = nx_values(g.file, measure);
  EXPECT_EQ(got.size(), want.size());
  double worst = 0.0;
  for (std::size_t v = 0; v < g.names.size(); ++v) {
    worst = std::max(worst, std::fabs(got[v] - std::stod(want.at(g.names[v]))));
  }
  return worst;
}

// Textbook Brandes (queue BFS, predecessor lists), networkx's accumulation and _rescale.
std::vector<double> oracle(const Edges& g, const std::vector<std::int64_t>& sources, bool sampled,
                           bool normalized, bool endpoints, bool directed) {
  const auto n = static_cast<std::size_t>(g.n);
  std::vector<std::vector<std::int64_t>> out(n);
  for (const auto& e : g.e) out[e.u].push_back(e.v);
  std::vector<double> bc(n, 0.0);
  for (auto s : sources) {
    std::vector<std::int64_t> order, dist(n, -1);
    std::vector<double> sigma(n, 0.0), delta(n, 0.0);
    std::vector<std::vector<std::int64_t>> pred(n);
    std::deque<std::int64_t> q{s};
    dist[s] = 0;
    sigma[s] = 1;
    while (!q.empty()) {
      const auto v = q.front();
      q.pop_front();
      order.push_back(v);
      for (auto w : out[v]) {
        if (dist[w] < 0) {
          dist[w] = dist[v] + 1;
          q.push_back(w);
        }
        if (dist[w] == dist[v] + 1) {
          sigma[w] += sigma[v];
          pred[w].push_back(v);
        }
      }
    }
    if (endpoints) bc[s] += double(order.size()) - 1;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const auto w = *it;
      for (auto v : pred[w]) delta[v] += sigma[v] / sigma[w] * (1 + delta[w]);
      if (w != s) bc[w] += delta[w] + (endpoints ? 1 : 0);
    }
  }
  const double N = double(endpoints ? n : n - 1);
  if (N < 2) return bc;
  const double K = sampled ? double(sources.size()) : N;
  const double c = directed ? 1 : 2;
  std::vector<char> src(n, 0);
  for (auto s : sources) src[s] = 1;
  for (std::size_t v = 0; v < n; ++v) {
    if (sampled && !endpoints && src[v]) {
      bc[v] *= normalized ? 1 / ((K - 1) * (N - 1)) : N / ((K - 1) * c);
    } else {
      bc[v] *= normalized ? 1 / (K * (N - 1)) : N / (K * c);
    }
  }
  return bc;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t v = 0; v < want.size(); ++v) {
    if (std::isnan(want[v])) {
      EXPECT_TRUE(std::isnan(got[v])) << "vertex " << v;
    } else {
      EXPECT_NEAR(got[v], want[v], tol) << "vertex " << v;
    }
  }
}

TEST(BetweennessNetworkx, ExactEndpointsAndSampledMatchNetworkx) {
  SPINDLE_REQUIRE_DATA();
  const auto files = nx_graphs_with("betweenness");
  ASSERT_GE(files.size(), 5u);
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    const auto g = nx_load(file);
    auto o = cpu();
    o.batch = 7;  // several batches, the last one partial
    EXPECT_LE(max_abs_vs_nx(betweenness_centrality(g.graph, o).centrality, g, "betweenness"), 1e-9);
    o.normalized = false;
    o.endpoints = true;
    o.directed = !nx_symmetric_mtx(file);
    // Unnormalized scores are path counts up to about 1e5: 1e-9 relative.
    EXPECT_LE(max_abs_vs_nx(betweenness_centrality(g.graph, o).centrality, g,
                            "betweenness_endpoints_raw"),
              1e-4);
    o = cpu();
    const auto chosen = nx_values(file, "betweenness_sampled_sources");
    for (std::size_t v = 0; v < g.names.size(); ++v) {
      if (chosen.at(g.names[v]) == "1") o.sources.push_back(static_cast<std::int64_t>(v));
    }
    ASSERT_EQ(o.sources.size(), 8u);
    EXPECT_LE(
        max_abs_vs_nx(betweenness_centrality(g.graph, o).centrality, g, "betweenness_sampled"),
        1e-9);
  }
}

TEST(Betweenness, MatchesBrandesOracleInEveryScalingMode) {
  for (Family f : kFamilies) {
    for (std::int64_t n : {2, 3, 30, 90}) {
      SCOPED_TRACE(std::string(family_name(f)) + " n=" + std::to_string(n));
      const auto g = random_graph<std::int32_t, double>(f, n, 13);
      const Edges e = to_edges(g);
      std::vector<std::int64_t> all(static_cast<std::size_t>(n));
      for (std::int64_t v = 0; v < n; ++v) all[static_cast<std::size_t>(v)] = v;
      for (int mode = 0; mode < 8; ++mode) {
        SCOPED_TRACE("mode " + std::to_string(mode));
        const bool normalized = mode & 1, endpoints = mode & 2, directed = mode & 4;
        auto o = cpu();
        o.normalized = normalized;
        o.endpoints = endpoints;
        o.directed = directed;
        o.batch = 4;
        expect_close(betweenness_centrality(g, o).centrality,
                     oracle(e, all, false, normalized, endpoints, directed), 1e-9);
        o.k = std::min<std::int64_t>(n - 1, 5);
        o.seed = 9;
        const auto r = betweenness_centrality(g, o);
        ASSERT_EQ(static_cast<std::int64_t>(r.sources.size()), o.k);
        expect_close(r.centrality, oracle(e, r.sources, true, normalized, endpoints, directed),
                     1e-9);
      }
    }
  }
}

TEST(Betweenness, PathGraphAndSampling) {
  // 0 - 1 - 2 undirected: only 1 is between (0, 2) and (2, 0).
  const auto path = graph_from_edges<std::int32_t, Pattern>(3, {{0, 1}, {1, 0}, {1, 2}, {2, 1}});
  auto o = cpu();
  o.normalized = false;
  EXPECT_EQ(betweenness_centrality(path, o).centrality, (std::vector<double>{0, 2, 0}));
  o.directed = false;
  EXPECT_EQ(betweenness_centrality(path, o).centrality, (std::vector<double>{0, 1, 0}));
  // Same seed, same sources; k = n is the exact computation.
  o = cpu();
  o.k = 2;
  o.seed = 5;
  EXPECT_EQ(betweenness_centrality(path, o).sources, betweenness_centrality(path, o).sources);
  o.k = 3;
  EXPECT_EQ(betweenness_centrality(path, o).centrality,
            betweenness_centrality(path, cpu()).centrality);
}

TEST(Betweenness, DegenerateGraphsAndRefusals) {
  EXPECT_TRUE(betweenness_centrality(graph_from_edges<std::int32_t, Pattern>(0, {}), cpu())
                  .centrality.empty());
  EXPECT_EQ(
      betweenness_centrality(graph_from_edges<std::int32_t, Pattern>(1, {}), cpu()).centrality,
      std::vector<double>{0});
  EXPECT_EQ(betweenness_centrality(graph_from_edges<std::int32_t, float>(4, {}), cpu()).centrality,
            (std::vector<double>{0, 0, 0, 0}));
  const auto g = graph_from_edges<std::int32_t, Pattern>(3, {{0, 1}, {1, 2}});
  auto o = cpu();
  o.k = 4;
  EXPECT_THROW(betweenness_centrality(g, o), InvalidArgument);
  o = cpu();
  o.sources = {1, 1};
  EXPECT_THROW(betweenness_centrality(g, o), InvalidArgument);
  o.sources = {3};
  EXPECT_THROW(betweenness_centrality(g, o), InvalidArgument);
  o = cpu();
  o.batch = -1;
  EXPECT_THROW(betweenness_centrality(g, o), InvalidArgument);
  o = cpu();
  o.cancel = [] { return true; };
  EXPECT_THROW(betweenness_centrality(g, o), Cancelled);
}

}  // namespace
}  // namespace spindle::test
