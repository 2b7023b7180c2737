// SPDX-License-Identifier: Apache-2.0
// HITS and Katz centrality: against networkx on the real graphs (to 1e-9 in double), against a
// plain dense replay of networkx's iterations on random graphs, and on degenerate graphs.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "alg_test_utils.hpp"
#include "nx_fixtures.hpp"
#include "spindle/algorithms/hits.hpp"
#include "spindle/algorithms/katz.hpp"
#include "spindle/error.hpp"

namespace spindle::test {
namespace {

template <class T>
double max_abs_vs_nx(const Vector<T>& got, const DataGraph<Pattern>& g,
                     const std::string& measure) {
  const auto want = nx_values(g.file, measure);
  EXPECT_EQ(static_cast<std::size_t>(got.size()), want.size());
  double worst = 0.0;
  for (std::size_t v = 0; v < g.names.size(); ++v) {
    worst =
        std::max(worst, std::fabs(double(got[std::int64_t(v)]) - std::stod(want.at(g.names[v]))));
  }
  return worst;
}

// networkx's reference HITS iteration, with plain loops over the edge list.
void oracle_hits(const Edges& g, std::vector<double>& h, std::vector<double>& a, int max_iter,
                 double tol) {
  const auto n = static_cast<std::size_t>(g.n);
  h.assign(n, 1.0 / double(n));
  for (int it = 0; it < max_iter; ++it) {
    std::vector<double> hn(n, 0.0);
    a.assign(n, 0.0);
    for (const auto& e : g.e) a[e.v] += h[e.u] * e.w;
    for (const auto& e : g.e) hn[e.u] += a[e.v] * e.w;
    double mh = 0, ma = 0;
    for (std::size_t v = 0; v < n; ++v) mh = std::max(mh, hn[v]), ma = std::max(ma, a[v]);
    double err = 0;
    for (std::size_t v = 0; v < n; ++v) {
      hn[v] *= 1.0 / mh;
      a[v] *= 1.0 / ma;
      err += std::fabs(hn[v] - h[v]);
    }
    h = hn;
    if (err < tol) break;
  }
  double sh = 0, sa = 0;
  for (std::size_t v = 0; v < n; ++v) sh += h[v], sa += a[v];
  for (std::size_t v = 0; v < n; ++v) h[v] *= 1.0 / sh, a[v] *= 1.0 / sa;
}

std::vector<double> oracle_katz(const Edges& g, double alpha, double beta, double tol) {
  const auto n = static_cast<std::size_t>(g.n);
  std::vector<double> x(n, 0.0);
  for (int it = 0; it < 1000; ++it) {
    std::vector<double> y(n, 0.0);
    for (const auto& e : g.e) y[e.v] += x[e.u] * e.w;
    double err = 0;
    for (std::size_t v = 0; v < n; ++v) {
      y[v] = alpha * y[v] + beta;
      err += std::fabs(y[v] - x[v]);
    }
    x = y;
    if (err < double(n) * tol) break;
  }
  double s = 0;
  for (double v : x) s += v * v;
  for (double& v : x) v /= std::sqrt(s);
  return x;
}

TEST(HitsNetworkx, HubsAndAuthoritiesMatchNetworkxTo1e9) {
  SPINDLE_REQUIRE_DATA();
  const auto files = nx_graphs_with("hits_hubs");
  ASSERT_GE(files.size(), 5u);
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    const auto g = nx_load(file);
    HitsOptions o;
    o.device = Device::Cpu;
    // networkx's max_iter bounds ARPACK's restarts; power iterations on a graph with a small
    // singular gap (1138_bus, ldbc-directed-example) need more than 100 of them.
    o.max_iter = 100000;
    const auto r = hits<double>(g.graph, o);
    EXPECT_TRUE(r.converged);
    EXPECT_LE(max_abs_vs_nx(r.hubs, g, "hits_hubs"), 1e-9);
    EXPECT_LE(max_abs_vs_nx(r.authorities, g, "hits_authorities"), 1e-9);
  }
}

TEST(Hits, MatchesNetworkxIterationOnRandomGraphs) {
  for (Family f : kFamilies) {
    for (std::int64_t n : {3, 40, 150}) {
      SCOPED_TRACE(std::string(family_name(f)) + " n=" + std::to_string(n));
      const auto g = random_graph<std::int32_t, double>(f, n, 11);
      HitsOptions o;
      o.device = Device::Cpu;
      o.weighted = true;
      o.max_iter = 1000;
      const auto r = hits<double>(g, o);
      std::vector<double> h, a;
      oracle_hits(to_edges(g), h, a, 1000, o.tol);
      EXPECT_LE(l1(r.hubs, h), 1e-12);
      EXPECT_LE(l1(r.authorities, a), 1e-12);
      // float: within the iteration's own accuracy.
      EXPECT_LE(l1(hits<float>(g, o).hubs, h), 1e-4);
    }
  }
}

TEST(Hits, DegenerateGraphsAndOptions) {
  HitsOptions o;
  o.device = Device::Cpu;
  EXPECT_EQ(hits<double>(graph_from_edges<std::int32_t, Pattern>(0, {}), o).hubs.size(), 0);
  const auto none = hits<double>(graph_from_edges<std::int32_t, Pattern>(3, {}), o);
  EXPECT_TRUE(none.converged);
  EXPECT_DOUBLE_EQ(none.authorities[2], 1.0 / 3.0);
  // A star 0 -> 1, 0 -> 2 and an isolated 3: all hub weight on 0, authority split on 1 and 2.
  const auto star = graph_from_edges<std::int32_t, Pattern>(4, {{0, 1}, {0, 2}});
  const auto r = hits<double>(star, o);
  EXPECT_DOUBLE_EQ(r.hubs[0], 1.0);
  EXPECT_DOUBLE_EQ(r.authorities[1], 0.5);
  EXPECT_DOUBLE_EQ(r.authorities[3], 0.0);
  o.normalized = false;
  EXPECT_DOUBLE_EQ(hits<double>(star, o).authorities[2], 1.0);
  o.nstart = {1, 2};
  EXPECT_THROW(hits<double>(star, o), InvalidArgument);
  o.nstart = {0, 1, 0, 0};  // no weight on a vertex with out-edges
  EXPECT_THROW(hits<double>(star, o), InvalidArgument);
  o.nstart = {3, 1, 1, 1};
  EXPECT_TRUE(hits<double>(star, o).converged);
  o.nstart.clear();
  o.max_iter = 0;
  EXPECT_THROW(hits<double>(star, o), InvalidArgument);
  o.max_iter = 100;
  o.cancel = [] { return true; };
  EXPECT_THROW(hits<double>(star, o), Cancelled);
}

TEST(KatzNetworkx, CentralityMatchesNetworkxTo1e9) {
  SPINDLE_REQUIRE_DATA();
  std::size_t graphs = 0;
  for (const auto& [measure, alpha] : {std::pair{"katz", 0.1}, std::pair{"katz_small", 0.005}}) {
    for (const auto& file : nx_graphs_with(measure)) {
      SCOPED_TRACE(file + " " + measure);
      const auto g = nx_load(file);
      KatzOptions o;
      o.device = Device::Cpu;
      o.alpha = alpha;
      const auto r = katz_centrality<double>(g.graph, o);
      EXPECT_TRUE(r.converged);
      EXPECT_LE(max_abs_vs_nx(r.centrality, g, measure), 1e-9);
      ++graphs;
    }
  }
  EXPECT_GE(graphs, 8u);
}

TEST(KatzNetworkx, AlphaAboveTheInverseSpectralRadiusDoesNotConverge) {
  SPINDLE_REQUIRE_DATA();
  // networkx raises PowerIterationFailedConvergence on polbooks with alpha = 0.1 (the script
  // falls back to katz_small there).
  const auto g = nx_load("cugraph_polbooks.mtx");
  KatzOptions o;
  o.device = Device::Cpu;
  const auto r = katz_centrality<double>(g.graph, o);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 1000);
}

TEST(Katz, AnOverflowingIterationStopsUnconvergedAtOnce) {
  const auto cycle = graph_from_edges<std::int32_t, Pattern>(2, {{0, 1}, {1, 0}});
  KatzOptions o;
  o.device = Device::Cpu;
  o.alpha = 1e300;
  const auto r = katz_centrality<double>(cycle, o);
  EXPECT_FALSE(r.converged);
  EXPECT_LT(r.iterations, 10);
}

TEST(Katz, MatchesNetworkxIterationOnRandomGraphs) {
  for (Family f : kFamilies) {
    for (std::int64_t n : {1, 5, 60, 150}) {
      SCOPED_TRACE(std::string(family_name(f)) + " n=" + std::to_string(n));
      const auto g = random_graph<std::int64_t, float>(f, n, 5, 0.1, 0.3);
      KatzOptions o;
      o.device = Device::Cpu;
      o.alpha = 0.05;
      o.beta = 0.7;
      o.weighted = true;
      const auto r = katz_centrality<double>(g, o);
      ASSERT_TRUE(r.converged);
      EXPECT_LE(l1(r.centrality, oracle_katz(to_edges(g), 0.05, 0.7, o.tol)), 1e-12);
    }
  }
}

TEST(Katz, PerVertexBetaNstartAndDegenerateGraphs) {
  KatzOptions o;
  o.device = Device::Cpu;
  EXPECT_EQ(
      katz_centrality<double>(graph_from_edges<std::int32_t, Pattern>(0, {}), o).centrality.size(),
      0);
  // No edges: x = beta, normalized.
  const auto iso = graph_from_edges<std::int32_t, Pattern>(4, {});
  EXPECT_DOUBLE_EQ(katz_centrality<double>(iso, o).centrality[1], 0.5);
  o.beta_per_vertex = {3, 0, 0, 4};
  const auto r = katz_centrality<double>(iso, o);
  EXPECT_DOUBLE_EQ(r.centrality[0], 0.6);
  EXPECT_DOUBLE_EQ(r.centrality[3], 0.8);
  o.normalized = false;
  EXPECT_DOUBLE_EQ(katz_centrality<double>(iso, o).centrality[3], 4.0);
  // beta = 0 everywhere: the zero vector stays zero (networkx's ZeroDivisionError rule).
  o.beta_per_vertex = {0, 0, 0, 0};
  o.normalized = true;
  EXPECT_DOUBLE_EQ(katz_centrality<double>(iso, o).centrality[0], 0.0);
  o.beta_per_vertex = {1, 2};
  EXPECT_THROW(katz_centrality<double>(iso, o), InvalidArgument);
  o.beta_per_vertex.clear();
  o.nstart = {1, 1, 1, 1};
  EXPECT_TRUE(katz_centrality<double>(iso, o).converged);
  o.max_iter = 0;
  EXPECT_FALSE(katz_centrality<double>(iso, o).converged);
  o.max_iter = 10;
  o.cancel = [] { return true; };
  EXPECT_THROW(katz_centrality<double>(iso, o), Cancelled);
}

}  // namespace
}  // namespace spindle::test
