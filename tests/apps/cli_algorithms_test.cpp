// SPDX-License-Identifier: Apache-2.0
// The algorithm subcommands end to end: what they print and write, checked against naive
// oracles written here (dense power iteration, queue BFS, Dijkstra).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <queue>
#include <random>
#include <set>

#include "cli_harness.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/loaders/npy.hpp"

namespace spindle::test {
namespace {

using CliAlgorithms = CliTest;

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

Csv read_csv(const std::string& file) {
  Csv c;
  for (const auto& line : lines_of(slurp(file))) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
      std::size_t comma = line.find(',', start);
      fields.push_back(line.substr(start, comma == std::string::npos ? comma : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (c.header.empty()) {
      c.header = fields;
    } else {
      c.rows.push_back(fields);
    }
  }
  return c;
}

// Dense adjacency lists (0-based) of a Matrix Market file, from the loader.
std::vector<std::vector<std::int64_t>> out_lists(const std::string& file) {
  auto g = read_matrix_market<std::int64_t, Pattern>(file);
  std::vector<std::vector<std::int64_t>> adj(static_cast<std::size_t>(g.rows()));
  for (std::int64_t i = 0; i < g.rows(); ++i) {
    for (auto k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k) adj[i].push_back(g.col_idx()[k]);
  }
  return adj;
}

// PageRank by dense power iteration in double, the textbook way (default preset).
std::vector<double> oracle_pagerank(const std::vector<std::vector<std::int64_t>>& adj, double alpha,
                                    std::vector<double> p = {}) {
  const std::size_t n = adj.size();
  if (p.empty()) p.assign(n, 1.0 / static_cast<double>(n));
  double ps = std::accumulate(p.begin(), p.end(), 0.0);
  for (double& x : p) x /= ps;
  std::vector<double> x(n, 1.0 / static_cast<double>(n)), y(n);
  for (int it = 0; it < 100000; ++it) {
    double dangling = 0;
    for (std::size_t u = 0; u < n; ++u) dangling += adj[u].empty() ? x[u] : 0.0;
    for (std::size_t v = 0; v < n; ++v) y[v] = (alpha * dangling + 1 - alpha) * p[v];
    for (std::size_t u = 0; u < n; ++u) {
      for (auto v : adj[u]) y[v] += alpha * x[u] / static_cast<double>(adj[u].size());
    }
    double change = 0;
    for (std::size_t v = 0; v < n; ++v) change += std::fabs(y[v] - x[v]);
    x.swap(y);
    if (change < 1e-15) break;
  }
  return x;
}

TEST_F(CliAlgorithms, PagerankCsvHasEveryVertexOneBasedAndMatchesDenseOracle) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  for (const char* name : {"karate.mtx", "west0067.mtx", "ldbc-directed-example.mtx"}) {
    const std::string out = path("ranks.csv");
    RunResult r =
        run("pagerank " + q(graph_path(name)) + " --tol 1e-14 --max-iter 1000 -o " + q(out));
    ASSERT_EQ(r.rc, 0) << name << ": " << r.err;
    auto adj = out_lists(graph_path(name));
    std::vector<double> want = oracle_pagerank(adj, 0.85);
    Csv c = read_csv(out);
    ASSERT_EQ(c.header, (std::vector<std::string>{"vertex", "rank"}));
    ASSERT_EQ(c.rows.size(), adj.size()) << name;
    double sum = 0;
    for (std::size_t k = 0; k < c.rows.size(); ++k) {
      EXPECT_EQ(c.rows[k][0], std::to_string(k + 1)) << "ids are 1-based for .mtx";
      const double rank = std::stod(c.rows[k][1]);
      sum += rank;
      EXPECT_NEAR(rank, want[k], 1e-10) << name << " vertex " << k + 1;
    }
    EXPECT_NEAR(sum, 1.0, 1e-12) << name;
  }
}

TEST_F(CliAlgorithms, PagerankMethodAndersonReachesTheSameRanksInFewerIterations) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  for (const char* name : {"karate.mtx", "west0067.mtx", "ldbc-directed-example.mtx"}) {
    const std::string out = path("ranks.csv");
    const RunResult r = run("pagerank " + q(graph_path(name)) +
                            " --method anderson --tol 1e-13 --max-iter 1000 -o " + q(out));
    ASSERT_EQ(r.rc, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("method anderson"), std::string::npos) << r.out;
    const std::vector<double> want = oracle_pagerank(out_lists(graph_path(name)), 0.85);
    const Csv c = read_csv(out);
    ASSERT_EQ(c.rows.size(), want.size()) << name;
    for (std::size_t k = 0; k < c.rows.size(); ++k) {
      EXPECT_NEAR(std::stod(c.rows[k][1]), want[k], 1e-10) << name << " vertex " << k + 1;
    }
  }
  // Default tol: fewer iterations than the power iteration on karate (14 against 30 when written).
  auto iterations = [&](const std::string& extra) {
    const RunResult r = run("pagerank " + q(graph_path("karate.mtx")) + " --top 0 " + extra);
    EXPECT_EQ(r.rc, 0) << r.err;
    const auto at = r.out.find("iterations ");
    return at == std::string::npos ? -1 : std::stoi(r.out.substr(at + 11));
  };
  const int power = iterations(""), anderson = iterations("--method anderson");
  EXPECT_GT(anderson, 0);
  EXPECT_LT(anderson, power);
  // Presets that define their iterates refuse it; unknown methods are refused: one line, exit 2.
  for (const char* bad :
       {"--method anderson --preset gap", "--method anderson --preset boost", "--method gauss"}) {
    const RunResult r = run("pagerank " + q(graph_path("karate.mtx")) + " " + bad);
    EXPECT_EQ(r.rc, 2) << bad;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << bad << ": " << r.err;
  }
}

TEST_F(CliAlgorithms, PagerankPrintsHeaderTopTableAndSummary) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  RunResult r = run("pagerank " + q(graph_path("karate.mtx")) + " --top 3 --tol 1e-14");
  ASSERT_EQ(r.rc, 0) << r.err;
  auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 7u) << r.out;  // 2 header lines, table head, 3 rows, summary
  const std::string header = lines[0] + "\n" + lines[1];
  for (const char* k : {"karate.mtx", "n 34", "nnz 156", "device cpu", "precision double",
                        "preset default", "alpha 0.85"}) {
    EXPECT_NE(header.find(k), std::string::npos) << header;
  }
  EXPECT_NE(lines[2].find("rank"), std::string::npos) << lines[2];
  // Karate: vertices 34 and 1 are the two hubs (independent oracle picks the same order).
  auto want = oracle_pagerank(out_lists(graph_path("karate.mtx")), 0.85);
  std::vector<std::size_t> order(want.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return want[a] > want[b]; });
  for (int k = 0; k < 3; ++k) {
    std::istringstream row(lines[3 + k]);
    int rank = 0;
    std::string vertex;
    double score = 0;
    row >> rank >> vertex >> score;
    EXPECT_EQ(rank, k + 1);
    EXPECT_EQ(vertex, std::to_string(order[k] + 1));
    EXPECT_NEAR(score, want[order[k]], 1e-6);
  }
  EXPECT_NE(lines[6].find("iterations"), std::string::npos);
  EXPECT_NE(lines[6].find("converged yes"), std::string::npos);
}

TEST_F(CliAlgorithms, PagerankEdgeListOutputUsesTheOriginalLabels) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string file = graph_path("as20graph.txt"), out = path("ranks.json");
  RunResult r = run("pagerank " + q(file) + " -o " + q(out));
  ASSERT_EQ(r.rc, 0) << r.err;
  std::set<std::string> labels;
  for (const auto& line : lines_of(slurp(file))) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string a, b;
    ss >> a >> b;
    labels.insert(a);
    labels.insert(b);
  }
  Json j = JsonReader(slurp(out)).parse_document();
  std::set<std::string> got;
  double sum = 0;
  for (const auto& [k, v] : j.at("rank").obj) {
    got.insert(k);
    sum += v.num;
  }
  EXPECT_EQ(got, labels);
  EXPECT_NEAR(sum, 1.0, 1e-9);
  EXPECT_TRUE(j.at("converged").b);
}

TEST_F(CliAlgorithms, PersonalizedPagerankMatchesOracleWithTeleportVector) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string seeds = path("seeds.csv"), out = path("ranks.csv");
  { std::ofstream(seeds) << "vertex,weight\n3,2\n# comment\n10,1\n"; }
  RunResult r = run("pagerank " + q(graph_path("west0067.mtx")) + " --personalize " + q(seeds) +
                    " --tol 1e-14 --max-iter 1000 -o " + q(out));
  ASSERT_EQ(r.rc, 0) << r.err;
  auto adj = out_lists(graph_path("west0067.mtx"));
  std::vector<double> p(adj.size(), 0.0);
  p[2] = 2;
  p[9] = 1;
  auto want = oracle_pagerank(adj, 0.85, p);
  Csv c = read_csv(out);
  ASSERT_EQ(c.rows.size(), adj.size());
  for (std::size_t k = 0; k < adj.size(); ++k) EXPECT_NEAR(std::stod(c.rows[k][1]), want[k], 1e-10);
}

TEST_F(CliAlgorithms, BadPersonalizationFileNamesFileAndLine) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string seeds = path("seeds.csv");
  { std::ofstream(seeds) << "1,1\n99,1\n"; }  // karate has 34 vertices
  RunResult r = run("pagerank " + q(graph_path("karate.mtx")) + " --personalize " + q(seeds));
  EXPECT_EQ(r.rc, 1);
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("seeds.csv:2"), std::string::npos) << r.err;
}

// A negative weight is refused before anything is printed: one error line, no header on
// stdout, no output file.
TEST_F(CliAlgorithms, WeightedPagerankRefusesNegativeWeightsBeforeTheHeader) {
  const std::string g = path("neg.mtx"), out = path("r.csv");
  {
    std::ofstream(g) << "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 0.5\n"
                        "2 3 -1.5\n3 1 2\n";
  }
  RunResult r = run("pagerank " + q(g) + " --weighted -o " + q(out));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("-1.5"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("neg.mtx"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  // Unweighted, the same file is fine: its values are ignored.
  r = run("pagerank " + q(g) + " -o " + q(out));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(out));
}

TEST_F(CliAlgorithms, NonConvergenceWarnsButExitsZeroUnlessAskedToFail) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string g = q(graph_path("karate.mtx")), out = path("r.csv");
  RunResult r = run("pagerank " + g + " --max-iter 3");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("converged no"), std::string::npos) << r.out;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  r = run("pagerank " + g + " --max-iter 3 --fail-on-nonconvergence -o " + q(out));
  EXPECT_EQ(r.rc, 1);
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(CliAlgorithms, DefaultGraphIsTheGeneratedRmatGraph) {
  const std::string g = path("default.mtx");
  ASSERT_EQ(run("generate rmat -o " + q(g)).rc, 0);
  RunResult builtin = run("pagerank --top 5");
  RunResult file = run("pagerank " + q(g) + " --top 5");
  ASSERT_EQ(builtin.rc, 0) << builtin.err;
  ASSERT_EQ(file.rc, 0) << file.err;
  auto a = lines_of(builtin.out), b = lines_of(file.out);
  ASSERT_EQ(a.size(), 9u) << builtin.out;
  ASSERT_EQ(b.size(), 9u) << file.out;
  EXPECT_NE(a[0].find("built-in R-MAT"), std::string::npos) << a[0];
  EXPECT_NE(a[0].find("n 65536"), std::string::npos) << a[0];
  EXPECT_EQ(a[0].substr(a[0].find(": n ")), b[0].substr(b[0].find(": n ")));  // same n, nnz
  // Same settings line and table; the summary differs only in its time.
  for (int k = 1; k <= 7; ++k) EXPECT_EQ(a[k], b[k]);
  EXPECT_EQ(a[8].substr(0, a[8].find(", time")), b[8].substr(0, b[8].find(", time")));
}

TEST_F(CliAlgorithms, BfsLevelsAndParentsMatchQueueBfs) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  for (const char* name : {"karate.mtx", "west0067.mtx"}) {
    const std::string out = path("bfs.csv");
    RunResult r = run("bfs " + q(graph_path(name)) + " --source 5 -o " + q(out));
    ASSERT_EQ(r.rc, 0) << r.err;
    auto adj = out_lists(graph_path(name));
    std::vector<std::int64_t> level(adj.size(), -1);
    std::queue<std::int64_t> queue;
    level[4] = 0;
    queue.push(4);
    while (!queue.empty()) {
      auto u = queue.front();
      queue.pop();
      for (auto v : adj[u]) {
        if (level[v] < 0) {
          level[v] = level[u] + 1;
          queue.push(v);
        }
      }
    }
    Csv c = read_csv(out);
    ASSERT_EQ(c.header, (std::vector<std::string>{"vertex", "level", "parent"}));
    ASSERT_EQ(c.rows.size(), adj.size());
    for (std::size_t v = 0; v < adj.size(); ++v) {
      if (level[v] < 0) {
        EXPECT_EQ(c.rows[v][1], "") << name << " vertex " << v + 1;
        continue;
      }
      EXPECT_EQ(std::stoll(c.rows[v][1]), level[v]) << name << " vertex " << v + 1;
      // The parent is one level up and has an edge to v.
      const std::int64_t parent = std::stoll(c.rows[v][2]) - 1;
      if (level[v] == 0) {
        EXPECT_EQ(parent, 4);
      } else {
        EXPECT_EQ(level[parent], level[v] - 1);
        EXPECT_NE(std::find(adj[parent].begin(), adj[parent].end(), std::int64_t(v)),
                  adj[parent].end());
      }
    }
  }
}

// Offset of the first byte where a and b differ (the shorter length when one is a prefix).
std::size_t first_difference(const std::string& a, const std::string& b) {
  const std::size_t m = std::min(a.size(), b.size());
  std::size_t k = 0;
  while (k < m && a[k] == b[k]) ++k;
  return k;
}

// The output writer formats blocks of 8192 vertices on all threads, a window of 4 blocks per
// thread at a time: a graph of 2^17 + 5 vertices written on 3 threads spans two windows and ends
// in a part block of 5 vertices. Every format must still list every vertex once, in order, with
// the right values, and the bytes must not depend on the thread count.
TEST_F(CliAlgorithms, BfsOutputLargerThanTheWritersWindowsIsCompleteInOrderInEveryFormat) {
  // A random tree from vertex 1 over all but the last 7 vertices (which only have out-edges, so
  // they stay unreached), plus as many random extra edges.
  const std::size_t n = (std::size_t{1} << 17) + 5, unreachable = 7;
  std::mt19937_64 rng(11);
  std::vector<std::pair<std::size_t, std::size_t>> edges;
  for (std::size_t v = 1; v < n - unreachable; ++v) edges.emplace_back(rng() % v, v);
  for (std::size_t e = 0; e < n; ++e) {
    const std::size_t a = rng() % n, b = rng() % (n - unreachable);
    if (a != b) edges.emplace_back(a, b);
  }
  const std::string g = path("g.mtx");
  {
    std::ofstream f(g);
    f << "%%MatrixMarket matrix coordinate pattern general\n"
      << n << " " << n << " " << edges.size() << "\n";
    for (const auto& [a, b] : edges) f << a + 1 << " " << b + 1 << "\n";
  }
  const auto adj = out_lists(g);
  ASSERT_EQ(adj.size(), n);
  const std::size_t source = 0;
  std::vector<std::int64_t> level(n, -1);
  std::queue<std::int64_t> queue;
  level[source] = 0;
  queue.push(static_cast<std::int64_t>(source));
  std::size_t reached = 1;
  while (!queue.empty()) {
    const auto u = queue.front();
    queue.pop();
    for (auto v : adj[u]) {
      if (level[v] < 0) {
        level[v] = level[u] + 1;
        queue.push(v);
        ++reached;
      }
    }
  }
  ASSERT_EQ(reached, n - unreachable);

  const std::string args = "bfs " + q(g) + " --source " + std::to_string(source + 1);
  const std::string csv = path("l.csv"), tsv = path("l.tsv"), json = path("l.json"),
                    csv1 = path("one.csv");
  for (const auto& out : {csv, tsv, json}) {
    RunResult r = run(args + " --threads 3 -o " + q(out));
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  RunResult r1 = run(args + " --threads 1 -o " + q(csv1));
  ASSERT_EQ(r1.rc, 0) << r1.err;
  const std::string csv_text = slurp(csv);
  // Compared as booleans, with the first difference: gtest's diff of two 3 MB texts would take
  // gigabytes.
  EXPECT_TRUE(csv_text == slurp(csv1))
      << "the CSV depends on the thread count; first difference at byte "
      << first_difference(csv_text, slurp(csv1));

  Csv c = read_csv(csv);
  ASSERT_EQ(c.header, (std::vector<std::string>{"vertex", "level", "parent"}));
  ASSERT_EQ(c.rows.size(), n);
  std::size_t wrong = 0;
  for (std::size_t v = 0; v < n && wrong < 5; ++v) {
    const auto& row = c.rows[v];
    bool ok = row.size() == 3 && row[0] == std::to_string(v + 1);
    if (ok && level[v] < 0) ok = row[1].empty() && row[2].empty();
    if (ok && level[v] >= 0) {
      ok = std::stoll(row[1]) == level[v];
      const std::int64_t parent = std::stoll(row[2]) - 1;
      if (ok && level[v] == 0) ok = parent == static_cast<std::int64_t>(source);
      if (ok && level[v] > 0) {
        ok =
            parent >= 0 && level[parent] == level[v] - 1 &&
            std::find(adj[parent].begin(), adj[parent].end(), std::int64_t(v)) != adj[parent].end();
      }
    }
    if (!ok) {
      ++wrong;
      ADD_FAILURE() << "CSV line of vertex " << v + 1 << " is wrong (level " << level[v] << ")";
    }
  }

  // TSV: the same lines with tabs.
  std::string as_tsv = csv_text;
  std::replace(as_tsv.begin(), as_tsv.end(), ',', '\t');
  const std::string tsv_text = slurp(tsv);
  EXPECT_TRUE(tsv_text == as_tsv) << "the TSV is not the CSV with tabs; first difference at byte "
                                  << first_difference(tsv_text, as_tsv);

  // JSON: one map per column from id to value, holding exactly the CSV's values.
  const Json doc = JsonReader(slurp(json)).parse_document();
  const Json& levels = doc.at("level");
  const Json& parents = doc.at("parent");
  ASSERT_EQ(levels.obj.size(), n);
  ASSERT_EQ(parents.obj.size(), n);
  wrong = 0;
  for (std::size_t v = 0; v < n && wrong < 5; ++v) {
    const std::string id = std::to_string(v + 1);
    const Json& l = levels.at(id);
    const Json& p = parents.at(id);
    const bool ok = level[v] < 0 ? l.kind == Json::Null && p.kind == Json::Null
                                 : l.kind == Json::Number && l.num == double(level[v]) &&
                                       p.kind == Json::String && p.str == c.rows[v][2];
    if (!ok) {
      ++wrong;
      ADD_FAILURE() << "JSON entries of vertex " << id << " are wrong";
    }
  }

  // Labels that CSV must quote (a '"' in each), formatted on several threads: the same bytes as
  // on one, and every label quoted with its quote doubled.
  const std::string el = path("quoted.txt");
  {
    std::ofstream f(el);
    for (const auto& [a, b] : edges) f << "v\"" << a << " v\"" << b << "\n";
  }
  const std::string qargs = "bfs " + q(el) + " --source " + q("v\"0");
  const std::string q3 = path("q3.csv"), q1 = path("q1.csv");
  RunResult rq3 = run(qargs + " --threads 3 -o " + q(q3));
  ASSERT_EQ(rq3.rc, 0) << rq3.err;
  RunResult rq1 = run(qargs + " --threads 1 -o " + q(q1));
  ASSERT_EQ(rq1.rc, 0) << rq1.err;
  const std::string q3_text = slurp(q3);
  EXPECT_TRUE(q3_text == slurp(q1)) << "quoted labels: the CSV depends on the thread count; first "
                                       "difference at byte "
                                    << first_difference(q3_text, slurp(q1));
  const auto qlines = lines_of(q3_text);
  ASSERT_EQ(qlines.size(), n + 1);
  EXPECT_EQ(qlines[1].rfind("\"v\"\"0\",0,", 0), 0u) << qlines[1];  // "v""0",0,"v""0"
  std::size_t unquoted = 0;
  for (std::size_t k = 1; k < qlines.size(); ++k) unquoted += qlines[k].rfind("\"v\"\"", 0) != 0;
  EXPECT_EQ(unquoted, 0u);
}

TEST_F(CliAlgorithms, BfsRejectsUnknownSourceNamingTheRange) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  RunResult r = run("bfs " + q(graph_path("karate.mtx")) + " --source 0");
  EXPECT_EQ(r.rc, 1);
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("1..34"), std::string::npos) << r.err;
}

TEST_F(CliAlgorithms, ComponentsWeakAndStrongNameEachComponentByItsSmallestVertex) {
  // 1 -> 2 -> 3 -> 1 is a cycle, 3 -> 4, and 5 <-> 6; 7 is isolated (edge list: labels).
  const std::string file = path("g.txt");
  {
    std::ofstream f(file);
    f << "a b\nb c\nc a\nc d\ne f\nf e\ng g\n";
  }
  RunResult r = run("components " + q(file) + " -o " + q(path("weak.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("3 components"), std::string::npos) << r.out;
  Csv weak = read_csv(path("weak.csv"));
  ASSERT_EQ(weak.header, (std::vector<std::string>{"vertex", "component"}));
  const std::vector<std::vector<std::string>> want_weak = {
      {"a", "a"}, {"b", "a"}, {"c", "a"}, {"d", "a"}, {"e", "e"}, {"f", "e"}, {"g", "g"}};
  EXPECT_EQ(weak.rows, want_weak);
  r = run("components " + q(file) + " --strong -o " + q(path("strong.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("4 components"), std::string::npos) << r.out;
  const std::vector<std::vector<std::string>> want_strong = {
      {"a", "a"}, {"b", "a"}, {"c", "a"}, {"d", "d"}, {"e", "e"}, {"f", "e"}, {"g", "g"}};
  EXPECT_EQ(read_csv(path("strong.csv")).rows, want_strong);
  r = run("components --help");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("strongly_connected_components"), std::string::npos);
}

TEST_F(CliAlgorithms, KcoreWritesCoreNumbersAndRefusesWhatNetworkxRefuses) {
  // A triangle a-b-c with a tail c-d, given once per edge: --undirected stores both directions.
  const std::string file = path("g.txt");
  {
    std::ofstream f(file);
    f << "a b\nb c\nc a\nc d\n";
  }
  RunResult r = run("kcore " + q(file) + " --undirected -o " + q(path("core.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("largest core number 2"), std::string::npos) << r.out;
  const std::vector<std::vector<std::string>> want = {
      {"a", "2"}, {"b", "2"}, {"c", "2"}, {"d", "1"}};
  EXPECT_EQ(read_csv(path("core.csv")).rows, want);
  // Directed: degree = in + out over the one-way edges, the same numbers here.
  r = run("kcore " + q(file) + " --directed -o " + q(path("dcore.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(read_csv(path("dcore.csv")).rows, want);
  // Undirected mode needs both directions; self-loops are refused.
  r = run("kcore " + q(file));
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("not symmetric"), std::string::npos) << r.err;
  {
    std::ofstream f(file, std::ios::app);
    f << "d d\n";
  }
  r = run("kcore " + q(file) + " --directed");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("self-loops"), std::string::npos) << r.err;
}

TEST_F(CliAlgorithms, KtrussWritesTheTrussEdgesInTheInputsIds) {
  // Two triangles a-b-c and b-c-d sharing b-c (given in mixed directions, with a self-loop and a
  // repeated edge), a pendant edge d-e and an isolated vertex f (a labelled edge list, so the
  // self-loop f f makes f a vertex).
  const std::string file = path("g.txt");
  {
    std::ofstream f(file);
    f << "a b\nc b\na c\nb d\nd c\nc b\nd e\nb b\nf f\n";
  }
  RunResult r = run("ktruss " + q(file) + " --k 3 -o " + q(path("t3.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("3-truss: 5 edges on 4 vertices, of 6 undirected edges"), std::string::npos)
      << r.out;
  Csv t3 = read_csv(path("t3.csv"));
  ASSERT_EQ(t3.header, (std::vector<std::string>{"u", "v"}));
  const std::vector<std::vector<std::string>> want3 = {
      {"a", "b"}, {"a", "c"}, {"b", "c"}, {"b", "d"}, {"c", "d"}};
  EXPECT_EQ(t3.rows, want3);
  // b-c is in two triangles, the others in one: the 4-truss needs two each and is empty.
  r = run("ktruss " + q(file) + " --k 4 -o -");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "u,v\n");
  // k = 2: every edge (no self-loops); the report names the vertices that keep one.
  r = run("ktruss " + q(file) + " --k 2 -o " + q(path("t2.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("6 edges on 5 vertices"), std::string::npos) << r.out;
  EXPECT_EQ(read_csv(path("t2.csv")).rows.size(), 6u);
  // Truss numbers: every edge of the graph.
  r = run("ktruss " + q(file) + " --k 3 --truss-numbers -o " + q(path("n.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("largest truss number 3"), std::string::npos) << r.out;
  Csv n = read_csv(path("n.csv"));
  ASSERT_EQ(n.header, (std::vector<std::string>{"u", "v", "truss"}));
  const std::vector<std::vector<std::string>> numbers = {{"a", "b", "3"}, {"a", "c", "3"},
                                                         {"b", "c", "3"}, {"b", "d", "3"},
                                                         {"c", "d", "3"}, {"d", "e", "2"}};
  EXPECT_EQ(n.rows, numbers);
  // Refusals: no --k, k below 2 (usage errors), an output that is not CSV; nothing written.
  r = run("ktruss " + q(file));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--k"), std::string::npos) << r.err;
  r = run("ktruss " + q(file) + " --k 1 -o " + q(path("never.csv")));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(">= 2"), std::string::npos) << r.err;
  r = run("ktruss " + q(file) + " --k 3 -o " + q(path("t.json")));
  EXPECT_EQ(r.rc, 2);
  EXPECT_FALSE(std::filesystem::exists(path("never.csv")));
  EXPECT_FALSE(std::filesystem::exists(path("t.json")));
  r = run("ktruss --help");
  EXPECT_EQ(r.rc, 0);
  for (const char* needle : {"networkx", "k - 2", "self-loops", "--truss-numbers", "u,v"}) {
    EXPECT_NE(r.out.find(needle), std::string::npos) << needle;
  }
}

TEST_F(CliAlgorithms, KtrussMatchesNetworkxOnKarate) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  for (const char* k : {"3", "4", "5"}) {
    const std::string out = path(std::string("karate") + k + ".csv");
    RunResult r = run("ktruss " + q(graph_path("karate.mtx")) + " --k " + k + " -o " + q(out));
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(slurp(out), slurp(std::string(SPINDLE_SOURCE_DIR) +
                                "/tests/fixtures/networkx/karate.k_truss_" + k + ".csv"))
        << k;
  }
}

// vertex -> value of a networkx fixture (tests/fixtures/networkx).
std::map<std::string, double> nx_fixture(const std::string& name) {
  std::map<std::string, double> m;
  const Csv c = read_csv(std::string(SPINDLE_SOURCE_DIR) + "/tests/fixtures/networkx/" + name);
  for (const auto& row : c.rows) m[row[0]] = std::stod(row[1]);
  return m;
}

TEST_F(CliAlgorithms, HitsAndKatzOutputsMatchNetworkx) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string karate = q(graph_path("karate.mtx"));
  RunResult r = run("hits " + karate + " --precision double -o " + q(path("hits.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("converged yes"), std::string::npos) << r.out;
  Csv hits = read_csv(path("hits.csv"));
  ASSERT_EQ(hits.header, (std::vector<std::string>{"vertex", "hub", "authority"}));
  const auto hubs = nx_fixture("karate.hits_hubs.csv");
  const auto auth = nx_fixture("karate.hits_authorities.csv");
  ASSERT_EQ(hits.rows.size(), 34u);
  for (const auto& row : hits.rows) {
    EXPECT_NEAR(std::stod(row[1]), hubs.at(row[0]), 1e-9) << row[0];
    EXPECT_NEAR(std::stod(row[2]), auth.at(row[0]), 1e-9) << row[0];
  }
  r = run("katz " + karate + " --precision double -o " + q(path("katz.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  Csv katz = read_csv(path("katz.csv"));
  ASSERT_EQ(katz.header, (std::vector<std::string>{"vertex", "katz"}));
  const auto want = nx_fixture("karate.katz.csv");
  ASSERT_EQ(katz.rows.size(), 34u);
  for (const auto& row : katz.rows) EXPECT_NEAR(std::stod(row[1]), want.at(row[0]), 1e-9);
  // alpha above 1 / spectral radius: a warning (networkx raises), or a failure on request.
  r = run("katz " + karate + " --alpha 0.5 --max-iter 50");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("did not converge"), std::string::npos) << r.err;
  r = run("katz " + karate + " --alpha 0.5 --max-iter 50 --fail-on-nonconvergence -o " +
          q(path("never.csv")));
  EXPECT_EQ(r.rc, 1);
  EXPECT_FALSE(std::filesystem::exists(path("never.csv")));
}

TEST_F(CliAlgorithms, BetweennessMatchesNetworkxExactAndWithItsSampledSources) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string karate = q(graph_path("karate.mtx"));
  RunResult r = run("betweenness " + karate + " --batch 5 -o " + q(path("bc.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  Csv bc = read_csv(path("bc.csv"));
  ASSERT_EQ(bc.header, (std::vector<std::string>{"vertex", "betweenness"}));
  auto want = nx_fixture("karate.betweenness.csv");
  ASSERT_EQ(bc.rows.size(), 34u);
  for (const auto& row : bc.rows) EXPECT_NEAR(std::stod(row[1]), want.at(row[0]), 1e-9);
  // networkx's own sampled sources (k = 8, seed 42), given as a file.
  {
    std::ofstream f(path("sources.txt"));
    for (const auto& [v, chosen] : nx_fixture("karate.betweenness_sampled_sources.csv")) {
      if (chosen == 1.0) f << v << "\n";
    }
  }
  r = run("betweenness " + karate + " --sources " + q(path("sources.txt")) + " -o " +
          q(path("bcs.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("8 sources"), std::string::npos) << r.out;
  want = nx_fixture("karate.betweenness_sampled.csv");
  for (const auto& row : read_csv(path("bcs.csv")).rows) {
    EXPECT_NEAR(std::stod(row[1]), want.at(row[0]), 1e-9);
  }
  // karate.mtx is symmetric: unnormalized scores count each unordered pair once.
  r = run("betweenness " + karate + " --no-normalize --endpoints -o " + q(path("raw.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  want = nx_fixture("karate.betweenness_endpoints_raw.csv");
  for (const auto& row : read_csv(path("raw.csv")).rows) {
    EXPECT_NEAR(std::stod(row[1]), want.at(row[0]), 1e-9);
  }
  // The same graph as a .spg file keeps its symmetric flag, so the same undirected scaling.
  ASSERT_EQ(run("convert " + karate + " " + q(path("k.spg"))).rc, 0);
  r = run("betweenness " + q(path("k.spg")) + " --no-normalize --endpoints -o " +
          q(path("raw_spg.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const auto& row : read_csv(path("raw_spg.csv")).rows) {
    EXPECT_NEAR(std::stod(row[1]), want.at(row[0]), 1e-9) << row[0];
  }
  r = run("betweenness " + karate + " -k 3 --sources " + q(path("sources.txt")));
  EXPECT_EQ(r.rc, 2);
}

TEST_F(CliAlgorithms, JaccardScoresEveryEdgeOrTheListedPairs) {
  // Path a - b - c given once per edge, read as undirected.
  const std::string file = path("g.txt");
  {
    std::ofstream f(file);
    f << "a b\nb c\n";
    std::ofstream pairs(path("pairs.txt"));
    pairs << "# candidates\n  a c # the two ends\nc,b\n";
  }
  RunResult r = run("jaccard " + q(file) + " --undirected -o " + q(path("j.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  Csv j = read_csv(path("j.csv"));
  ASSERT_EQ(j.header, (std::vector<std::string>{"u", "v", "jaccard"}));
  EXPECT_EQ(j.rows, (std::vector<std::vector<std::string>>{{"a", "b", "0"}, {"b", "c", "0"}}));
  r = run("jaccard " + q(file) + " --undirected --pairs " + q(path("pairs.txt")) + " -o " +
          q(path("p.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(read_csv(path("p.csv")).rows,
            (std::vector<std::vector<std::string>>{{"a", "c", "1"}, {"c", "b", "0"}}));
  // '-o -': standard output carries the CSV alone; an output that is not .csv is refused.
  r = run("jaccard " + q(file) + " --undirected -o -");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "u,v,jaccard\na,b,0\nb,c,0\n");
  r = run("jaccard " + q(file) + " --undirected -o " + q(path("j.json")));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find(".csv"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("j.json")));
  // A directed graph is refused (networkx's jaccard_coefficient is for undirected graphs).
  r = run("jaccard " + q(file));
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("not symmetric"), std::string::npos) << r.err;
}

TEST_F(CliAlgorithms, SsspOnRandomWeightedEdgeListMatchesDijkstra) {
  std::mt19937_64 rng(77);
  const int n = 60;
  std::map<std::pair<int, int>, double> w;
  for (int k = 0; k < 240; ++k) {
    int u = int(rng() % n), v = int(rng() % n);
    w[{u, v}] = 0.5 + double(rng() % 1000) / 100.0;  // one weight per edge: no duplicates
  }
  std::string text;
  for (auto& [e, x] : w)
    text += "n" + std::to_string(e.first) + " n" + std::to_string(e.second) + " " +
            std::to_string(x) + "\n";
  const std::string file = path("g.txt"), out = path("d.csv");
  { std::ofstream(file) << text; }
  // Dijkstra over the same text (weights as printed).
  std::vector<std::vector<std::pair<int, double>>> adj(n);
  for (auto& [e, x] : w) adj[e.first].push_back({e.second, std::stod(std::to_string(x))});
  const int src = w.begin()->first.first;
  std::vector<double> dist(n, INFINITY);
  std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>>
      pq;
  dist[src] = 0;
  pq.push({0, src});
  while (!pq.empty()) {
    auto [d, u] = pq.top();
    pq.pop();
    if (d > dist[u]) continue;
    for (auto [v, x] : adj[u]) {
      if (d + x < dist[v]) {
        dist[v] = d + x;
        pq.push({dist[v], v});
      }
    }
  }
  RunResult r = run("sssp " + q(file) + " --source n" + std::to_string(src) + " -o " + q(out));
  ASSERT_EQ(r.rc, 0) << r.err;
  Csv c = read_csv(out);
  ASSERT_EQ(c.header, (std::vector<std::string>{"vertex", "distance"}));
  std::set<std::string> seen;
  for (const auto& row : c.rows) {
    const int v = std::stoi(row[0].substr(1));
    seen.insert(row[0]);
    if (std::isinf(dist[v])) {
      EXPECT_EQ(row[1], "") << row[0];
    } else {
      EXPECT_NEAR(std::stod(row[1]), dist[v], 1e-9 * (1 + dist[v])) << row[0];
    }
  }
  EXPECT_EQ(seen.size(), c.rows.size()) << "each vertex once";
}

TEST_F(CliAlgorithms, PowerIterationCentralityIsAPositiveUnitVector) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string out = path("c.csv");
  RunResult r =
      run("power-iteration " + q(graph_path("karate.mtx")) + " --centrality -o " + q(out));
  ASSERT_EQ(r.rc, 0) << r.err;
  Csv c = read_csv(out);
  ASSERT_EQ(c.rows.size(), 34u);
  // Oracle: x <- (A + I) x normalized, on the symmetric karate graph, to a fixed point.
  auto adj = out_lists(graph_path("karate.mtx"));
  std::vector<double> x(34, 1.0 / 34), y(34);
  for (int it = 0; it < 10000; ++it) {
    y = x;
    for (std::size_t u = 0; u < 34; ++u) {
      for (auto v : adj[u]) y[v] += x[u];
    }
    double norm = 0;
    for (double t : y) norm += t * t;
    norm = std::sqrt(norm);
    for (double& t : y) t /= norm;
    x.swap(y);
  }
  for (std::size_t v = 0; v < 34; ++v) EXPECT_NEAR(std::stod(c.rows[v][1]), x[v], 1e-5);
  EXPECT_NE(r.out.find("eigenvalue"), std::string::npos);
}

TEST_F(CliAlgorithms, GcnWritesNpyOfTheLastLayersShapeDeterministically) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string a = path("a.npy"), b = path("b.npy");
  const std::string cmd = "gcn " + q(graph_path("karate.mtx")) +
                          " --feature-dim 5 --layers 8,3 --seed 9 --precision float -o ";
  ASSERT_EQ(run(cmd + q(a)).rc, 0);
  ASSERT_EQ(run(cmd + q(b)).rc, 0);
  auto h = read_npy<float>(a);
  EXPECT_EQ(h.rows(), 34);
  EXPECT_EQ(h.cols(), 3);
  EXPECT_EQ(slurp(a), slurp(b));
  EXPECT_EQ(read_npy_header(a).word_size, 4);
}

}  // namespace
}  // namespace spindle::test
