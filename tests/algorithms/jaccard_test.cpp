// SPDX-License-Identifier: Apache-2.0
// Jaccard coefficients: against networkx.jaccard_coefficient on the real undirected graphs
// (every edge and random pairs), against set arithmetic on random graphs, and on degenerate
// inputs.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "alg_test_utils.hpp"
#include "nx_fixtures.hpp"
#include "spindle/algorithms/jaccard.hpp"
#include "spindle/error.hpp"

namespace spindle::test {
namespace {

JaccardOptions cpu(std::int64_t batch = 0) {
  JaccardOptions o;
  o.device = Device::Cpu;
  o.batch = batch;
  return o;
}

TEST(JaccardNetworkx, EdgesAndRandomPairsMatchNetworkx) {
  SPINDLE_REQUIRE_DATA();
  const auto files = nx_graphs_with("jaccard");
  ASSERT_GE(files.size(), 5u);
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    const auto g = nx_load(file);
    const auto want = nx_values(file, "jaccard");  // "u,v" -> value
    std::map<std::string, std::int64_t> id;
    for (std::size_t v = 0; v < g.names.size(); ++v) id[g.names[v]] = std::int64_t(v);
    std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
    std::vector<double> expect;
    for (const auto& [key, value] : want) {
      const auto comma = key.find(',');
      pairs.emplace_back(id.at(key.substr(0, comma)), id.at(key.substr(comma + 1)));
      expect.push_back(std::stod(value));
    }
    const auto got = jaccard_coefficient(g.graph, pairs, cpu(16));
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      worst = std::max(worst, std::fabs(got[i] - expect[i]));
    EXPECT_LE(worst, 1e-12);
    // edge_pairs lists every undirected edge once, as the script's edge list.
    std::size_t edges = 0;
    for (const auto& [u, v] : edge_pairs(g.graph)) edges += u < v ? 1 : 0;
    EXPECT_EQ(edges, edge_pairs(g.graph).size());
  }
}

TEST(Jaccard, MatchesSetArithmeticOnRandomGraphs) {
  for (Family f : kFamilies) {
    for (std::int64_t n : {1, 6, 70}) {
      SCOPED_TRACE(std::string(family_name(f)) + " n=" + std::to_string(n));
      const Edges raw = to_edges(random_graph<std::int32_t, float>(f, n, 3));
      std::vector<std::pair<int, int>> both;
      for (const auto& e : raw.e) {
        both.emplace_back(int(e.u), int(e.v));
        both.emplace_back(int(e.v), int(e.u));
      }
      const auto g = graph_from_edges<std::int64_t, double>(n, both);
      std::vector<std::set<std::int64_t>> nb(static_cast<std::size_t>(n));
      for (const auto& e : to_edges(g).e) nb[e.u].insert(e.v);
      std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
      for (std::int64_t u = 0; u < n; u += 3) {
        for (std::int64_t v = 0; v < n; v += 2) pairs.emplace_back(u, v);
      }
      for (std::int64_t batch : {0, 1, 5}) {
        const auto got = jaccard_coefficient(g, pairs, cpu(batch));
        for (std::size_t i = 0; i < pairs.size(); ++i) {
          const auto& a = nb[pairs[i].first];
          const auto& b = nb[pairs[i].second];
          // networkx: common neighbors other than u and v; the union keeps them.
          std::size_t common = 0, uni_count = 0;
          for (auto x : a) {
            common += b.count(x) && x != pairs[i].first && x != pairs[i].second ? 1 : 0;
          }
          std::set<std::int64_t> all = a;
          all.insert(b.begin(), b.end());
          uni_count = all.size();
          const double uni = double(uni_count);
          EXPECT_DOUBLE_EQ(got[i], uni > 0 ? double(common) / uni : 0.0);
        }
      }
    }
  }
}

TEST(Jaccard, DegenerateInputsAndRefusals) {
  const auto iso = graph_from_edges<std::int32_t, Pattern>(3, {});
  EXPECT_EQ(jaccard_coefficient(iso, {{0, 1}, {2, 2}}, cpu()), (std::vector<double>{0, 0}));
  EXPECT_TRUE(jaccard_coefficient(iso, {}, cpu()).empty());
  EXPECT_TRUE(edge_pairs(iso).empty());
  // Path 0 - 1 - 2: N(0) = {1} = N(2), so J(0, 2) = 1; J(0, 1) = 0.
  const auto path = graph_from_edges<std::int32_t, Pattern>(3, {{0, 1}, {1, 0}, {1, 2}, {2, 1}});
  EXPECT_EQ(jaccard_coefficient(path, {{0, 2}, {0, 1}}, cpu()), (std::vector<double>{1, 0}));
  EXPECT_EQ(edge_pairs(path), (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 1}, {1, 2}}));
  EXPECT_THROW(jaccard_coefficient(path, {{0, 3}}, cpu()), IndexOutOfBounds);
  const auto directed = graph_from_edges<std::int32_t, Pattern>(2, {{0, 1}});
  EXPECT_THROW(jaccard_coefficient(directed, {{0, 1}}, cpu()), InvalidArgument);
  JaccardOptions o = cpu();
  o.cancel = [] { return true; };
  EXPECT_THROW(jaccard_coefficient(path, {{0, 1}}, o), Cancelled);
}

}  // namespace
}  // namespace spindle::test
