// SPDX-License-Identifier: Apache-2.0
// Weakly and strongly connected components: against networkx's partitions on the real graphs,
// against plain union-find / reachability oracles on random graphs, and on degenerate graphs.

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "alg_test_utils.hpp"
#include "nx_fixtures.hpp"
#include "spindle/algorithms/components.hpp"
#include "spindle/error.hpp"

namespace spindle::test {
namespace {

ComponentsOptions cpu() {
  ComponentsOptions o;
  o.device = Device::Cpu;
  return o;
}

// Union-find over both directions; labels = smallest id of the set.
std::vector<std::int64_t> weak_oracle(const Edges& g) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(g.n));
  std::iota(p.begin(), p.end(), 0);
  auto find = [&](std::int64_t x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
  };
  for (const auto& e : g.e) {
    const auto a = find(e.u), b = find(e.v);
    if (a != b) p[std::max(a, b)] = std::min(a, b);
  }
  for (std::int64_t v = 0; v < g.n; ++v) p[v] = find(v);
  return p;
}

// Reachability by DFS from every vertex; u ~ v when each reaches the other.
std::vector<std::int64_t> strong_oracle(const Edges& g) {
  const auto n = static_cast<std::size_t>(g.n);
  std::vector<std::vector<std::int64_t>> out(n);
  for (const auto& e : g.e) out[e.u].push_back(e.v);
  std::vector<std::vector<char>> reach(n, std::vector<char>(n, 0));
  for (std::size_t s = 0; s < n; ++s) {
    std::vector<std::int64_t> stack{static_cast<std::int64_t>(s)};
    reach[s][s] = 1;
    while (!stack.empty()) {
      const auto u = stack.back();
      stack.pop_back();
      for (auto v : out[u]) {
        if (!reach[s][v]) {
          reach[s][v] = 1;
          stack.push_back(v);
        }
      }
    }
  }
  std::vector<std::int64_t> label(n);
  for (std::size_t v = 0; v < n; ++v) {
    for (std::size_t u = 0; u <= v; ++u) {
      if (reach[u][v] && reach[v][u]) {
        label[v] = static_cast<std::int64_t>(u);
        break;
      }
    }
  }
  return label;
}

std::int64_t count_roots(const std::vector<std::int64_t>& label) {
  std::int64_t c = 0;
  for (std::size_t v = 0; v < label.size(); ++v) c += label[v] == std::int64_t(v) ? 1 : 0;
  return c;
}

void expect_matches_nx(const std::string& measure, bool strong) {
  const auto files = nx_graphs_with(measure);
  ASSERT_GE(files.size(), 5u) << measure;
  for (const auto& file : files) {
    SCOPED_TRACE(file + " " + measure);
    const auto g = nx_load(file);
    const auto want = nx_values(file, measure);
    const auto r = strong ? strongly_connected_components(g.graph, cpu())
                          : weakly_connected_components(g.graph, cpu());
    ASSERT_EQ(r.label.size(), want.size());
    std::int64_t mismatches = 0;
    for (std::size_t v = 0; v < g.names.size(); ++v) {
      // Both name a component by its vertex with the smallest internal id.
      mismatches += g.names[static_cast<std::size_t>(r.label[v])] != want.at(g.names[v]) ? 1 : 0;
    }
    EXPECT_EQ(mismatches, 0);
    EXPECT_EQ(r.count, count_roots(r.label));
  }
}

TEST(ComponentsNetworkx, WeakPartitionEqualsNetworkx) {
  SPINDLE_REQUIRE_DATA();
  expect_matches_nx("weakly_connected_components", false);
}

TEST(ComponentsNetworkx, StrongPartitionEqualsNetworkx) {
  SPINDLE_REQUIRE_DATA();
  expect_matches_nx("strongly_connected_components", true);
}

TEST(ComponentsNetworkx, UndirectedGraphsMatchConnectedComponents) {
  SPINDLE_REQUIRE_DATA();
  const auto files = nx_graphs_with("connected_components");
  ASSERT_GE(files.size(), 3u);
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    const auto g = nx_load(file);
    const auto want = nx_values(file, "connected_components");
    const auto weak = weakly_connected_components(g.graph, cpu());
    const auto strong = strongly_connected_components(g.graph, cpu());
    for (std::size_t v = 0; v < g.names.size(); ++v) {
      EXPECT_EQ(g.names[static_cast<std::size_t>(weak.label[v])], want.at(g.names[v]));
      // On a symmetric graph the strong components are the connected ones too.
      EXPECT_EQ(strong.label[v], weak.label[v]);
    }
  }
}

TEST(Components, MatchOraclesOnRandomGraphs) {
  for (Family f : kFamilies) {
    for (std::int64_t n : {1, 2, 7, 60, 150}) {
      for (std::uint64_t seed : {1u, 2u}) {
        SCOPED_TRACE(std::string(family_name(f)) + " n=" + std::to_string(n) +
                     " seed=" + std::to_string(seed));
        // Sparse variants too: a few edges leave many components.
        auto g = random_graph<std::int32_t, double>(f, n, seed);
        const Edges e = to_edges(g);
        EXPECT_EQ(weakly_connected_components(g, cpu()).label, weak_oracle(e));
        EXPECT_EQ(strongly_connected_components(g, cpu()).label, strong_oracle(e));
        std::vector<std::pair<int, int>> few;
        for (std::size_t k = 0; k < e.e.size(); k += 5) {
          few.emplace_back(static_cast<int>(e.e[k].u), static_cast<int>(e.e[k].v));
        }
        auto s = graph_from_edges<std::int64_t, Pattern>(n, few);
        const Edges es = to_edges(s);
        EXPECT_EQ(weakly_connected_components(s, cpu()).label, weak_oracle(es));
        EXPECT_EQ(strongly_connected_components(s, cpu()).label, strong_oracle(es));
      }
    }
  }
}

TEST(Components, ChainsCyclesAndNestedCycles) {
  // 0->1->2->0 (cycle), 2->3->4->3 (a 2-cycle reached from it), 5->5 self-loop, 6 isolated,
  // 9->8->7 chain (three singletons, weakly one component).
  const auto g = graph_from_edges<std::int32_t, Pattern>(
      10, {{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 4}, {4, 3}, {5, 5}, {9, 8}, {8, 7}});
  const auto s = strongly_connected_components(g, cpu());
  EXPECT_EQ(s.label, (std::vector<std::int64_t>{0, 0, 0, 3, 3, 5, 6, 7, 8, 9}));
  EXPECT_EQ(s.count, 7);
  const auto w = weakly_connected_components(g, cpu());
  EXPECT_EQ(w.label, (std::vector<std::int64_t>{0, 0, 0, 0, 0, 5, 6, 7, 7, 7}));
  EXPECT_EQ(w.count, 4);
}

TEST(Components, DegenerateGraphs) {
  const auto empty = graph_from_edges<std::int32_t, Pattern>(0, {});
  EXPECT_TRUE(weakly_connected_components(empty, cpu()).label.empty());
  EXPECT_EQ(strongly_connected_components(empty, cpu()).count, 0);
  const auto one = graph_from_edges<std::int32_t, Pattern>(1, {});
  EXPECT_EQ(weakly_connected_components(one, cpu()).label, std::vector<std::int64_t>{0});
  EXPECT_EQ(strongly_connected_components(one, cpu()).label, std::vector<std::int64_t>{0});
  const auto isolated = graph_from_edges<std::int32_t, float>(4, {});
  EXPECT_EQ(weakly_connected_components(isolated, cpu()).count, 4);
  EXPECT_EQ(strongly_connected_components(isolated, cpu()).label,
            (std::vector<std::int64_t>{0, 1, 2, 3}));
}

TEST(Components, RefusesNonSquareAndHonoursCancel) {
  Coo<std::int32_t> coo;
  coo.rows = 2;
  coo.cols = 3;
  const auto rect = build_graph<std::int32_t, Pattern>(std::move(coo));
  EXPECT_THROW(weakly_connected_components(rect, cpu()), InvalidArgument);
  EXPECT_THROW(strongly_connected_components(rect, cpu()), InvalidArgument);
  const auto g = random_graph<std::int32_t, Pattern>(Family::Uniform, 50, 3);
  ComponentsOptions o = cpu();
  o.cancel = [] { return true; };
  EXPECT_THROW(weakly_connected_components(g, o), Cancelled);
  EXPECT_THROW(strongly_connected_components(g, o), Cancelled);
}

}  // namespace
}  // namespace spindle::test
