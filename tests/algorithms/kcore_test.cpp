// SPDX-License-Identifier: Apache-2.0
// Core numbers: against networkx.core_number on the real graphs, against a plain one-vertex-at-a-
// time peeling on random graphs (undirected and directed), and on degenerate graphs.

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "alg_test_utils.hpp"
#include "nx_fixtures.hpp"
#include "spindle/algorithms/kcore.hpp"
#include "spindle/error.hpp"

namespace spindle::test {
namespace {

KCoreOptions cpu(bool directed) {
  KCoreOptions o;
  o.device = Device::Cpu;
  o.directed = directed;
  return o;
}

// Removes a vertex of smallest current degree one at a time (degree: out + in, both counted
// for a two-way neighbor; undirected graphs are stored both ways and use out-degree only).
std::vector<std::int64_t> oracle(const Edges& g, bool directed) {
  const auto n = static_cast<std::size_t>(g.n);
  std::vector<std::vector<std::int64_t>> nb(n);
  for (const auto& e : g.e) {
    nb[e.u].push_back(e.v);
    if (directed) nb[e.v].push_back(e.u);
  }
  std::vector<std::int64_t> deg(n), core(n, 0);
  for (std::size_t v = 0; v < n; ++v) deg[v] = static_cast<std::int64_t>(nb[v].size());
  std::vector<char> gone(n, 0);
  std::int64_t k = 0;
  for (std::size_t step = 0; step < n; ++step) {
    std::size_t best = n;
    for (std::size_t v = 0; v < n; ++v) {
      if (!gone[v] && (best == n || deg[v] < deg[best])) best = v;
    }
    k = std::max(k, deg[best]);
    core[best] = k;
    gone[best] = 1;
    for (auto u : nb[best]) {
      if (!gone[u]) --deg[u];
    }
  }
  return core;
}

TEST(KCoreNetworkx, CoreNumbersEqualNetworkx) {
  SPINDLE_REQUIRE_DATA();
  const auto files = nx_graphs_with("core_number");
  ASSERT_GE(files.size(), 5u);
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    const auto g = nx_load(file);
    const auto want = nx_values(file, "core_number");
    const auto r = core_numbers(g.graph, cpu(!nx_symmetric_mtx(file)));
    ASSERT_EQ(r.core.size(), want.size());
    std::int64_t mismatches = 0, largest = 0;
    for (std::size_t v = 0; v < g.names.size(); ++v) {
      const std::int64_t w = std::stoll(want.at(g.names[v]));
      mismatches += r.core[v] != w ? 1 : 0;
      largest = std::max(largest, w);
    }
    EXPECT_EQ(mismatches, 0);
    EXPECT_EQ(r.max_core, largest);
  }
}

TEST(KCore, MatchesPeelingOracleOnRandomGraphs) {
  for (Family f : kFamilies) {
    for (std::int64_t n : {1, 2, 9, 80, 200}) {
      SCOPED_TRACE(std::string(family_name(f)) + " n=" + std::to_string(n));
      const Edges raw = to_edges(random_graph<std::int32_t, float>(f, n, 7));
      std::vector<std::pair<int, int>> directed, undirected;
      for (const auto& e : raw.e) {
        if (e.u == e.v) continue;
        directed.emplace_back(static_cast<int>(e.u), static_cast<int>(e.v));
        undirected.emplace_back(static_cast<int>(e.u), static_cast<int>(e.v));
        undirected.emplace_back(static_cast<int>(e.v), static_cast<int>(e.u));
      }
      const auto d = graph_from_edges<std::int32_t, Pattern>(n, directed);
      EXPECT_EQ(core_numbers(d, cpu(true)).core, oracle(to_edges(d), true));
      const auto u = graph_from_edges<std::int64_t, double>(n, undirected);
      EXPECT_EQ(core_numbers(u, cpu(false)).core, oracle(to_edges(u), false));
    }
  }
}

TEST(KCore, CliqueWithTailAndIsolatedVertices) {
  // K4 on 0..3, a tail 3-4-5, 6 isolated: cores 3,3,3,3,1,1,0.
  std::vector<std::pair<int, int>> e;
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      if (a != b) e.emplace_back(a, b);
    }
  }
  for (auto [a, b] : {std::pair{3, 4}, std::pair{4, 5}}) {
    e.emplace_back(a, b);
    e.emplace_back(b, a);
  }
  const auto g = graph_from_edges<std::int32_t, Pattern>(7, e);
  const auto r = core_numbers(g, cpu(false));
  EXPECT_EQ(r.core, (std::vector<std::int64_t>{3, 3, 3, 3, 1, 1, 0}));
  EXPECT_EQ(r.max_core, 3);
  // Directed mode counts each two-way neighbor twice: every core doubles.
  EXPECT_EQ(core_numbers(g, cpu(true)).core, (std::vector<std::int64_t>{6, 6, 6, 6, 2, 2, 0}));
}

TEST(KCore, DegenerateGraphsAndRefusals) {
  EXPECT_TRUE(
      core_numbers(graph_from_edges<std::int32_t, Pattern>(0, {}), cpu(false)).core.empty());
  EXPECT_EQ(core_numbers(graph_from_edges<std::int32_t, Pattern>(1, {}), cpu(false)).core,
            std::vector<std::int64_t>{0});
  EXPECT_EQ(core_numbers(graph_from_edges<std::int32_t, float>(3, {}), cpu(true)).max_core, 0);
  EXPECT_THROW(core_numbers(graph_from_edges<std::int32_t, Pattern>(2, {{0, 0}}), cpu(true)),
               InvalidArgument);
  EXPECT_THROW(core_numbers(graph_from_edges<std::int32_t, Pattern>(2, {{0, 1}}), cpu(false)),
               InvalidArgument);
  KCoreOptions o = cpu(true);
  o.cancel = [] { return true; };
  EXPECT_THROW(core_numbers(graph_from_edges<std::int32_t, Pattern>(2, {{0, 1}}), o), Cancelled);
}

}  // namespace
}  // namespace spindle::test
