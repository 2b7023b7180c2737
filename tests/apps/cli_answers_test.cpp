// SPDX-License-Identifier: Apache-2.0
// No silent wrong answers (duplicates in both directions, personalization files, overflowing
// distances, CSV header rows, ragged columns, labels in every output format) and a CLI that
// behaves at a terminal (progress, --quiet, --top, examples in every help). Written numbers are
// the shortest "%.*g" (6 significant digits at least) that reads back as the value, and
// SPINDLE_LOG=time splits a command into its phases.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cli_harness.hpp"
#include "cli_process.hpp"
#include "spindle/loaders/matrix_market.hpp"

namespace spindle::test {
namespace {

namespace fs = std::filesystem;

class CliAnswers : public CliTest {
 protected:
  void write_file(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
  }
  /// vertex -> value from a `vertex,value` CSV written by spindle.
  std::map<std::string, double> read_csv_column(const std::string& file) const {
    std::map<std::string, double> m;
    const auto lines = lines_of(slurp(file));
    for (std::size_t i = 1; i < lines.size(); ++i) {
      const auto comma = lines[i].rfind(',');
      m[lines[i].substr(0, comma)] = std::strtod(lines[i].c_str() + comma + 1, nullptr);
    }
    return m;
  }
};

// ---- numbers written --------------------------------------------------------------------

// The reference the writer must match: the smallest precision from 6 that round-trips.
std::string shortest_g_double(double v) {
  char buf[40];
  for (int prec = 6; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string shortest_g_float(float v) {
  char buf[40];
  for (int prec = 6; prec <= 9; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, static_cast<double>(v));
    if (std::strtof(buf, nullptr) == v) break;
  }
  return buf;
}

TEST_F(CliAnswers, RanksAreWrittenAsTheShortestRoundTrippingPrecision) {
  // R-MAT 13's ranks span several magnitudes and need from 6 to 17 digits.
  const std::string g = path("g.mtx");
  ASSERT_EQ(run("generate rmat --scale 13 --edge-factor 8 -o " + q(g)).rc, 0);
  for (const char* precision : {"double", "float"}) {
    const std::string out = path(std::string("r_") + precision + ".csv");
    const RunResult r = run("pagerank " + q(g) + " --device cpu --precision " + precision +
                            " --top 0 --quiet -o " + q(out));
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto lines = lines_of(slurp(out));
    ASSERT_EQ(lines.size(), 8193u);
    std::set<std::size_t> lengths;
    for (std::size_t i = 1; i < lines.size(); ++i) {
      const std::string text = lines[i].substr(lines[i].rfind(',') + 1);
      const std::string want = std::string(precision) == "double"
                                   ? shortest_g_double(std::strtod(text.c_str(), nullptr))
                                   : shortest_g_float(std::strtof(text.c_str(), nullptr));
      ASSERT_EQ(text, want) << precision << " line " << i;
      lengths.insert(text.size());
    }
    EXPECT_GT(lengths.size(), 2u) << precision << ": the values should need several precisions";
  }
}

TEST_F(CliAnswers, TimeLogSplitsTheCommandIntoPhases) {
  const std::string g = path("g.mtx"), out = path("r.csv");
  ASSERT_EQ(run("generate rmat --scale 10 -o " + q(g)).rc, 0);
  const RunResult r = run_env("SPINDLE_LOG=plan",
                              "pagerank " + q(g) + " --device cpu --top 0 --quiet -o " + q(out));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err.find("[spindle time]"), std::string::npos) << "off unless SPINDLE_LOG has time";
  const RunResult t = run_env("SPINDLE_LOG=time",
                              "pagerank " + q(g) + " --device cpu --top 0 --quiet -o " + q(out));
  ASSERT_EQ(t.rc, 0) << t.err;
  for (const char* phase : {"load", "pagerank", "write", "command (main to exit)"}) {
    EXPECT_NE(t.err.find(std::string("[spindle time] ") + phase), std::string::npos)
        << phase << " missing from: " << t.err;
  }
}

// ---- duplicates stated in both directions ------------------------------------------------

TEST_F(CliAnswers, SymmetricFileStoringBothTrianglesIsWarnedAndFollowsThePolicy) {
  // (2,1) and (1,2) are the same element of a symmetric matrix; so are (3,1) and (1,3).
  write_file("both.mtx",
             "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n2 1 5\n1 2 5\n3 1 2\n"
             "1 3 2\n");
  write_file("lower.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 5\n3 1 2\n");
  RunResult summed = run("convert " + q(path("both.mtx")) + " " + q(path("sum.mtx")));
  ASSERT_EQ(summed.rc, 0) << summed.err;
  EXPECT_NE(summed.err.find("warning"), std::string::npos) << summed.err;
  EXPECT_NE(summed.err.find("--duplicates"), std::string::npos) << summed.err;
  RunResult first =
      run("convert --duplicates first " + q(path("both.mtx")) + " " + q(path("first.mtx")));
  ASSERT_EQ(first.rc, 0) << first.err;
  const auto a = read_matrix_market<std::int64_t, double>(path("first.mtx"));
  const auto b = read_matrix_market<std::int64_t, double>(path("lower.mtx"));
  EXPECT_EQ(a.row_ptr(), b.row_ptr());
  EXPECT_EQ(a.col_idx(), b.col_idx());
  EXPECT_EQ(a.values(), b.values()) << "each element counted once";
  // The weighted PageRank of the file with both triangles, counted once, is that of the file
  // that stores only the lower one.
  ASSERT_EQ(run("pagerank --weighted --duplicates first " + q(path("both.mtx")) + " -o " +
                q(path("r1.csv")))
                .rc,
            0);
  ASSERT_EQ(run("pagerank --weighted " + q(path("lower.mtx")) + " -o " + q(path("r2.csv"))).rc, 0);
  EXPECT_EQ(slurp(path("r1.csv")), slurp(path("r2.csv")));
  RunResult refuse = run("info --duplicates error " + q(path("both.mtx")));
  EXPECT_EQ(refuse.rc, 1) << refuse.out;
}

TEST_F(CliAnswers, UndirectedEdgeListWithBothDirectionsIsWarnedAndFollowsThePolicy) {
  write_file("e.txt", "a b 2\nb a 2\nb c 1\n");
  RunResult summed = run("convert --undirected " + q(path("e.txt")) + " " + q(path("s.txt")));
  ASSERT_EQ(summed.rc, 0) << summed.err;
  EXPECT_NE(summed.err.find("both directions"), std::string::npos) << summed.err;
  EXPECT_NE(slurp(path("s.txt")).find("a b 4\n"), std::string::npos) << slurp(path("s.txt"));
  for (const char* policy : {"first", "last", "max", "min"}) {
    RunResult once = run(std::string("convert --undirected --duplicates ") + policy + " " +
                         q(path("e.txt")) + " " + q(path("o.txt")));
    ASSERT_EQ(once.rc, 0) << once.err;
    const std::string out = slurp(path("o.txt"));
    EXPECT_NE(out.find("a b 2\n"), std::string::npos) << policy << "\n" << out;
    EXPECT_NE(out.find("b a 2\n"), std::string::npos) << policy << "\n" << out;
  }
  RunResult error =
      run("convert --undirected --duplicates error " + q(path("e.txt")) + " " + q(path("x.txt")));
  EXPECT_EQ(error.rc, 1);
}

// ---- personalization files -----------------------------------------------------------------

TEST_F(CliAnswers, PersonalizationFileLinesAreCheckedNotSkipped) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string k = q(graph_path("karate.mtx"));
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {Case{"1,abc\n2,1\n", "p.csv:1"}, Case{"1,inf\n2,1\n", "not finite"},
                        Case{"1,nan\n2,1\n", "not finite"}, Case{"2,1\n1,-inf\n", "p.csv:2"},
                        Case{"1,1e999\n2,1\n", "overflows"}}) {
    write_file("p.csv", c.text);
    RunResult r = run("pagerank " + k + " --personalize " + q(path("p.csv")));
    EXPECT_EQ(r.rc, 1) << c.text << r.out;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.text << "\n" << r.err;
  }
  // A header row of words is recognized, and said so.
  write_file("h.csv", "vertex,weight\n1,1\n");
  RunResult h = run("pagerank " + k + " --personalize " + q(path("h.csv")));
  EXPECT_EQ(h.rc, 0) << h.err;
  EXPECT_NE(h.err.find("header"), std::string::npos) << h.err;
}

TEST_F(CliAnswers, PersonalizationWeightsWhoseSumOverflowsAreNormalizedExactly) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string k = q(graph_path("karate.mtx"));
  write_file("big.csv", "1,1e308\n34,1e308\n");
  write_file("one.csv", "1,1\n34,1\n");
  RunResult big =
      run("pagerank " + k + " --personalize " + q(path("big.csv")) + " -o " + q(path("a.csv")));
  ASSERT_EQ(big.rc, 0) << big.err;
  ASSERT_EQ(
      run("pagerank " + k + " --personalize " + q(path("one.csv")) + " -o " + q(path("b.csv"))).rc,
      0);
  const auto a = read_csv_column(path("a.csv")), b = read_csv_column(path("b.csv"));
  ASSERT_EQ(a.size(), 34u);
  double sum = 0;
  for (const auto& [v, x] : a) {
    EXPECT_NEAR(x, b.at(v), 1e-15) << v;
    sum += x;
  }
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

// ---- SSSP: an overflowing distance is not "unreachable" ------------------------------------

TEST_F(CliAnswers, SsspDistanceThatOverflowsIsReportedAsOverflow) {
  write_file("chain.txt", "1 2 1e308\n2 3 1e308\n3 4 1\n");
  RunResult r = run("sssp " + q(path("chain.txt")) + " --source 1 -o " + q(path("d.csv")));
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.err.find("overflows"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("vertex 3"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("d.csv")));
  RunResult f = run("sssp " + q(path("chain.txt")) + " --source 2 --precision float");
  EXPECT_EQ(f.rc, 1) << f.out;
  EXPECT_NE(f.err.find("overflows"), std::string::npos) << f.err;
  // Just below the limit it works, and every vertex is reached.
  write_file("ok.txt", "1 2 8e307\n2 3 8e307\n");
  RunResult ok = run("sssp " + q(path("ok.txt")) + " --source 1");
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_NE(ok.out.find("reached 3 of 3"), std::string::npos) << ok.out;
}

// ---- CSV header rows and ragged columns ----------------------------------------------------

TEST_F(CliAnswers, CsvHeaderRowIsSkippedWithANoteNeverTwoVertices) {
  write_file("h.csv", "source,target\n1,2\n2,3\n");
  RunResult r = run("pagerank " + q(path("h.csv")) + " -o " + q(path("r.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("header"), std::string::npos) << r.err;
  std::set<std::string> ids;
  for (const auto& [v, x] : read_csv_column(path("r.csv"))) ids.insert(v);
  EXPECT_EQ(ids, (std::set<std::string>{"1", "2", "3"}));
  // Text labels: the weight column tells the header apart.
  write_file("w.csv", "from,to,weight\nalice,bob,1.5\nbob,carol,2\n");
  RunResult w = run("info --json " + q(path("w.csv")));
  ASSERT_EQ(w.rc, 0) << w.err;
  EXPECT_EQ(JsonReader(w.out).parse_document().at("rows").num, 3);
  // --header no keeps the line as an edge.
  RunResult no = run("info --json --header no " + q(path("h.csv")));
  ASSERT_EQ(no.rc, 0) << no.err;
  EXPECT_EQ(JsonReader(no.out).parse_document().at("rows").num, 5);
}

TEST_F(CliAnswers, IgnoreExtraColumnsAcceptsRaggedLines) {
  write_file("r.txt", "1 2\n2 3 7 2020-01-01\n3 1 x\n");
  RunResult refused = run("info --json " + q(path("r.txt")));
  EXPECT_EQ(refused.rc, 1);
  EXPECT_NE(refused.err.find("--ignore-extra-columns"), std::string::npos) << refused.err;
  RunResult r = run("info --json --ignore-extra-columns " + q(path("r.txt")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(JsonReader(r.out).parse_document().at("nnz").num, 3);
  write_file("w.txt", "1 2 0.5 x\n2 3 0.25\n3 1 1 y z\n");
  RunResult w = run("info --json --ignore-extra-columns " + q(path("w.txt")));
  ASSERT_EQ(w.rc, 0) << w.err;
  EXPECT_EQ(JsonReader(w.out).parse_document().at("value_type").str, "double");
}

// ---- labels in every output format ---------------------------------------------------------

bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

TEST_F(CliAnswers, LabelsAreEscapedInEveryOutputFormat) {
  // Comma-separated, so labels may hold tabs, quotes, backslashes, any bytes.
  const std::vector<std::string> labels = {"a\tb", "c\"d",      "\xff\xfe",
                                           "x\\y", "e\xc3\xa9", "\x1b[31mred"};
  std::string text;
  for (std::size_t i = 0; i + 1 < labels.size(); ++i)
    text += labels[i] + "," + labels[i + 1] + "\n";
  write_file("l.csv", text);
  const std::set<std::string> want(labels.begin(), labels.end());

  RunResult j = run("pagerank " + q(path("l.csv")) + " -o " + q(path("r.json")));
  ASSERT_EQ(j.rc, 0) << j.err;
  EXPECT_EQ(j.out.find('\x1b'), std::string::npos) << "control bytes reached the terminal";
  const std::string json = slurp(path("r.json"));
  EXPECT_TRUE(valid_utf8(json)) << "the JSON file is not UTF-8";
  Json doc = JsonReader(json).parse_document();
  std::set<std::string> keys;
  for (const auto& [k, v] : doc.at("rank").obj) keys.insert(k);
  EXPECT_EQ(keys.size(), labels.size());
  EXPECT_TRUE(keys.count("c\"d") && keys.count("x\\y") && keys.count("a\tb") &&
              keys.count("e\xc3\xa9"));

  ASSERT_EQ(run("pagerank " + q(path("l.csv")) + " -o " + q(path("r.tsv"))).rc, 0);
  std::set<std::string> tsv;
  const auto tl = lines_of(slurp(path("r.tsv")));
  ASSERT_EQ(tl.size(), labels.size() + 1);
  for (std::size_t i = 1; i < tl.size(); ++i) {
    EXPECT_EQ(std::count(tl[i].begin(), tl[i].end(), '\t'), 1) << "a tab inside a field: " << tl[i];
    std::string field = tl[i].substr(0, tl[i].find('\t')), raw;
    for (std::size_t k = 0; k < field.size(); ++k) {
      if (field[k] == '\\' && k + 1 < field.size()) {
        const char e = field[++k];
        raw += e == 't' ? '\t' : e == 'n' ? '\n' : e == 'r' ? '\r' : e;
      } else {
        raw += field[k];
      }
    }
    tsv.insert(raw);
  }
  EXPECT_EQ(tsv, want);

  ASSERT_EQ(run("pagerank " + q(path("l.csv")) + " -o " + q(path("r.csv"))).rc, 0);
  std::set<std::string> csv;
  const auto cl = lines_of(slurp(path("r.csv")));
  for (std::size_t i = 1; i < cl.size(); ++i) {
    std::string field;
    const std::string& l = cl[i];
    if (!l.empty() && l[0] == '"') {
      std::size_t k = 1;
      for (; k < l.size(); ++k) {
        if (l[k] == '"') {
          if (k + 1 < l.size() && l[k + 1] == '"') {
            field += '"';
            ++k;
          } else {
            break;
          }
        } else {
          field += l[k];
        }
      }
    } else {
      field = l.substr(0, l.rfind(','));
    }
    csv.insert(field);
  }
  EXPECT_EQ(csv, want);

  // A NUL byte is binary data, not a label.
  write_file("nul.txt", std::string("a\0b c\n", 6));
  RunResult nul = run("info " + q(path("nul.txt")));
  EXPECT_EQ(nul.rc, 1);
  EXPECT_NE(nul.err.find("NUL"), std::string::npos) << nul.err;
}

// ---- a CLI that behaves at a terminal ------------------------------------------------------

TEST_F(CliAnswers, LongCommandsShowProgressOnATerminalUnlessQuiet) {
  const std::string g = path("g.mtx"), big = path("big.mtx");
  ASSERT_EQ(run("generate rmat --scale 12 -o " + q(g)).rc, 0);
  ASSERT_EQ(run("generate rmat --scale 17 -o " + q(big)).rc, 0);  // writing it takes a while
  const std::vector<std::string> now = {"SPINDLE_PROGRESS_DELAY=0"};
  struct Case {
    std::vector<std::string> args;
    std::string shows;
  };
  const std::vector<Case> cases = {
      {{"generate", "rmat", "--scale", "12", "-o", path("h.mtx")}, "spindle: generate rmat"},
      {{"convert", big, path("c.el")}, "spindle: writing"},
      {{"gcn", g, "--layers", "16", "-o", path("x.npy")}, "spindle: gcn"},
      {{"pagerank", g, "--tol", "0", "--max-iter", "3000"}, "iteration"},
      {{"power-iteration", g, "--tol", "0", "--max-iter", "3000"}, "iteration"},
  };
  for (const auto& c : cases) {
    PtyRun shown = run_on_pty(c.args, path("out.txt"), now);
    EXPECT_EQ(shown.rc, 0) << c.args[0] << ": " << shown.tty;
    EXPECT_NE(shown.tty.find(c.shows), std::string::npos) << c.args[0] << ": " << shown.tty;
    std::vector<std::string> quiet = c.args;
    quiet.push_back("--quiet");
    PtyRun silent = run_on_pty(quiet, path("out.txt"), now);
    EXPECT_EQ(silent.rc, 0) << c.args[0] << ": " << silent.tty;
    // Warnings stay (the graph has isolated vertices; power iteration at tol 0 does not
    // converge); progress and status lines go.
    for (const auto& line : lines_of(silent.tty)) {
      EXPECT_TRUE(line.rfind("spindle: warning:", 0) == 0 || line.rfind("spindle: note:", 0) == 0)
          << c.args[0] << ": " << line;
    }
  }
  // Not a terminal: nothing but results on stdout and nothing on stderr.
  RunResult piped = run("pagerank " + q(g) + " --top 1");
  EXPECT_EQ(piped.err, "");
}

TEST_F(CliAnswers, BfsAndSsspTakeTop) {
  write_file("p.txt", "1 2 1\n2 3 1\n3 4 5\n1 5 1\n");
  RunResult b = run("bfs " + q(path("p.txt")) + " --source 1 --top 2");
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_NE(b.out.find("     1       4  3"), std::string::npos) << b.out;  // farthest first
  RunResult s = run("sssp " + q(path("p.txt")) + " --source 1 --top 1");
  ASSERT_EQ(s.rc, 0) << s.err;
  EXPECT_NE(s.out.find("     1       4  7"), std::string::npos) << s.out;
  RunResult none = run("sssp " + q(path("p.txt")) + " --source 1 --top 0");
  EXPECT_EQ(none.out.find("rank"), std::string::npos) << none.out;
}

TEST_F(CliAnswers, EveryHelpEndsWithExamples) {
  for (const char* cmd : {"info", "convert", "generate", "pagerank", "power-iteration", "gcn",
                          "bfs", "sssp", "triangles", "ktruss", "bench"}) {
    RunResult r = run(std::string(cmd) + " --help");
    ASSERT_EQ(r.rc, 0) << cmd;
    const auto lines = lines_of(r.out);
    std::size_t last_title = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (!lines[i].empty() && lines[i][0] != ' ' && lines[i].back() == ':') last_title = i;
    }
    EXPECT_EQ(lines[last_title], "Examples:") << cmd << "\n" << r.out;
    EXPECT_GT(lines.size(), last_title + 1) << cmd;
    EXPECT_NE(lines.back().find("spindle " + std::string(cmd)), std::string::npos) << cmd << "\n"
                                                                                   << r.out;
  }
}

}  // namespace
}  // namespace spindle::test
