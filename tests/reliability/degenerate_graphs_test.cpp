// SPDX-License-Identifier: Apache-2.0
// Degenerate graphs through every algorithm, beyond tests/algorithms/degenerate_test.cpp: every
// index/value type, both backends explicitly (CUDA when present, compared with the CPU), sizes
// large enough for the parallel paths, graphs that come from files, personalization on an
// all-dangling graph, and self-loops on every vertex. Oracles are closed forms written here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "spindle/algorithms.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/executor.hpp"
#include "spindle/loaders/edge_list.hpp"
#include "spindle/loaders/matrix_market.hpp"

namespace spindle {
namespace {

std::vector<Device> devices() {
  std::vector<Device> d{Device::Cpu};
  if (cuda_available()) d.push_back(Device::Cuda);
  return d;
}
const char* name(Device d) { return d == Device::Cuda ? "cuda" : "cpu"; }

template <class I, class V>
Graph<I, V> graph_of(std::int64_t n, const std::vector<std::pair<std::int64_t, std::int64_t>>& e) {
  Coo<I> c;
  c.rows = c.cols = static_cast<I>(n);
  for (const auto& [s, t] : e) {
    c.row.push_back(static_cast<I>(s));
    c.col.push_back(static_cast<I>(t));
  }
  return build_graph<I, V>(std::move(c));
}

template <class T>
double max_abs_diff(const Vector<T>& a, const std::vector<double>& b) {
  double m = 0.0;
  for (std::int64_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(double(a[i]) - b[i]));
  return m;
}

// Runs `check(I{}, V{})` for every index / value type pair.
template <class F>
void for_each_type(F&& check) {
  for_each_graph_type([&](auto i, auto v) { check(i, v); });
}

TEST(DegenerateGraphs, NoEdgesGiveUniformPageRankForEveryTypeDeviceAndParallelSize) {
  // n = 70000 is past the CPU kernels' serial cut-off, so the parallel paths run too.
  for (const std::int64_t n : {1, 2, 70000}) {
    for_each_type([&](auto i_tag, auto v_tag) {
      using I = decltype(i_tag);
      using V = decltype(v_tag);
      const auto g = graph_of<I, V>(n, {});
      for (Device d : devices()) {
        SCOPED_TRACE(std::string(name(d)) + " n=" + std::to_string(n) + " " +
                     to_string(index_kind_of<I>()) + "/" + to_string(value_kind_of<V>()));
        PageRankOptions o;
        o.device = d;
        const auto r = pagerank<float>(g, o);
        ASSERT_EQ(r.ranks.size(), n);
        // float: the dangling sum adds n floats, so allow a relative 1e-4 (not one ulp).
        EXPECT_LT(max_abs_diff(r.ranks, std::vector<double>(n, 1.0 / n)), 1e-4 / n);
        EXPECT_TRUE(r.converged);
        const auto rd = pagerank<double>(g, o);
        EXPECT_LT(max_abs_diff(rd.ranks, std::vector<double>(n, 1.0 / n)), 1e-15);
      }
    });
  }
}

TEST(DegenerateGraphs, AllDanglingGraphReturnsThePersonalizationVector) {
  // Default preset: x' = α Aᵀ(x./outdeg) + (α Σ_dangling x + 1 - α) p. With no edges every vertex
  // is dangling and Σ x = 1, so x' = p from the first iteration on.
  const std::int64_t n = 5;
  const auto g = graph_of<std::int64_t, Pattern>(n, {});
  const std::vector<double> p{1, 0, 3, 0, 4};
  for (Device d : devices()) {
    SCOPED_TRACE(name(d));
    PageRankOptions o;
    o.device = d;
    o.personalization = p;
    const auto r = pagerank<double>(g, o);
    for (std::int64_t v = 0; v < n; ++v) EXPECT_NEAR(r.ranks[v], p[v] / 8.0, 1e-15);
  }
}

TEST(DegenerateGraphs, SelfLoopOnEveryVertexKeepsUniformRankAndUnitEigenvalue) {
  const std::int64_t n = 9;
  std::vector<std::pair<std::int64_t, std::int64_t>> loops;
  for (std::int64_t v = 0; v < n; ++v) loops.push_back({v, v});
  const auto g = graph_of<std::int32_t, double>(n, loops);
  for (Device d : devices()) {
    SCOPED_TRACE(name(d));
    PageRankOptions o;
    o.device = d;
    const auto r = pagerank<double>(g, o);
    EXPECT_LT(max_abs_diff(r.ranks, std::vector<double>(n, 1.0 / n)), 1e-15);
    EXPECT_TRUE(r.converged);
    PowerIterationOptions po;
    po.device = d;
    const auto pi = power_iteration<double>(g, po);
    EXPECT_NEAR(pi.eigenvalue, 1.0, 1e-12);  // A = I
    BfsOptions bo;
    bo.device = d;
    const auto b = bfs(g, 4, bo);
    EXPECT_EQ(b.reached, 1);
    SsspOptions so;
    so.device = d;
    const auto s = sssp<double>(g, 4, so);
    EXPECT_EQ(s.reached, 1);
    EXPECT_EQ(s.distance[4], 0.0) << "a self-loop of weight 1 must not lengthen the source";
  }
}

TEST(DegenerateGraphs, OneVertexWithoutEdgesThroughEveryAlgorithm) {
  const auto g = graph_of<std::int64_t, float>(1, {});
  for (Device d : devices()) {
    SCOPED_TRACE(name(d));
    PageRankOptions o;
    o.device = d;
    EXPECT_FLOAT_EQ(pagerank<float>(g, o).ranks[0], 1.0f);
    BfsOptions bo;
    bo.device = d;
    bo.parents = true;
    const auto b = bfs(g, 0, bo);
    EXPECT_EQ(b.level, std::vector<std::int64_t>{0});
    EXPECT_EQ(b.reached, 1);
    SsspOptions so;
    so.device = d;
    const auto s = sssp<float>(g, 0, so);
    EXPECT_EQ(s.distance[0], 0.0f);
    PowerIterationOptions po;
    po.device = d;
    const auto pi = power_iteration<float>(g, po);
    EXPECT_EQ(pi.vector.size(), 1);
    EXPECT_EQ(pi.eigenvalue, 0.0);
  }
}

TEST(DegenerateGraphs, EmptyFilesLoadAndRunThroughEveryAlgorithm) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("spindle-degenerate-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string mm0 = (dir / "zero.mtx").string();
  const std::string mm3 = (dir / "three.mtx").string();
  const std::string el0 = (dir / "empty.txt").string();
  std::ofstream(mm0) << "%%MatrixMarket matrix coordinate pattern general\n0 0 0\n";
  std::ofstream(mm3) << "%%MatrixMarket matrix coordinate real symmetric\n3 3 0\n";
  std::ofstream(el0) << "# only comments\n% and more\n\n";
  const auto z = read_matrix_market<std::int32_t, Pattern>(mm0);
  const auto t = read_matrix_market<std::int64_t, double>(mm3);
  EdgeListOptions allow;
  allow.allow_empty = true;  // refused by default: an empty edge list is usually a failed producer
  EXPECT_THROW((void)(read_edge_list<std::int32_t, float>(el0)), ParseError);
  const auto e = read_edge_list<std::int32_t, float>(el0, allow);
  EXPECT_EQ(z.rows(), 0);
  EXPECT_EQ(t.rows(), 3);
  EXPECT_EQ(t.nnz(), 0);
  EXPECT_EQ(e.graph.rows(), 0);
  for (Device d : devices()) {
    SCOPED_TRACE(name(d));
    PageRankOptions o;
    o.device = d;
    EXPECT_EQ(pagerank<double>(z, o).ranks.size(), 0);
    EXPECT_EQ(pagerank<double>(e.graph, o).ranks.size(), 0);
    const auto r = pagerank<double>(t, o);
    EXPECT_LT(max_abs_diff(r.ranks, {1.0 / 3, 1.0 / 3, 1.0 / 3}), 1e-15);
    PowerIterationOptions po;
    po.device = d;
    const auto pz = power_iteration<double>(z, po);
    EXPECT_EQ(pz.vector.size(), 0);
    EXPECT_TRUE(pz.vanished);  // no eigenvector to report
    EXPECT_FALSE(pz.converged);
    EXPECT_THROW((void)bfs(z, 0), IndexOutOfBounds);
    const auto s = sssp<double>(t, 2);
    EXPECT_EQ(s.reached, 1);
    EXPECT_TRUE(std::isinf(s.distance[0]));
  }
  std::filesystem::remove_all(dir);
}

TEST(DegenerateGraphs, SharedEmptyMatrixIsRectangularAndRefusedBySquareAlgorithms) {
  const std::string path = std::string(SPINDLE_DATA_DIR) + "/graphs/empty.mtx";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no shared data at " << SPINDLE_DATA_DIR;
  const auto g = read_matrix_market<std::int32_t, double>(path);  // 3 x 4, no entries
  EXPECT_EQ(g.rows(), 3);
  EXPECT_EQ(g.cols(), 4);
  EXPECT_THROW((void)pagerank<double>(g), InvalidArgument);
  EXPECT_THROW((void)sssp<double>(g, 0), InvalidArgument);
}

}  // namespace
}  // namespace spindle
