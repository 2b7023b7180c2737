// SPDX-License-Identifier: Apache-2.0
// Spindle's NetworkX preset and centrality mode against values computed by networkx itself
// (tests/fixtures/make_networkx_refs.py; the CSVs were written by networkx 3.6.1, not by Spindle).
//
// Tolerances: the NetworkX preset and the centrality mode replay networkx's own iteration (same
// start vector, update, normalization and stop rule ‖x'−x‖₁ < n·tol with tol = 1e-6), so in
// double both stop at the same iteration and differ only by rounding: we require L1 ≤ 1e-10.
// In float the stop may fall one iteration apart; networkx's answer is itself only accurate to
// its stop rule, so there we require L1 ≤ n·tol (networkx's tolerance).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "alg_test_utils.hpp"
#include "spindle/algorithms/pagerank.hpp"
#include "spindle/algorithms/power_iteration.hpp"
#include "spindle/algorithms/triangles.hpp"

namespace spindle::test {
namespace {

constexpr double kNxTol = 1e-6;

struct Fixture {
  std::string graph;  // file name in the data folder
  // pagerank | pagerank_personalized | eigenvector_centrality | triangles | clustering
  std::string measure;
  std::string path;
};

std::vector<Fixture> fixtures() {
  namespace fs = std::filesystem;
  std::vector<Fixture> out;
  const std::string dir = fixture_path("networkx");
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".csv") continue;
    const std::string stem = name.substr(0, name.size() - 4);
    const auto dot = stem.rfind('.');
    Fixture f;
    f.measure = stem.substr(dot + 1);
    // This file's measures; the other graph algorithms' fixtures (nx_fixtures.hpp and their
    // tests) share the folder.
    if (f.measure != "pagerank" && f.measure != "pagerank_personalized" &&
        f.measure != "eigenvector_centrality" && f.measure != "triangles" &&
        f.measure != "clustering") {
      continue;
    }
    f.path = e.path().string();
    for (const char* ext : {".mtx", ".txt", ".csv"}) {
      // First match wins, in the script's order (karate.mtx before karate.csv).
      if (f.graph.empty() && fs::exists(graph_path(stem.substr(0, dot) + ext))) {
        f.graph = stem.substr(0, dot) + ext;
      }
    }
    out.push_back(f);
  }
  std::sort(out.begin(), out.end(),
            [](const Fixture& a, const Fixture& b) { return a.path < b.path; });
  return out;
}

/// vertex name -> value, as networkx wrote it.
std::map<std::string, double> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  std::map<std::string, double> m;
  while (std::getline(in, line)) {
    const auto comma = line.rfind(',');
    if (comma == std::string::npos) continue;
    m[line.substr(0, comma)] = std::stod(line.substr(comma + 1));
  }
  return m;
}

DataGraph<Pattern> load(const std::string& file) {
  DataGraph<Pattern> g;
  g.file = file;
  const std::string path = graph_path(file);
  if (file.size() > 4 && file.substr(file.size() - 4) == ".mtx") {
    g.graph = read_matrix_market<std::int32_t, Pattern>(path);
    for (std::int32_t i = 0; i < g.graph.rows(); ++i) g.names.push_back(std::to_string(i + 1));
  } else {
    auto r = read_edge_list<std::int32_t, Pattern>(path);
    g.graph = r.graph;
    g.names = r.labels;
  }
  return g;
}

template <class T>
double l1_vs(const Vector<T>& got, const DataGraph<Pattern>& g,
             const std::map<std::string, double>& want) {
  EXPECT_EQ(static_cast<std::size_t>(got.size()), want.size());
  double s = 0.0;
  for (std::size_t v = 0; v < g.names.size(); ++v) {
    const auto it = want.find(g.names[v]);
    if (it == want.end()) {
      ADD_FAILURE() << "vertex " << g.names[v] << " missing from the fixture";
      continue;
    }
    s += std::fabs(double(got[std::int64_t(v)]) - it->second);
  }
  return s;
}

bool is_triangle_measure(const Fixture& f) {
  return f.measure == "triangles" || f.measure == "clustering";
}

template <class T>
Vector<T> run(const Fixture& f, const DataGraph<Pattern>& g) {
  if (f.measure == "eigenvector_centrality") {
    PowerIterationOptions o;
    o.centrality = true;
    o.tol = kNxTol;
    o.max_iter = 1000;
    o.device = Device::Cpu;
    const auto r = power_iteration<T>(g.graph, o);
    EXPECT_TRUE(r.converged);
    return r.vector;
  }
  PageRankOptions o;
  o.preset = PageRankPreset::NetworkX;
  o.alpha = 0.85;
  o.tol = kNxTol;
  o.max_iter = 100;
  o.device = Device::Cpu;
  if (f.measure == "pagerank_personalized") {
    // The script's rule: p[v] = 1 + (v mod 5) for the internal 0-based id.
    for (std::int32_t v = 0; v < g.graph.rows(); ++v) o.personalization.push_back(1.0 + v % 5);
  }
  const auto r = pagerank<T>(g.graph, o);
  EXPECT_TRUE(r.converged);
  return r.ranks;
}

TEST(NetworkxReference, FixturesCoverAtLeastFiveRealGraphs) {
  SPINDLE_REQUIRE_DATA();  // a fixture names its graph only when the data folder holds it
  const auto fx = fixtures();
  std::set<std::string> pr, ec, tri, cl;
  for (const auto& f : fx) {
    if (f.measure == "pagerank") pr.insert(f.graph);
    if (f.measure == "eigenvector_centrality") ec.insert(f.graph);
    if (f.measure == "triangles") tri.insert(f.graph);
    if (f.measure == "clustering") cl.insert(f.graph);
  }
  EXPECT_GE(pr.size(), 5u);
  EXPECT_GE(ec.size(), 5u);
  EXPECT_GE(tri.size(), 5u);
  EXPECT_GE(cl.size(), 5u);
}

TEST(NetworkxReference, NetworkxPresetAndCentralityMatchNetworkxInDouble) {
  SPINDLE_REQUIRE_DATA();
  for (const auto& f : fixtures()) {
    if (is_triangle_measure(f)) continue;
    SCOPED_TRACE(f.graph + " " + f.measure);
    ASSERT_FALSE(f.graph.empty()) << "no data file for fixture " << f.path;
    const auto g = load(f.graph);
    const auto want = read_csv(f.path);
    EXPECT_LE(l1_vs(run<double>(f, g), g, want), 1e-10);
  }
}

TEST(NetworkxReference, FloatPrecisionWithinNetworkxTolerance) {
  SPINDLE_REQUIRE_DATA();
  for (const auto& f : fixtures()) {
    if (is_triangle_measure(f)) continue;
    SCOPED_TRACE(f.graph + " " + f.measure);
    const auto g = load(f.graph);
    const auto want = read_csv(f.path);
    EXPECT_LE(l1_vs(run<float>(f, g), g, want), double(g.graph.rows()) * kNxTol);
  }
}

// The Anderson method reaches networkx's fixed point too. networkx at its default tol stops up to
// about n * 1e-6 from it, so the comparison is with networkx run to tol 1e-15 (pagerank_exact,
// same script): Anderson with the default preset and tol 1e-6, in double and float, within 1e-5
// in L1 (the bar), as the power iteration is.
TEST(NetworkxReference, AndersonPagerankReachesNetworkxFixedPoint) {
  SPINDLE_REQUIRE_DATA();
  int compared = 0;
  for (const auto& f : fixtures()) {
    if (f.measure != "pagerank") continue;
    std::string exact = f.path;
    exact.replace(exact.size() - std::string(".pagerank.csv").size(), std::string::npos,
                  ".pagerank_exact.csv");
    SCOPED_TRACE(f.graph);
    ASSERT_TRUE(std::filesystem::exists(exact)) << exact;
    const auto g = load(f.graph);
    const auto want = read_csv(exact);
    for (const PageRankMethod method : {PageRankMethod::Anderson, PageRankMethod::Power}) {
      PageRankOptions o;
      o.device = Device::Cpu;
      o.method = method;
      EXPECT_LE(l1_vs(pagerank<double>(g.graph, o).ranks, g, want), 1e-5) << to_string(method);
      EXPECT_LE(l1_vs(pagerank<float>(g.graph, o).ranks, g, want), 1e-5) << to_string(method);
    }
    ++compared;
  }
  EXPECT_GE(compared, 5);
}

// Triangle counts are integers and clustering coefficients one correctly rounded division of two
// integers, in networkx as in Spindle: both compare exactly.
TEST(NetworkxReference, TrianglesAndClusteringMatchNetworkxExactly) {
  SPINDLE_REQUIRE_DATA();
  int checked = 0;
  for (const auto& f : fixtures()) {
    if (!is_triangle_measure(f)) continue;
    SCOPED_TRACE(f.graph + " " + f.measure);
    ASSERT_FALSE(f.graph.empty()) << "no data file for fixture " << f.path;
    const auto g = load(f.graph);
    const auto want = read_csv(f.path);
    TriangleOptions o;
    o.clustering = true;
    o.device = Device::Cpu;
    const TriangleResult r = triangles(g.graph, o);
    ASSERT_EQ(want.size(), g.names.size());
    std::int64_t sum = 0;
    for (std::size_t v = 0; v < g.names.size(); ++v) {
      const auto it = want.find(g.names[v]);
      ASSERT_NE(it, want.end()) << "vertex " << g.names[v] << " missing from the fixture";
      const double got =
          f.measure == "triangles" ? static_cast<double>(r.per_vertex[v]) : r.clustering[v];
      ASSERT_EQ(got, it->second) << "vertex " << g.names[v];
      sum += r.per_vertex[v];
    }
    EXPECT_EQ(sum, 3 * r.total);
    if (f.measure == "triangles") {
      // The total alone runs another product (L·L^T, relabelled by degree on skewed graphs).
      double nx_sum = 0;
      for (const auto& [name, t] : want) nx_sum += t;
      TriangleOptions total_only;
      total_only.device = Device::Cpu;
      EXPECT_EQ(static_cast<double>(triangles(g.graph, total_only).total), nx_sum / 3);
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

}  // namespace
}  // namespace spindle::test
