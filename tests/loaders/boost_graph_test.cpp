// SPDX-License-Identifier: Apache-2.0
// Boost.Graph adapter, both ways: adjacency_list (directed, undirected, with and without
// weights) and compressed_sparse_row_graph -> Graph, and Graph -> compressed_sparse_row_graph.
#include <gtest/gtest.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "spindle/loaders/boost_graph.hpp"
#include "spindle/loaders/generate.hpp"

namespace {

using namespace spindle;

struct Edge {
  int s, t;
  double w;
};

// Random multigraph edges with a self-loop, an isolated vertex (n-1) and a heavy vertex 0.
std::vector<Edge> random_edges(int n, int m, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Edge> e;
  for (int k = 0; k < m; ++k) {
    const int s = k % 5 == 0 ? 0 : static_cast<int>(rng() % (n - 1));
    const int t = static_cast<int>(rng() % (n - 1));
    e.push_back({s, t, static_cast<double>(rng() % 1000) / 8.0});
  }
  e.push_back({2, 2, 1.25});
  return e;
}

// Oracle: dense map with duplicates summed; undirected adds the reverse of non-loops.
std::map<std::pair<int, int>, double> oracle(const std::vector<Edge>& edges, bool undirected) {
  std::map<std::pair<int, int>, double> m;
  for (const Edge& e : edges) {
    m[{e.s, e.t}] += e.w;
    if (undirected && e.s != e.t) m[{e.t, e.s}] += e.w;
  }
  return m;
}

template <class I, class V>
void expect_equal(const Graph<I, V>& g, const std::map<std::pair<int, int>, double>& m, int n) {
  ASSERT_EQ(g.rows(), n);
  ASSERT_EQ(static_cast<std::size_t>(g.nnz()), m.size());
  auto it = m.begin();
  for (I i = 0; i < g.rows(); ++i) {
    for (I k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k, ++it) {
      EXPECT_EQ(it->first.first, i);
      EXPECT_EQ(it->first.second, g.col_idx()[k]);
      if constexpr (!is_pattern_v<V>) {
        EXPECT_DOUBLE_EQ(g.values()[k], it->second);
      }
    }
  }
}

struct W {
  double weight;
};

template <class Dir>
using AdjList = boost::adjacency_list<boost::vecS, boost::vecS, Dir, boost::no_property, W>;

TEST(BoostGraph, DirectedAdjacencyListWithWeightsMatchesOracle) {
  const int n = 40;
  const auto edges = random_edges(n, 300, 1);
  AdjList<boost::directedS> g(n);
  for (const Edge& e : edges) boost::add_edge(e.s, e.t, W{e.w}, g);
  const auto a = from_boost_graph<std::int32_t, double>(g, boost::get(&W::weight, g));
  expect_equal(a, oracle(edges, false), n);
  const auto p = from_boost_graph<std::int64_t, Pattern>(g);
  expect_equal(p, oracle(edges, false), n);
}

TEST(BoostGraph, UndirectedAdjacencyListGivesBothDirections) {
  const int n = 33;
  const auto edges = random_edges(n, 200, 2);
  AdjList<boost::undirectedS> g(n);
  for (const Edge& e : edges) boost::add_edge(e.s, e.t, W{e.w}, g);
  const auto a = from_boost_graph<std::int32_t, double>(g, boost::get(&W::weight, g));
  expect_equal(a, oracle(edges, true), n);
  // Symmetric in structure and values.
  EXPECT_EQ(a.transpose().col_idx(), a.col_idx());
  EXPECT_EQ(a.transpose().values(), a.values());
}

TEST(BoostGraph, UnweightedGraphGetsUnitValuesAndWeightedParallelEdgesSum) {
  boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, boost::no_property, W> g(
      3);
  boost::add_edge(0, 1, W{0.5}, g);
  boost::add_edge(0, 1, W{2.0}, g);  // parallel edge
  boost::add_edge(2, 0, W{4.0}, g);
  // Without a weight map every stored entry is 1 (parallel edges collapse, as for pattern input).
  const auto a = from_boost_graph<std::int32_t, float>(g);
  ASSERT_EQ(a.nnz(), 2);
  EXPECT_EQ(a.values(), (std::vector<float>{1.0f, 1.0f}));
  // With weights, parallel edges follow the duplicate policy: summed by default.
  const auto w = from_boost_graph<std::int32_t, float>(g, boost::get(&W::weight, g));
  EXPECT_EQ(w.values(), (std::vector<float>{2.5f, 4.0f}));
  BuildOptions keep_first;
  keep_first.duplicates = DuplicatePolicy::KeepFirst;
  EXPECT_EQ(
      (from_boost_graph<std::int32_t, float>(g, boost::get(&W::weight, g), keep_first).values()),
      (std::vector<float>{0.5f, 4.0f}));
}

TEST(BoostGraph, CsrRoundTripPreservesEdgesAndWeights) {
  BuildOptions opts;
  Coo<std::int32_t> coo = generate_rmat<std::int32_t>(9, 8, 3);
  std::mt19937 rng(4);
  for (std::int64_t k = 0; k < coo.size(); ++k)
    coo.val.push_back(static_cast<double>(rng() % 100) - 50.0);
  const auto g = build_graph<std::int32_t, double>(coo, opts);
  const auto b = to_boost_csr(g);
  ASSERT_EQ(boost::num_vertices(b), static_cast<std::size_t>(g.rows()));
  ASSERT_EQ(boost::num_edges(b), static_cast<std::size_t>(g.nnz()));
  // Independent check through Boost's own API: out_edges of every vertex, in order.
  for (std::int32_t i = 0; i < g.rows(); ++i) {
    std::int32_t k = g.row_ptr()[i];
    for (auto [it, end] = boost::out_edges(static_cast<std::size_t>(i), b); it != end; ++it, ++k) {
      EXPECT_EQ(boost::target(*it, b), static_cast<std::size_t>(g.col_idx()[k]));
      EXPECT_EQ(b[*it].weight, g.values()[k]);
    }
    EXPECT_EQ(k, g.row_ptr()[i + 1]);
  }
  const auto back =
      from_boost_graph<std::int32_t, double>(b, boost::get(&BoostEdgeWeight<double>::weight, b));
  EXPECT_EQ(back.row_ptr(), g.row_ptr());
  EXPECT_EQ(back.col_idx(), g.col_idx());
  EXPECT_EQ(back.values(), g.values());
}

TEST(BoostGraph, PatternAndEmptyGraphsRoundTrip) {
  const auto g = make_default_graph<std::int64_t, Pattern>();
  const auto b = to_boost_csr(g);
  const auto back = from_boost_graph<std::int64_t, Pattern>(b);
  EXPECT_EQ(back.row_ptr(), g.row_ptr());
  EXPECT_EQ(back.col_idx(), g.col_idx());
  const Graph<std::int32_t, float> empty;
  const auto eb = to_boost_csr(empty);
  EXPECT_EQ(boost::num_vertices(eb), 0u);
  EXPECT_EQ((from_boost_graph<std::int32_t, float>(eb).rows()), 0);
}

TEST(BoostGraph, RectangularGraphRefused) {
  Coo<std::int32_t> coo;
  coo.rows = 2;
  coo.cols = 3;
  coo.row = {0};
  coo.col = {2};
  const auto g = build_graph<std::int32_t, float>(coo);
  EXPECT_THROW(to_boost_csr(g), InvalidArgument);
}

}  // namespace
