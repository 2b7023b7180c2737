// SPDX-License-Identifier: Apache-2.0
// info --json, generate and convert, checked against the loaders and naive recounts.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>
#include <vector>

#include "cli_harness.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/edge_list.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/loaders/matrix_market.hpp"

namespace spindle::test {
namespace {

using CliGraph = CliTest;

// Naive statistics from the CSR arrays, written independently of GraphStats.
struct NaiveStats {
  std::int64_t rows = 0, cols = 0, nnz = 0, max_row = 0, min_row = 0, empty = 0, loops = 0;
  double avg = 0;
  double col_spread = 0;  // in-degree stdv / avg
};

template <class I, class V>
NaiveStats naive_stats(const Graph<I, V>& g) {
  NaiveStats s;
  s.rows = g.rows();
  s.cols = g.cols();
  s.nnz = g.nnz();
  s.min_row = s.rows ? INT64_MAX : 0;
  for (I r = 0; r < g.rows(); ++r) {
    std::int64_t len = g.row_ptr()[r + 1] - g.row_ptr()[r];
    s.max_row = std::max(s.max_row, len);
    s.min_row = std::min(s.min_row, len);
    s.empty += len == 0;
    for (I k = g.row_ptr()[r]; k < g.row_ptr()[r + 1]; ++k) s.loops += g.col_idx()[k] == r;
  }
  s.avg = s.rows ? static_cast<double>(s.nnz) / static_cast<double>(s.rows) : 0.0;
  if (s.cols > 0 && s.nnz > 0) {
    std::vector<double> in(static_cast<std::size_t>(s.cols), 0.0);
    for (const I c : g.col_idx()) in[static_cast<std::size_t>(c)] += 1.0;
    const double mean = static_cast<double>(s.nnz) / static_cast<double>(s.cols);
    double sq = 0.0;
    for (const double d : in) sq += (d - mean) * (d - mean);
    s.col_spread = std::sqrt(sq / static_cast<double>(s.cols)) / mean;
  }
  return s;
}

TEST_F(CliGraph, InfoJsonIsOneObjectWhoseCountsMatchTheLoader) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  for (const char* name : {"karate.mtx", "skew_int32.mtx", "lp_afiro.mtx", "west0067.mtx",
                           "duplicates.mtx", "empty.mtx", "1138_bus.mtx"}) {
    RunResult r = run("info --json " + q(graph_path(name)));
    ASSERT_EQ(r.rc, 0) << name << ": " << r.err;
    Json j;
    ASSERT_NO_THROW(j = JsonReader(r.out).parse_document()) << name << ": " << r.out;
    ASSERT_EQ(j.kind, Json::Object);
    for (const char* key :
         {"rows", "cols", "nnz", "avg_row", "stdv_row", "min_row", "max_row", "empty_rows",
          "self_loops", "row_length_histogram", "value_type", "col_imbalance_est"}) {
      EXPECT_TRUE(j.has(key)) << name << " lacks " << key;
    }
    auto g = read_matrix_market<std::int64_t, double>(graph_path(name));
    NaiveStats s = naive_stats(g);
    EXPECT_EQ(j.at("rows").num, s.rows) << name;
    EXPECT_EQ(j.at("cols").num, s.cols) << name;
    EXPECT_EQ(j.at("nnz").num, s.nnz) << name;
    EXPECT_EQ(j.at("max_row").num, s.max_row) << name;
    EXPECT_EQ(j.at("min_row").num, s.min_row) << name;
    EXPECT_EQ(j.at("empty_rows").num, s.empty) << name;
    EXPECT_EQ(j.at("self_loops").num, s.loops) << name;
    EXPECT_NEAR(j.at("avg_row").num, s.avg, 1e-12 * (1 + s.avg)) << name;
    // These graphs have nnz + cols <= 2^17: the spread is counted, exactly.
    EXPECT_NEAR(j.at("col_imbalance_est").num, s.col_spread, 1e-9 * (1 + s.col_spread)) << name;
    double rows_in_histogram = 0;
    for (const auto& b : j.at("row_length_histogram").arr) rows_in_histogram += b.at("rows").num;
    EXPECT_EQ(rows_in_histogram, s.rows) << name;
  }
}

TEST_F(CliGraph, NonFiniteValuesAreRefusedUnlessAllowed) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string file = graph_path("skew_fp64.mtx");  // holds an Inf value
  RunResult refused = run("info --json " + q(file));
  EXPECT_EQ(refused.rc, 1);
  ASSERT_EQ(refused.err_lines().size(), 1u) << refused.err;
  EXPECT_NE(refused.err.find("skew_fp64.mtx:"), std::string::npos) << "names file:line";
  EXPECT_NE(refused.err.find("--allow-nonfinite"), std::string::npos) << "says how to proceed";
  RunResult allowed = run("info --json --allow-nonfinite " + q(file));
  ASSERT_EQ(allowed.rc, 0) << allowed.err;
  MatrixMarketOptions o;
  o.allow_nonfinite = true;
  auto g = read_matrix_market<std::int64_t, double>(file, o);
  EXPECT_EQ(JsonReader(allowed.out).parse_document().at("nnz").num, g.nnz());
}

TEST_F(CliGraph, InfoJsonOnEdgeListCountsUndirectedEdgesTwice) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string file = graph_path("karate.csv");
  auto directed = read_edge_list<std::int64_t, Pattern>(file);
  EdgeListOptions o;
  o.undirected = true;
  auto undirected = read_edge_list<std::int64_t, Pattern>(file, o);
  Json a = JsonReader(run("info --json " + q(file)).out).parse_document();
  Json b = JsonReader(run("info --json --undirected " + q(file)).out).parse_document();
  EXPECT_EQ(a.at("nnz").num, directed.graph.nnz());
  EXPECT_EQ(b.at("nnz").num, undirected.graph.nnz());
  EXPECT_EQ(a.at("rows").num, static_cast<double>(directed.labels.size()));
}

TEST_F(CliGraph, InfoExplainShowsCpuAndCudaPlansInTextAndJson) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  RunResult t = run("info --explain " + q(graph_path("karate.mtx")));
  ASSERT_EQ(t.rc, 0) << t.err;
  EXPECT_NE(t.out.find("cpu:"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("cuda:"), std::string::npos) << t.out;
  RunResult j = run("info --json --explain " + q(graph_path("karate.mtx")));
  ASSERT_EQ(j.rc, 0) << j.err;
  Json doc = JsonReader(j.out).parse_document();
  ASSERT_TRUE(doc.has("plans"));
  std::set<std::string> devices;
  for (const auto& p : doc.at("plans").arr) {
    devices.insert(p.at("device").str);
    EXPECT_FALSE(p.at("kernel").str.empty());
    EXPECT_FALSE(p.at("reason").str.empty());
  }
  EXPECT_EQ(devices, (std::set<std::string>{"cpu", "cuda"}));
}

template <class I, class V>
void expect_same_graph(const Graph<I, V>& a, const Graph<I, V>& b, const std::string& what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  EXPECT_EQ(a.row_ptr(), b.row_ptr()) << what;
  EXPECT_EQ(a.col_idx(), b.col_idx()) << what;
  if constexpr (!Graph<I, V>::is_pattern) {
    EXPECT_EQ(a.values(), b.values()) << what;
  }
}

TEST_F(CliGraph, GenerateIsDeterministicPerSeedAndFormat) {
  for (const char* ext : {".mtx", ".el"}) {
    for (const char* kind : {"rmat", "uniform", "powerlaw", "bipartite"}) {
      if (std::string(kind) == "bipartite" && std::string(ext) == ".el") continue;  // rectangular
      const std::string a = path(std::string("a") + ext), b = path(std::string("b") + ext),
                        c = path(std::string("c") + ext);
      const std::string base = std::string("generate ") + kind + " --scale 9 --edge-factor 6 ";
      ASSERT_EQ(run(base + "--seed 5 -o " + q(a)).rc, 0);
      ASSERT_EQ(run(base + "--seed 5 --threads 1 -o " + q(b)).rc, 0);
      ASSERT_EQ(run(base + "--seed 6 -o " + q(c)).rc, 0);
      const std::string sa = slurp(a);
      EXPECT_FALSE(sa.empty());
      EXPECT_EQ(sa, slurp(b)) << kind << ext << ": same seed, different bytes";
      EXPECT_NE(sa, slurp(c)) << kind << ext << ": different seeds, same bytes";
    }
  }
}

TEST_F(CliGraph, GeneratedShapesAreTheLoadersGraphs) {
  // Each new kind writes exactly the generator's graph (duplicates merged, self-loops dropped).
  struct Case {
    const char* args;
    Coo<std::int32_t> coo;
  };
  const Case cases[] = {
      {"mesh --scale 9 --no-scramble", generate_mesh<std::int32_t>(9, 1, false)},
      {"mesh --scale 9 --seed 4", generate_mesh<std::int32_t>(9, 4, true)},
      {"powerlaw --scale 9 --edge-factor 6 --exponent 2.5",
       generate_powerlaw<std::int32_t>(9, 6, 2.5, 1, true)},
      {"powerlaw --scale 9 --edge-factor 6 --no-scramble",
       generate_powerlaw<std::int32_t>(9, 6, 2.1, 1, false)},
      {"bipartite --scale 9 --cols-scale 5 --edge-factor 6",
       generate_bipartite<std::int32_t>(9, 5, 6, 2.2, 1)},
  };
  for (const Case& c : cases) {
    const std::string f = path("shape.mtx");
    const RunResult r = run(std::string("generate ") + c.args + " -o " + q(f));
    ASSERT_EQ(r.rc, 0) << c.args << ": " << r.err;
    BuildOptions b;
    b.duplicates = DuplicatePolicy::Collapse;
    b.self_loops = SelfLoopPolicy::Drop;
    Coo<std::int32_t> coo = c.coo;
    const auto want =
        build_graph<std::int64_t, Pattern>(Coo<std::int64_t>{coo.rows,
                                                             coo.cols,
                                                             {coo.row.begin(), coo.row.end()},
                                                             {coo.col.begin(), coo.col.end()},
                                                             {}},
                                           b);
    const auto got = read_matrix_market<std::int64_t, Pattern>(f);
    expect_same_graph(got, want, c.args);
  }
  // Refusals: one line, exit 2, no file.
  for (const char* bad :
       {"mesh --edge-factor 3", "bipartite --undirected", "powerlaw --exponent 1.5",
        "uniform --exponent 2", "uniform --no-scramble", "rmat --cols-scale 3",
        "powerlaw --exponent x", "bipartite --no-scramble", "grid", "bipartite --format el"}) {
    const std::string f = path("refused.mtx");
    const RunResult r = run(std::string("generate ") + bad + " -o " + q(f));
    EXPECT_EQ(r.rc, 2) << bad;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << bad << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(f)) << bad;
  }
}

TEST_F(CliGraph, GeneratedMatrixMarketHasTheRequestedShapeNoLoopsNoDuplicates) {
  const std::string f = path("g.mtx");
  ASSERT_EQ(run("generate rmat --scale 10 --edge-factor 8 --seed 3 -o " + q(f)).rc, 0);
  MatrixMarketOptions keep_all;
  keep_all.build.duplicates = DuplicatePolicy::Error;  // the file must hold no duplicate
  auto g = read_matrix_market<std::int64_t, Pattern>(f, keep_all);
  EXPECT_EQ(g.rows(), 1024);
  EXPECT_EQ(g.cols(), 1024);
  EXPECT_GT(g.nnz(), 0);
  EXPECT_LE(g.nnz(), 1024 * 8);
  EXPECT_EQ(naive_stats(g).loops, 0);
}

TEST_F(CliGraph, ConvertMtxToEdgeListAndBackPreservesTheGraph) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  // Pattern symmetric, real general and real symmetric inputs without isolated vertices.
  for (const char* name : {"karate.mtx", "west0067.mtx", "bcsstk13.mtx"}) {
    for (const char* ext : {".el", ".tsv", ".csv"}) {
      const std::string el = path(std::string("g") + ext), back = path("back.mtx");
      RunResult r1 = run("convert " + q(graph_path(name)) + " " + q(el));
      ASSERT_EQ(r1.rc, 0) << name << ": " << r1.err;
      RunResult r2 = run("convert " + q(el) + " " + q(back));
      ASSERT_EQ(r2.rc, 0) << name << ": " << r2.err;
      auto a = read_matrix_market<std::int64_t, double>(graph_path(name));
      auto b = read_matrix_market<std::int64_t, double>(back);
      expect_same_graph(a, b, std::string(name) + " via " + ext);
      EXPECT_FALSE(std::filesystem::exists(back + ".labels")) << "ids were already 1..n";
    }
  }
}

TEST_F(CliGraph, ConvertEdgeListWithTextLabelsKeepsThemBesideTheMatrix) {
  // A fresh random directed graph with text labels, some listed out of order.
  std::mt19937_64 rng(2024);
  const int n = 40;
  std::vector<std::string> label(n);
  for (int v = 0; v < n; ++v) label[v] = "v" + std::to_string((v * 7919) % 1000);
  std::set<std::pair<int, int>> edges;
  for (int k = 0; k < 200; ++k) edges.insert({int(rng() % n), int(rng() % n)});
  for (int v = 0; v < n; ++v) edges.insert({v, (v + 1) % n});  // every vertex appears
  std::string text = "# random test graph\n";
  for (auto [u, v] : edges) text += label[u] + "\t" + label[v] + "\n";
  const std::string el = path("g.tsv"), mtx = path("g.mtx"), back = path("back.tsv");
  { std::ofstream(el) << text; }
  RunResult r = run("convert " + q(el) + " " + q(mtx));
  ASSERT_EQ(r.rc, 0) << r.err;
  ASSERT_TRUE(std::filesystem::exists(mtx + ".labels"));
  const std::vector<std::string> names = lines_of(slurp(mtx + ".labels"));
  ASSERT_EQ(names.size(), static_cast<std::size_t>(n));
  // Every edge of the file is an entry of the matrix under the label map, and nothing else.
  auto g = read_matrix_market<std::int64_t, Pattern>(mtx);
  std::set<std::pair<std::string, std::string>> got, want;
  for (std::int64_t i = 0; i < g.rows(); ++i) {
    for (auto k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k) {
      got.insert({names[i], names[g.col_idx()[k]]});
    }
  }
  for (auto [u, v] : edges) want.insert({label[u], label[v]});
  EXPECT_EQ(got, want);
  // Edge list -> edge list keeps the labels themselves.
  ASSERT_EQ(run("convert " + q(el) + " " + q(back)).rc, 0);
  std::set<std::pair<std::string, std::string>> again;
  for (const auto& line : lines_of(slurp(back))) {
    if (line.empty() || line[0] == '#') continue;
    auto tab = line.find('\t');
    again.insert({line.substr(0, tab), line.substr(tab + 1)});
  }
  EXPECT_EQ(again, want);
}

TEST_F(CliGraph, ConvertRefusesRectangularMatrixAsEdgeList) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  RunResult r = run("convert " + q(graph_path("lp_afiro.mtx")) + " " + q(path("a.el")));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("rectangular"), std::string::npos) << r.err;
  EXPECT_TRUE(files().empty());
}

}  // namespace
}  // namespace spindle::test
