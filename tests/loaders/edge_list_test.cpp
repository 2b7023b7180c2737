// SPDX-License-Identifier: Apache-2.0
// Edge lists: label remapping in first-appearance order against a naive reader written here,
// separators, comments, CRLF, weights, undirected, errors with lines, and label-aware writing.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "loader_test_util.hpp"
#include "spindle/loaders/edge_list.hpp"

namespace {

using namespace spindle;

// Naive oracle: whitespace or comma tokens, '#'/'%' comments, first appearance ids.
struct NaiveEdges {
  std::vector<std::string> labels;
  std::map<std::pair<std::int64_t, std::int64_t>, double> cells;  // duplicates summed
  std::int64_t lines = 0;
};

NaiveEdges naive_edges(const std::string& path, bool undirected) {
  NaiveEdges out;
  std::map<std::string, std::int64_t> id;
  std::ifstream f(path, std::ios::binary);
  std::string line;
  auto get = [&](const std::string& l) {
    auto it = id.find(l);
    if (it != id.end()) return it->second;
    out.labels.push_back(l);
    return id[l] = static_cast<std::int64_t>(out.labels.size()) - 1;
  };
  while (std::getline(f, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    for (char& c : line) {
      if (c == ',' || c == '\t') c = ' ';
    }
    std::istringstream t(line);
    std::string a, b, w;
    if (!(t >> a) || a[0] == '#' || a[0] == '%') continue;
    t >> b;
    const double v = (t >> w) ? std::strtod(w.c_str(), nullptr) : 1.0;
    const std::int64_t s = get(a), d = get(b);
    out.cells[{s, d}] += v;
    if (undirected && s != d) out.cells[{d, s}] += v;
  }
  return out;
}

template <class V>
void expect_matches(const EdgeListResult<std::int32_t, V>& r, const NaiveEdges& n,
                    const std::string& what) {
  ASSERT_EQ(r.labels, n.labels) << what;
  const auto& g = r.graph;
  ASSERT_EQ(static_cast<std::size_t>(g.rows()), n.labels.size()) << what;
  ASSERT_EQ(static_cast<std::size_t>(g.nnz()), n.cells.size()) << what;
  auto it = n.cells.begin();
  for (std::int32_t i = 0; i < g.rows(); ++i) {
    for (auto k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k, ++it) {
      ASSERT_EQ(it->first.first, i) << what;
      ASSERT_EQ(it->first.second, g.col_idx()[k]) << what;
      if constexpr (!is_pattern_v<V>) {
        if (r.weighted) {
          EXPECT_DOUBLE_EQ(g.values()[k], it->second) << what;
        }
      }
    }
  }
}

TEST(EdgeListData, EveryEdgeListFileMatchesNaiveReader) {
  SPINDLE_REQUIRE_DATA();
  std::vector<std::string> names = spindle_test::files_in(spindle_test::graphs_dir(), ".csv");
  for (const auto& t : spindle_test::files_in(spindle_test::graphs_dir(), ".txt"))
    names.push_back(t);
  ASSERT_GE(names.size(), 7u);
  for (const std::string& name : names) {
    const std::string path = spindle_test::graphs_dir() + "/" + name;
    for (bool undirected : {false, true}) {
      EdgeListOptions o;
      o.undirected = undirected;
      const auto r = read_edge_list<std::int32_t, double>(path, o);
      expect_matches(r, naive_edges(path, undirected), name);
      EXPECT_TRUE(r.labels_are_integers) << name;
    }
  }
}

TEST(EdgeListData, As20graphCrlfCommentsAndNonContiguousIds) {
  SPINDLE_REQUIRE_DATA();
  const std::string path = spindle_test::graphs_dir() + "/as20graph.txt";
  const auto r = read_edge_list<std::int32_t, Pattern>(path);
  // The header comment says "Nodes: 6474 Edges: 26467" (each edge saved twice).
  EXPECT_EQ(r.graph.rows(), 6474);
  EXPECT_EQ(r.graph.nnz(), 26467);
  EXPECT_FALSE(r.weighted);
  EXPECT_EQ(r.labels[0], "1");  // the first edge line is "1\t3"
  EXPECT_EQ(r.labels[1], "3");
  const auto raw = read_edge_list_coo<std::int64_t>(path);
  EXPECT_EQ(raw.coo.size(), 26467);
  EXPECT_TRUE(raw.coo.val.empty());
}

class EdgeListText : public ::testing::Test {
 protected:
  spindle_test::TempDir dir;
  std::string put(const std::string& text) {
    const std::string p = dir.file("e.txt");
    spindle_test::write_text(p, text);
    return p;
  }
  void refuse(const std::string& text, std::int64_t line, const std::string& needle,
              EdgeListOptions o = {}) {
    const std::string p = put(text);
    try {
      (void)read_edge_list<std::int32_t, double>(p, o);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const ParseError& e) {
      EXPECT_EQ(e.line(), line) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("e.txt"), std::string::npos) << e.what();
    }
  }
};

TEST_F(EdgeListText, StringLabelsAndMixedSeparators) {
  const std::string p =
      put("# people\r\nalice,bob,1.5\r\n  bob , carol , 2\r\n\r\n% other comment\r\n"
          "carol\talice\t-3e2\r\nNew York,alice,4\r\n");
  const auto r = read_edge_list<std::int32_t, double>(p);
  EXPECT_EQ(r.labels, (std::vector<std::string>{"alice", "bob", "carol", "New York"}));
  EXPECT_FALSE(r.labels_are_integers);
  EXPECT_TRUE(r.weighted);
  // By hand (the naive reader would split "New York"): alice->bob 1.5, bob->carol 2,
  // carol->alice -300, New York->alice 4.
  EXPECT_EQ(r.graph.row_ptr(), (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(r.graph.col_idx(), (std::vector<std::int32_t>{1, 2, 0, 0}));
  EXPECT_EQ(r.graph.values(), (std::vector<double>{1.5, 2, -300, 4}));
}

TEST_F(EdgeListText, SparseNegativeAndHugeIntegerLabels) {
  const std::string p =
      put("-5 1000000000000\n1000000000000 7\n007 7\n99999999999999999999999 -5\n");
  const auto r = read_edge_list<std::int64_t, Pattern>(p);
  // First appearance: -5, 1000000000000, 7, 007, 99999999999999999999999.
  EXPECT_EQ(r.labels, (std::vector<std::string>{"-5", "1000000000000", "7", "007",
                                                "99999999999999999999999"}));
  EXPECT_EQ(r.graph.nnz(), 4);
  EXPECT_FALSE(r.labels_are_integers);  // the last one does not fit 64 bits
  const auto q = read_edge_list<std::int32_t, Pattern>(put("-5 100\n100 -7\n"));
  EXPECT_TRUE(q.labels_are_integers);
  EXPECT_EQ(q.labels, (std::vector<std::string>{"-5", "100", "-7"}));
}

TEST_F(EdgeListText, UndirectedAddsReverseEdges) {
  const std::string p = put("1 2 0.5\n2 3 1\n3 3 2\n");
  const auto d = read_edge_list<std::int32_t, double>(p);
  EXPECT_EQ(d.graph.nnz(), 3);
  EdgeListOptions o;
  o.undirected = true;
  const auto u = read_edge_list<std::int32_t, double>(p, o);
  EXPECT_EQ(u.graph.nnz(), 5);  // two edges both ways + one self-loop
  expect_matches(u, naive_edges(p, true), "undirected");
  o.build.self_loops = SelfLoopPolicy::Drop;
  EXPECT_EQ((read_edge_list<std::int32_t, double>(p, o).graph.nnz()), 4);
}

TEST_F(EdgeListText, ErrorsNameTheLine) {
  refuse("# c\n1 2\n3\n", 3, "missing destination column");
  refuse("1 2 1.0\n3 4\n", 2, "2 fields, expected 3");
  refuse("1 2\n3 4 5\n", 2, "3 fields, expected 2");
  refuse("1 2 x\n", 1, "expected a numeric weight");
  refuse("1 2 1.5.5\n", 1, "expected a numeric weight");
  refuse("1,,2\n", 1, "empty field");
  refuse("1 2 3 4\n", 1, "4 fields");
  refuse("1 2 1\n2 3 nan\n", 2, "not finite");
  EdgeListOptions keep;
  keep.allow_nonfinite = true;
  const auto r = read_edge_list<std::int32_t, double>(put("1 2 1\n2 3 nan\n"), keep);
  EXPECT_EQ(r.graph.nnz(), 2);
  EdgeListOptions extra;
  extra.ignore_extra_columns = true;
  EXPECT_EQ((read_edge_list<std::int32_t, double>(put("1 2 1 99\n2 3 4 5 6\n"), extra).graph.nnz()),
            2);
}

TEST_F(EdgeListText, EmptyAndCommentOnlyFilesAreRefusedUnlessAllowed) {
  // An empty edge list is more often a failed producer than an empty graph: refused by default.
  EXPECT_THROW((read_edge_list<std::int32_t, double>(put(""))), ParseError);
  EXPECT_THROW((read_edge_list<std::int32_t, double>(put("# only\n% comments\n\n"))), ParseError);
  EdgeListOptions o;
  o.allow_empty = true;
  EXPECT_EQ((read_edge_list<std::int32_t, double>(put(""), o).graph.rows()), 0);
  EXPECT_EQ((read_edge_list<std::int32_t, double>(put("# only\n% comments\n\n"), o).graph.rows()),
            0);
}

TEST_F(EdgeListText, WriterRoundTripsLabelsAndWeights) {
  const std::string p = put("b a 0.1\nc b 1e-300\na c -7\nd d 3\n");
  const auto r = read_edge_list<std::int32_t, double>(p);
  for (char sep : {' ', '\t', ','}) {
    EdgeListWriteOptions w;
    w.separator = sep;
    w.comments = {"header", "two\nlines"};
    const std::string out = dir.file("out.txt");
    write_edge_list(out, r.graph, r.labels, w);
    const auto back = read_edge_list<std::int32_t, double>(out);
    // Rows are written in id order, so the labels come back in the same order.
    EXPECT_EQ(back.labels, r.labels);
    EXPECT_EQ(back.graph.col_idx(), r.graph.col_idx());
    EXPECT_EQ(back.graph.values(), r.graph.values());
    EXPECT_EQ(spindle_test::read_text(out).rfind("# header\n# two\n# lines\n", 0), 0u);
  }
  // Without labels, 0-based ids are written.
  write_edge_list(dir.file("ids.txt"), r.graph);
  EXPECT_EQ(spindle_test::read_text(dir.file("ids.txt")).substr(0, 8), "0 1 0.1\n");
  EXPECT_EQ(dir.list().size(), 3u);  // e.txt, out.txt, ids.txt: no temporaries
}

TEST_F(EdgeListText, WriterRefusesLabelsThatCannotRoundTrip) {
  const auto r = read_edge_list<std::int32_t, Pattern>(put("New York,Boston\n"));
  EXPECT_THROW(write_edge_list(dir.file("x.txt"), r.graph, r.labels), InvalidArgument);
  EdgeListWriteOptions csv;
  csv.separator = ',';
  write_edge_list(dir.file("x.txt"), r.graph, r.labels, csv);
  EXPECT_EQ((read_edge_list<std::int32_t, Pattern>(dir.file("x.txt")).labels), r.labels);
  EXPECT_THROW(write_edge_list(dir.file("y.txt"), r.graph, std::vector<std::string>{"one"}),
               InvalidArgument);
  EdgeListWriteOptions bad;
  bad.separator = ';';
  EXPECT_THROW(write_edge_list(dir.file("y.txt"), r.graph, r.labels, bad), InvalidArgument);
}

TEST_F(EdgeListText, UpperTriangleOnlyWritesEachUndirectedEdgeOnce) {
  EdgeListOptions o;
  o.undirected = true;
  const auto r = read_edge_list<std::int32_t, Pattern>(put("1 2\n2 3\n3 1\n"), o);
  ASSERT_EQ(r.graph.nnz(), 6);
  EdgeListWriteOptions w;
  w.upper_triangle_only = true;
  write_edge_list(dir.file("u.txt"), r.graph, r.labels, w);
  const auto back = read_edge_list<std::int32_t, Pattern>(dir.file("u.txt"), o);
  EXPECT_EQ(back.graph.nnz(), 6);
  EXPECT_EQ(spindle_test::read_text(dir.file("u.txt")), "1 2\n1 3\n2 3\n");
}

TEST_F(EdgeListText, ResultIndependentOfThreadCount) {
  std::string text;
  std::mt19937 rng(8);
  for (int k = 0; k < 60000; ++k) {
    text += std::to_string(rng() % 5000 * 7919) + "," + std::to_string(rng() % 5000) + "," +
            std::to_string((rng() % 100) / 4.0) + "\n";
  }
  const std::string p = put(text);
  EdgeListOptions o;
  o.threads = 1;
  const auto a = read_edge_list<std::int32_t, double>(p, o);
  for (int t : {2, 3, 8}) {
    o.threads = t;
    const auto b = read_edge_list<std::int32_t, double>(p, o);
    EXPECT_EQ(a.labels, b.labels);
    EXPECT_EQ(a.graph.col_idx(), b.graph.col_idx());
    EXPECT_EQ(a.graph.values(), b.graph.values());
  }
  expect_matches(a, naive_edges(p, false), "generated");
}

}  // namespace
