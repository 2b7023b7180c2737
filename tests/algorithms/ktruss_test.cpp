// SPDX-License-Identifier: Apache-2.0
// k_truss(): against networkx.k_truss on the real graphs (tests/fixtures/networkx/*.k_truss_K.csv),
// against a one-edge-at-a-time peeling oracle on random graphs for every sparse mxm kernel and
// both index types, truss numbers against the oracle's trusses, and degenerate graphs and
// refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "alg_test_utils.hpp"
#include "nx_fixtures.hpp"
#include "spindle/algorithms/ktruss.hpp"
#include "spindle/error.hpp"
#include "spindle/executor.hpp"

namespace spindle::test {
namespace {

using EdgeSet = std::set<std::pair<std::int64_t, std::int64_t>>;  // {u, v} as (u, v), u < v

// The undirected simple graph of a graph's entries (either direction, self-loops dropped).
template <class I, class V>
EdgeSet undirected_edges(const Graph<I, V>& g) {
  EdgeSet e;
  for (std::int64_t i = 0; i < g.rows(); ++i) {
    for (auto p = g.row_ptr()[i]; p < g.row_ptr()[i + 1]; ++p) {
      const std::int64_t j = g.col_idx()[p];
      if (i != j) e.emplace(std::min(i, j), std::max(i, j));
    }
  }
  return e;
}

// The k-truss by removing one edge in fewer than k - 2 triangles at a time, with the triangles
// recounted from adjacency sets: nothing shared with the masked-product code.
EdgeSet oracle_truss(std::int64_t n, EdgeSet e, std::int64_t k) {
  std::vector<std::set<std::int64_t>> adj(static_cast<std::size_t>(n));
  for (auto [u, v] : e) {
    adj[u].insert(v);
    adj[v].insert(u);
  }
  for (bool removed = true; removed;) {
    removed = false;
    for (auto it = e.begin(); it != e.end(); ++it) {
      const auto [u, v] = *it;
      std::int64_t common = 0;
      for (auto w : adj[u]) common += adj[v].count(w);
      if (common < k - 2) {
        adj[u].erase(v);
        adj[v].erase(u);
        e.erase(it);
        removed = true;
        break;
      }
    }
  }
  return e;
}

template <class I>
EdgeSet truss_edges(const KTrussResult<I>& r) {
  EdgeSet e = undirected_edges(r.truss);
  EXPECT_EQ(static_cast<std::int64_t>(e.size()), r.edges);
  EXPECT_EQ(static_cast<std::int64_t>(2 * e.size()), static_cast<std::int64_t>(r.truss.nnz()))
      << "the truss is stored in both directions";
  return e;
}

std::vector<std::int64_t> endpoints(const EdgeSet& e) {
  std::set<std::int64_t> s;
  for (auto [u, v] : e) {
    s.insert(u);
    s.insert(v);
  }
  return {s.begin(), s.end()};
}

template <class I>
std::vector<std::int64_t> as_int64(const std::vector<I>& v) {
  return {v.begin(), v.end()};
}

KTrussOptions cpu(SpgemmKernel kernel = SpgemmKernel::Auto, bool numbers = false) {
  KTrussOptions o;
  o.device = Device::Cpu;
  o.kernel = kernel;
  o.truss_numbers = numbers;
  return o;
}

constexpr SpgemmKernel kKernels[] = {SpgemmKernel::Auto, SpgemmKernel::GustavsonDense,
                                     SpgemmKernel::GustavsonHash, SpgemmKernel::MaskedGustavson,
                                     SpgemmKernel::MaskedDot};

// The k-truss for k = 2 .. (one past the largest non-empty), every kernel, and the truss numbers
// against the oracle's trusses. Returns the largest k with a non-empty truss.
template <class I, class V>
std::int64_t expect_oracle(const Graph<I, V>& g) {
  const std::int64_t n = g.rows();
  const EdgeSet all = undirected_edges(g);
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> number;
  for (const auto& e : all) number[e] = 2;
  std::int64_t largest = all.empty() ? 0 : 2;
  for (std::int64_t k = 2;; ++k) {
    SCOPED_TRACE("k=" + std::to_string(k));
    const EdgeSet want = oracle_truss(n, all, k);
    for (const SpgemmKernel kernel : kKernels) {
      SCOPED_TRACE(to_string(kernel));
      const KTrussResult<I> r = k_truss(g, k, cpu(kernel));
      EXPECT_EQ(truss_edges(r), want);
      EXPECT_EQ(as_int64(r.vertices), endpoints(want));
      EXPECT_EQ(r.input_edges, static_cast<std::int64_t>(all.size()));
      EXPECT_EQ(r.truss.rows(), n);
    }
    if (want.empty()) break;
    largest = k;
    for (const auto& e : want) number[e] = k;
  }
  const KTrussResult<I> r = k_truss(g, 3, cpu(SpgemmKernel::Auto, true));
  EXPECT_EQ(truss_edges(r), oracle_truss(n, all, 3));
  EXPECT_EQ(r.max_truss, largest);
  EXPECT_EQ(undirected_edges(r.truss_numbers), all);
  for (std::int64_t i = 0; i < n; ++i) {
    for (auto p = r.truss_numbers.row_ptr()[i]; p < r.truss_numbers.row_ptr()[i + 1]; ++p) {
      const std::int64_t j = r.truss_numbers.col_idx()[p];
      EXPECT_EQ(r.truss_numbers.values()[p], number.at({std::min(i, j), std::max(i, j)}))
          << i << " " << j;
    }
  }
  return largest;
}

// Cliques of 3 to 8 vertices overlapping on a few vertices, chords between them, random edges
// and a hub: trusses several levels deep.
Graph<std::int32_t, Pattern> cliques_graph(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<int, int>> e;
  for (int c = 0; c < n / 6; ++c) {
    const int size = 3 + static_cast<int>(rng() % 6);
    std::vector<int> members;
    for (int m = 0; m < size; ++m) members.push_back(static_cast<int>(rng() % n));
    for (int a : members) {
      for (int b : members) {
        if (a < b || rng() % 13 == 0) e.emplace_back(a, b);  // some both ways, a few loops
      }
    }
  }
  for (int t = 0; t < 2 * n; ++t) {
    e.emplace_back(static_cast<int>(rng() % n), static_cast<int>(rng() % n));
  }
  for (int v = 0; v < n; v += 3) e.emplace_back(0, v);
  return graph_from_edges<std::int32_t, Pattern>(n, e);
}

TEST(KTruss, MatchesPeelingOracleOnRandomGraphs) {
  for (Family f : kFamilies) {
    for (std::int64_t n : {1, 2, 9, 60, 150}) {
      SCOPED_TRACE(std::string(family_name(f)) + " n=" + std::to_string(n));
      expect_oracle(random_graph<std::int32_t, float>(f, n, 17));
      expect_oracle(random_graph<std::int64_t, Pattern>(f, n, 18));
    }
  }
}

TEST(KTruss, MatchesPeelingOracleOnOverlappingCliques) {
  std::int64_t deepest = 0;
  for (int n : {12, 40, 120}) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " seed=" + std::to_string(seed));
      const auto g = cliques_graph(n, seed);
      deepest = std::max(deepest, expect_oracle(g));
      expect_oracle(g.with_values<double>());
    }
  }
  EXPECT_GE(deepest, 6);  // the graphs reach deep enough to exercise several peeling levels
}

TEST(KTruss, CompleteGraphIsItsOwnTrussUpToItsSize) {
  // K5: every edge in 3 triangles, so the 5-truss (and no 6-truss).
  std::vector<std::pair<int, int>> k5;
  for (int a = 0; a < 5; ++a) {
    for (int b = a + 1; b < 5; ++b) k5.emplace_back(a, b);
  }
  const auto g = graph_from_edges<std::int32_t, Pattern>(6, k5);  // vertex 5 isolated
  for (std::int64_t k : {2, 3, 4, 5}) {
    const auto r = k_truss(g, k, cpu());
    EXPECT_EQ(r.edges, 10) << k;
    EXPECT_EQ(as_int64(r.vertices), (std::vector<std::int64_t>{0, 1, 2, 3, 4})) << k;
  }
  const auto none = k_truss(g, 6, cpu());
  EXPECT_EQ(none.edges, 0);
  EXPECT_TRUE(none.vertices.empty());
  EXPECT_EQ(none.truss.rows(), 6);
  EXPECT_EQ(none.truss.nnz(), 0);
  const auto numbers = k_truss(g, 4, cpu(SpgemmKernel::Auto, true));
  EXPECT_EQ(numbers.max_truss, 5);
  EXPECT_EQ(numbers.edges, 10);
  for (double x : numbers.truss_numbers.values()) EXPECT_EQ(x, 5.0);
}

TEST(KTruss, DirectionsDuplicatesAndSelfLoopsAreIgnored) {
  // A triangle 0-1-2 given with mixed directions, one reciprocal pair and self-loops; a pendant
  // edge 2-3; vertex 4 has only a self-loop. networkx would refuse the self-loops (and a
  // directed graph); here they are the undirected simple graph's, as triangles() sees them.
  const std::vector<std::pair<int, int>> e = {{0, 1}, {2, 1}, {0, 2}, {2, 0},
                                              {1, 1}, {3, 2}, {4, 4}};
  const auto g = graph_from_edges<std::int32_t, double>(5, e);
  const auto r3 = k_truss(g, 3, cpu());
  EXPECT_EQ(truss_edges(r3), (EdgeSet{{0, 1}, {0, 2}, {1, 2}}));
  EXPECT_EQ(as_int64(r3.vertices), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(r3.input_edges, 4);
  const auto r2 = k_truss(g, 2, cpu());
  EXPECT_EQ(truss_edges(r2), (EdgeSet{{0, 1}, {0, 2}, {1, 2}, {2, 3}}));
  EXPECT_EQ(as_int64(r2.vertices), (std::vector<std::int64_t>{0, 1, 2, 3}));  // not 4
  EXPECT_EQ(r2.rounds, 0);  // k = 2 keeps every edge without counting
}

TEST(KTruss, GraphsWithoutTrianglesOrEdges) {
  // A star and a path: no triangle, so only the 2-truss is not empty.
  const auto star = graph_from_edges<std::int64_t, Pattern>(5, {{0, 1}, {0, 2}, {0, 3}, {4, 0}});
  EXPECT_EQ(k_truss(star, 2, cpu()).edges, 4);
  const auto r = k_truss(star, 3, cpu());
  EXPECT_EQ(r.edges, 0);
  EXPECT_TRUE(r.vertices.empty());
  EXPECT_EQ(r.rounds, 1);
  const auto numbers = k_truss(star, 3, cpu(SpgemmKernel::Auto, true));
  EXPECT_EQ(numbers.max_truss, 2);
  EXPECT_EQ(numbers.truss_numbers.values(), std::vector<double>(8, 2.0));
  // No vertices; vertices without edges.
  for (std::int64_t n : {0, 4}) {
    const auto empty = graph_from_edges<std::int32_t, Pattern>(n, {});
    for (std::int64_t k : {2, 3, 7}) {
      const auto e = k_truss(empty, k, cpu(SpgemmKernel::Auto, true));
      EXPECT_EQ(e.edges, 0);
      EXPECT_EQ(e.truss.rows(), n);
      EXPECT_TRUE(e.vertices.empty());
      EXPECT_EQ(e.rounds, 0);
      EXPECT_EQ(e.max_truss, 0);
      EXPECT_EQ(e.truss_numbers.rows(), n);
    }
  }
  EXPECT_EQ(k_truss(Graph<std::int32_t, float>(), 3).edges, 0);
}

TEST(KTruss, RefusesWhatItCannotAnswer) {
  const auto tri = graph_from_edges<std::int32_t, Pattern>(3, {{0, 1}, {1, 2}, {2, 0}});
  for (std::int64_t k : {1, 0, -3}) {
    try {
      k_truss(tri, k, cpu());
      ADD_FAILURE() << "k = " << k << " accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("at least 2"), std::string::npos) << e.what();
    }
  }
  const Graph<std::int32_t, Pattern> rect(2, 3, {0, 1, 1}, {2});
  EXPECT_THROW(k_truss(rect, 3, cpu()), InvalidArgument);
  KTrussOptions o = cpu();
  if (!cuda_available()) {
    o.device = Device::Cuda;  // asked for, without a device
    EXPECT_THROW(k_truss(tri, 3, o), Unsupported);
  }
  // Cancelled before the first support count, and before a later one.
  int calls = 0;
  o = cpu();
  o.cancel = [&calls] { return ++calls >= 1; };
  EXPECT_THROW(k_truss(tri, 3, o), Cancelled);
  EXPECT_EQ(calls, 1);
  const auto g = cliques_graph(120, 1);
  const auto plain = k_truss(g, 4, cpu());
  ASSERT_GE(plain.rounds, 2);
  calls = 0;
  o.cancel = [&calls] { return ++calls >= 2; };
  EXPECT_THROW(k_truss(g, 4, o), Cancelled);
  EXPECT_EQ(calls, 2);
  // A hook that never fires is called once per support count and changes nothing.
  calls = 0;
  o.cancel = [&calls] { return ++calls > 1000000; };
  const auto hooked = k_truss(g, 4, o);
  EXPECT_EQ(calls, hooked.rounds);
  EXPECT_EQ(truss_edges(hooked), truss_edges(plain));
}

// networkx's k-truss edges, "u,v" by vertex name, of every fixture k_truss_K.
struct NxTruss {
  std::string file;  // data file
  std::int64_t k = 0;
  EdgeSet edges;     // by internal id, filled once the graph is loaded
  std::string path;  // the fixture
};

std::vector<NxTruss> nx_trusses() {
  namespace fs = std::filesystem;
  std::vector<NxTruss> out;
  const std::string dir = fixture_path("networkx");
  if (!fs::is_directory(dir)) return out;
  const std::string tag = ".k_truss_";
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const auto at = name.find(tag);
    if (at == std::string::npos || entry.path().extension() != ".csv") continue;
    NxTruss t;
    t.k = std::stoll(name.substr(at + tag.size()));
    t.path = entry.path().string();
    for (const char* ext : {".mtx", ".txt", ".csv"}) {
      if (t.file.empty() && fs::exists(graph_path(name.substr(0, at) + ext))) {
        t.file = name.substr(0, at) + ext;
      }
    }
    out.push_back(t);
  }
  std::sort(out.begin(), out.end(),
            [](const NxTruss& a, const NxTruss& b) { return a.path < b.path; });
  return out;
}

TEST(KTrussNetworkx, EdgesAndVerticesEqualNetworkx) {
  SPINDLE_REQUIRE_DATA();
  const auto fixtures = nx_trusses();
  std::set<std::string> graphs;
  std::int64_t nonempty = 0;
  for (const NxTruss& f : fixtures) {
    SCOPED_TRACE(f.path);
    ASSERT_FALSE(f.file.empty()) << "no data file for the fixture";
    const auto g = nx_load(f.file);
    std::map<std::string, std::int64_t> id;
    for (std::size_t v = 0; v < g.names.size(); ++v) id[g.names[v]] = static_cast<std::int64_t>(v);
    EdgeSet want;
    std::ifstream in(f.path);
    std::string line;
    std::getline(in, line);
    ASSERT_EQ(line, "u,v");
    while (std::getline(in, line)) {
      const auto comma = line.find(',');
      ASSERT_NE(comma, std::string::npos) << line;
      const std::int64_t u = id.at(line.substr(0, comma));
      const std::int64_t v = id.at(line.substr(comma + 1));
      want.emplace(std::min(u, v), std::max(u, v));
    }
    const auto r = k_truss(g.graph, f.k, cpu());
    EXPECT_EQ(truss_edges(r), want);
    EXPECT_EQ(as_int64(r.vertices), endpoints(want));  // networkx drops the isolated vertices
    // Truss numbers agree: an edge is in the k-truss exactly when its number is at least k.
    const auto numbers = k_truss(g.graph, f.k, cpu(SpgemmKernel::Auto, true));
    EXPECT_EQ(truss_edges(numbers), want);
    EdgeSet at_least_k;
    for (std::int64_t i = 0; i < numbers.truss_numbers.rows(); ++i) {
      for (auto p = numbers.truss_numbers.row_ptr()[i]; p < numbers.truss_numbers.row_ptr()[i + 1];
           ++p) {
        const std::int64_t j = numbers.truss_numbers.col_idx()[p];
        if (i < j && numbers.truss_numbers.values()[p] >= static_cast<double>(f.k)) {
          at_least_k.emplace(i, j);
        }
      }
    }
    EXPECT_EQ(at_least_k, want);
    graphs.insert(f.file);
    nonempty += want.empty() ? 0 : 1;
  }
  EXPECT_GE(graphs.size(), 10u);
  EXPECT_GE(nonempty, 30);
}

}  // namespace
}  // namespace spindle::test
