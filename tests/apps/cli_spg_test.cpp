// SPDX-License-Identifier: Apache-2.0
// The binary .spg format through the CLI: convert there and back, commands give the same answer
// as on the text file, labels survive, damage is one clear error, and convert never overwrites
// its input.
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cli_harness.hpp"
#include "spindle/loaders/edge_list.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/loaders/spg.hpp"

namespace spindle::test {
namespace {

using CliSpg = CliTest;

template <class I, class V>
void expect_same_graph(const Graph<I, V>& a, const Graph<I, V>& b, const std::string& what) {
  EXPECT_EQ(a.rows(), b.rows()) << what;
  EXPECT_EQ(a.cols(), b.cols()) << what;
  EXPECT_EQ(a.row_ptr(), b.row_ptr()) << what;
  EXPECT_EQ(a.col_idx(), b.col_idx()) << what;
  EXPECT_EQ(a.values(), b.values()) << what;
}

TEST_F(CliSpg, ConvertToSpgAndBackKeepsTheMatrix) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  for (const char* name : {"karate.mtx", "west0067.mtx", "lp_afiro.mtx", "skew_int32.mtx"}) {
    const std::string mtx = graph_path(name);
    RunResult to = run("convert " + q(mtx) + " " + q(path("g.spg")));
    ASSERT_EQ(to.rc, 0) << name << ": " << to.err;
    RunResult back = run("convert " + q(path("g.spg")) + " " + q(path("back.mtx")));
    ASSERT_EQ(back.rc, 0) << name << ": " << back.err;
    const auto want = read_matrix_market<std::int64_t, double>(mtx);
    expect_same_graph(want, read_matrix_market<std::int64_t, double>(path("back.mtx")), name);
    expect_same_graph(want, read_spg<std::int64_t, double>(path("g.spg")).graph, name);
    RunResult info = run("info --json " + q(path("g.spg")));
    ASSERT_EQ(info.rc, 0) << info.err;
    const Json j = JsonReader(info.out).parse_document();
    EXPECT_EQ(j.at("format").str, "spg") << name;
    EXPECT_EQ(j.at("nnz").num, static_cast<double>(want.nnz())) << name;
  }
  // --format spg with any name; --pattern drops the values.
  RunResult fmt = run("convert " + q(graph_path("karate.mtx")) + " " + q(path("k.bin")) +
                      " --format spg --pattern");
  ASSERT_EQ(fmt.rc, 0) << fmt.err;
  const SpgHeader h = read_spg_header(path("k.bin"));
  EXPECT_EQ(h.values, ValueKind::Pattern);
  EXPECT_TRUE(h.symmetric);  // karate.mtx is a symmetric file
}

TEST_F(CliSpg, GenerateWritesTheSameGraphAsSpgAndAsMtx) {
  ASSERT_EQ(run("generate rmat --scale 9 --edge-factor 8 -o " + q(path("g.spg"))).rc, 0);
  ASSERT_EQ(run("generate rmat --scale 9 --edge-factor 8 -o " + q(path("g.mtx"))).rc, 0);
  const auto a = read_spg<std::int32_t, Pattern>(path("g.spg"));
  EXPECT_EQ(a.header.values, ValueKind::Pattern);
  EXPECT_FALSE(a.header.has_labels);
  expect_same_graph(a.graph, read_matrix_market<std::int32_t, Pattern>(path("g.mtx")), "rmat 9");
}

TEST_F(CliSpg, PagerankOnSpgGivesTheSameRanksAsOnTheTextFile) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  for (const char* name : {"karate.mtx", "karate.csv", "west0067.mtx"}) {
    const std::string text = graph_path(name);
    ASSERT_EQ(run("convert " + q(text) + " " + q(path("g.spg"))).rc, 0) << name;
    ASSERT_EQ(run("pagerank " + q(text) + " -o " + q(path("a.csv"))).rc, 0) << name;
    // A name without the extension: found by the magic bytes.
    std::filesystem::rename(path("g.spg"), path("g.data"));
    RunResult r = run("pagerank " + q(path("g.data")) + " -o " + q(path("b.csv")));
    ASSERT_EQ(r.rc, 0) << name << ": " << r.err;
    EXPECT_EQ(slurp(path("a.csv")), slurp(path("b.csv"))) << name;
    std::filesystem::remove(path("g.data"));
  }
}

// The labelled edges of a graph, as text pairs (independent of the vertex numbering).
template <class I, class V>
std::set<std::pair<std::string, std::string>> labelled_edges(const Graph<I, V>& g,
                                                             const std::vector<std::string>& l) {
  std::set<std::pair<std::string, std::string>> out;
  for (I i = 0; i < g.rows(); ++i) {
    for (I k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k) {
      out.emplace(l[static_cast<std::size_t>(i)], l[static_cast<std::size_t>(g.col_idx()[k])]);
    }
  }
  return out;
}

TEST_F(CliSpg, EdgeListLabelsLiveInsideTheSpgFile) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  ASSERT_EQ(run("convert " + q(graph_path("karate.csv")) + " " + q(path("k.spg"))).rc, 0);
  const auto a = read_edge_list<std::int32_t, Pattern>(graph_path("karate.csv"));
  const auto s = read_spg<std::int32_t, Pattern>(path("k.spg"));
  EXPECT_EQ(s.labels, a.labels);
  EXPECT_TRUE(s.header.labels_are_integers);
  expect_same_graph(a.graph, s.graph, "karate.csv as .spg");
  EXPECT_FALSE(std::filesystem::exists(path("k.spg.labels")));
  // Back to an edge list: the same labelled edges (numbered anew by first appearance).
  ASSERT_EQ(run("convert " + q(path("k.spg")) + " " + q(path("k.csv"))).rc, 0);
  const auto b = read_edge_list<std::int32_t, Pattern>(path("k.csv"));
  EXPECT_EQ(labelled_edges(a.graph, a.labels), labelled_edges(b.graph, b.labels));
}

TEST_F(CliSpg, DamagedSpgIsOneClearErrorAndConvertNeverOverwritesItsInput) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  ASSERT_EQ(run("convert " + q(graph_path("west0067.mtx")) + " " + q(path("w.spg"))).rc, 0);
  std::string bytes = slurp(path("w.spg"));
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x40);
  {
    std::FILE* f = std::fopen(path("bad.spg").c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  RunResult r = run("pagerank " + q(path("bad.spg")));
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("bad.spg"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("checksum mismatch"), std::string::npos) << r.err;
  std::filesystem::resize_file(path("bad.spg"), 100);
  r = run("info " + q(path("bad.spg")));
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("truncated header"), std::string::npos) << r.err;
  const std::string before = slurp(path("w.spg"));
  r = run("convert " + q(path("w.spg")) + " " + q(path("w.spg")));
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_EQ(slurp(path("w.spg")), before);
  r = run("convert " + q(path("w.spg")) + " " + q(path("w2.spg")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(slurp(path("w2.spg")), before);  // deterministic bytes
}

}  // namespace
}  // namespace spindle::test
