// SPDX-License-Identifier: Apache-2.0
// Untrusted inputs through every reader, in the ordinary test build:
//  - every fuzz seed and every fuzz regression input (tests/fuzz/{corpus,regressions}/<target>)
//    is read and either accepted or refused with a spindle::Error — never another exception;
//  - NaN / Inf values are refused by default (naming the line) and kept with allow_nonfinite;
//  - dimensions past int32 are refused clearly when read with int32 indices.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "spindle/loaders/edge_list.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/loaders/npy.hpp"

namespace spindle {
namespace {

namespace fs = std::filesystem;

// Shapes the replay builds as CSR (the fuzz harness uses the same limit): larger headers are
// checked through the header and COO readers, which allocate nothing from the header alone.
constexpr std::int64_t kMaxBuildDim = std::int64_t{1} << 22;

std::vector<fs::path> inputs_of(const std::string& target) {
  std::vector<fs::path> files;
  for (const char* kind : {"corpus", "regressions"}) {
    const fs::path dir = fs::path(SPINDLE_FUZZ_DIR) / kind / target;
    if (!fs::exists(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Runs f; returns "" when it completed or threw a spindle::Error, else what escaped.
template <class F>
std::string escapes(F&& f) {
  try {
    f();
  } catch (const Error&) {
  } catch (const std::exception& e) {
    return std::string("non-spindle exception: ") + e.what();
  } catch (...) {
    return "unknown exception";
  }
  return "";
}

class TempDir {
 public:
  TempDir() {
    dir_ = fs::temp_directory_path() /
           ("spindle-reliability-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

 private:
  fs::path dir_;
};

TEST(FuzzInputs, MatrixMarketSeedsAndRegressionsAreAcceptedOrRefusedCleanly) {
  const auto files = inputs_of("matrix_market");
  ASSERT_GE(files.size(), 10u) << "seed corpus missing under " << SPINDLE_FUZZ_DIR;
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    const std::string path = f.string();
    MatrixMarketHeader h;
    bool header_ok = false;
    EXPECT_EQ(escapes([&] {
                h = read_matrix_market_header(path);
                header_ok = true;
              }),
              "");
    MatrixMarketOptions opt;
    opt.progress = false;
    EXPECT_EQ(escapes([&] { (void)read_matrix_market_coo<std::int64_t>(path, opt); }), "");
    EXPECT_EQ(escapes([&] { (void)read_matrix_market_coo<std::int32_t>(path, opt); }), "");
    MatrixMarketOptions headerless = opt;
    headerless.headerless = true;
    EXPECT_EQ(escapes([&] { (void)read_matrix_market_coo<std::int32_t>(path, headerless); }), "");
    if (header_ok && h.rows <= kMaxBuildDim && h.cols <= kMaxBuildDim) {
      EXPECT_EQ(escapes([&] { (void)read_matrix_market<std::int32_t, double>(path, opt); }), "");
      EXPECT_EQ(escapes([&] { (void)read_matrix_market<std::int64_t, Pattern>(path, opt); }), "");
      EXPECT_EQ(escapes([&] { (void)read_matrix_market_dense<double>(path, opt); }), "");
    }
  }
}

TEST(FuzzInputs, EdgeListSeedsAndRegressionsAreAcceptedOrRefusedCleanly) {
  const auto files = inputs_of("edge_list");
  ASSERT_GE(files.size(), 5u) << "seed corpus missing under " << SPINDLE_FUZZ_DIR;
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    EdgeListOptions opt;
    opt.progress = false;
    EXPECT_EQ(escapes([&] { (void)read_edge_list<std::int32_t, float>(f.string(), opt); }), "");
    opt.undirected = true;
    opt.ignore_extra_columns = true;
    EXPECT_EQ(escapes([&] { (void)read_edge_list<std::int64_t, Pattern>(f.string(), opt); }), "");
  }
}

// Labelled edges with their weights, independent of the id remapping.
std::map<std::pair<std::string, std::string>, float> labelled_edges(
    const EdgeListResult<std::int32_t, float>& r) {
  std::map<std::pair<std::string, std::string>, float> m;
  const auto& g = r.graph;
  for (std::int32_t i = 0; i < g.rows(); ++i) {
    for (std::int32_t k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k) {
      m[{r.labels[i], r.labels[g.col_idx()[k]]}] = g.values()[k];
    }
  }
  return m;
}

TEST(FuzzInputs, EdgeListsTheWriterAcceptsReadBackToTheSameLabelledEdges) {
  // The property fuzz_edge_list checks, replayed on every seed and regression input: the
  // writer either refuses a label (InvalidArgument) or writes one that reads back unchanged.
  TempDir tmp;
  int round_trips = 0;
  for (const auto& f : inputs_of("edge_list")) {
    SCOPED_TRACE(f.string());
    // One thread: these files are tiny, and the parallel paths are covered elsewhere.
    EdgeListOptions one;
    one.threads = 1;
    EdgeListWriteOptions wone;
    wone.threads = 1;
    EdgeListResult<std::int32_t, float> g;
    try {
      g = read_edge_list<std::int32_t, float>(f.string(), one);
    } catch (const Error&) {
      continue;
    }
    const std::string out = tmp.write("out.txt", "");
    try {
      write_edge_list(out, g.graph, g.labels, wone);
    } catch (const InvalidArgument&) {
      continue;  // a label that cannot round-trip, refused
    }
    EdgeListOptions back = one;
    back.allow_nonfinite = true;
    const auto g2 = read_edge_list<std::int32_t, float>(out, back);
    EXPECT_EQ(labelled_edges(g2), labelled_edges(g));
    ++round_trips;
  }
  EXPECT_GE(round_trips, 3);
}

TEST(FuzzRegressions, EdgeListLabelStartingWithByteOrderMarkIsRefusedByTheWriter) {
  // Found by fuzz_edge_list (regressions/edge_list/roundtrip-bom-label-4177bc6c.txt): a label
  // that starts with a UTF-8 BOM on a later line was written first in the output, where the
  // reader skips a BOM, so the label silently lost its first three bytes.
  TempDir tmp;
  const std::string p = tmp.write("bom.txt",
                                  "# c\n\xEF\xBB\xBF"
                                  "5 6\n6 7\n");
  const auto g = read_edge_list<std::int32_t, float>(p);
  ASSERT_EQ(g.labels.size(), 3u);
  EXPECT_EQ(g.labels[0],
            "\xEF\xBB\xBF"
            "5");
  EXPECT_THROW(write_edge_list(tmp.write("out.txt", ""), g.graph, g.labels), InvalidArgument);
  const fs::path regression =
      fs::path(SPINDLE_FUZZ_DIR) / "regressions/edge_list/roundtrip-bom-label-4177bc6c.txt";
  ASSERT_TRUE(fs::exists(regression));
  const auto r = read_edge_list<std::int32_t, float>(regression.string());
  EXPECT_THROW(write_edge_list(tmp.write("out2.txt", ""), r.graph, r.labels), InvalidArgument);
}

TEST(FuzzInputs, NpySeedsAndRegressionsAreAcceptedOrRefusedCleanly) {
  const auto files = inputs_of("npy");
  ASSERT_GE(files.size(), 5u) << "seed corpus missing under " << SPINDLE_FUZZ_DIR;
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    EXPECT_EQ(escapes([&] { (void)read_npy_header(f.string()); }), "");
    EXPECT_EQ(escapes([&] { (void)read_npy<double>(f.string()); }), "");
    EXPECT_EQ(escapes([&] { (void)read_npy<float>(f.string()); }), "");
    EXPECT_EQ(escapes([&] { (void)read_npy_vector<double>(f.string()); }), "");
  }
}

TEST(FuzzInputs, EmptyFileIsRefusedByEveryReaderWithoutUndefinedBehavior) {
  // Found by fuzz_matrix_market: a 0-byte file maps to nullptr and reached memchr(nullptr, ...).
  TempDir tmp;
  const std::string p = tmp.write("empty", "");
  EXPECT_THROW((void)read_matrix_market_header(p), ParseError);
  EXPECT_THROW((void)(read_matrix_market<std::int32_t, double>(p)), ParseError);
  EXPECT_THROW((void)read_npy<double>(p), ParseError);
  // An empty edge list is refused too, unless empty graphs are asked for.
  EXPECT_THROW((void)(read_edge_list<std::int32_t, float>(p)), ParseError);
  EdgeListOptions allow;
  allow.allow_empty = true;
  const auto g = read_edge_list<std::int32_t, float>(p, allow);
  EXPECT_EQ(g.graph.rows(), 0);
}

// --- NaN / Inf -------------------------------------------------------------------------------

struct NonFiniteCase {
  const char* token;
  bool is_nan;
  int sign;
};
const NonFiniteCase kNonFinite[] = {{"nan", true, 0},    {"NaN", true, 0},   {"inf", false, 1},
                                    {"-inf", false, -1}, {"+inf", false, 1}, {"Infinity", false, 1},
                                    {"-INF", false, -1}};

void expect_matches(double v, const NonFiniteCase& c) {
  if (c.is_nan) {
    EXPECT_TRUE(std::isnan(v)) << c.token << " read as " << v;
  } else {
    EXPECT_TRUE(std::isinf(v) && (v > 0) == (c.sign > 0)) << c.token << " read as " << v;
  }
}

TEST(NonFinite, MatrixMarketCoordinateRefusesByDefaultNamingTheLineAndKeepsOnRequest) {
  TempDir tmp;
  for (const auto& c : kNonFinite) {
    SCOPED_TRACE(c.token);
    const std::string p =
        tmp.write("nf.mtx", std::string("%%MatrixMarket matrix coordinate real general\n"
                                        "% a comment\n3 3 3\n1 1 1.0\n2 3 ") +
                                c.token + "\n3 2 2.5\n");
    try {
      (void)read_matrix_market<std::int32_t, double>(p);
      ADD_FAILURE() << "accepted a non-finite value by default";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.line(), 5) << e.what();
      EXPECT_NE(std::string(e.what()).find("not finite"), std::string::npos) << e.what();
    }
    MatrixMarketOptions allow;
    allow.allow_nonfinite = true;
    const auto g = read_matrix_market<std::int32_t, double>(p, allow);
    ASSERT_EQ(g.nnz(), 3);
    expect_matches(g.values()[1], c);  // entry (2,3) is the second stored entry
    EXPECT_EQ(g.values()[0], 1.0);
    EXPECT_EQ(g.values()[2], 2.5);
  }
}

TEST(NonFinite, MatrixMarketOverflowingLiteralIsNotSilentlyInfinite) {
  // 1e309 is outside double: it must be refused (as out of range or as Inf), never stored as a
  // finite number, and with allow_nonfinite it must not become a finite value either.
  TempDir tmp;
  const std::string p =
      tmp.write("big.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e309\n");
  EXPECT_THROW((void)(read_matrix_market<std::int32_t, double>(p)), ParseError);
  MatrixMarketOptions allow;
  allow.allow_nonfinite = true;
  try {
    const auto g = read_matrix_market<std::int32_t, double>(p, allow);
    ASSERT_EQ(g.nnz(), 1);
    EXPECT_TRUE(std::isinf(g.values()[0])) << g.values()[0];
  } catch (const ParseError&) {
    // Refusing an out-of-range literal outright is also acceptable.
  }
}

TEST(NonFinite, MatrixMarketArrayAndSymmetricFilesRefuseByDefault) {
  TempDir tmp;
  const std::string arr =
      tmp.write("a.mtx", "%%MatrixMarket matrix array real general\n2 1\n1.5\nnan\n");
  try {
    (void)read_matrix_market_dense<double>(arr);
    ADD_FAILURE() << "dense reader accepted NaN by default";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 4) << e.what();
  }
  MatrixMarketOptions allow;
  allow.allow_nonfinite = true;
  const auto d = read_matrix_market_dense<double>(arr, allow);
  EXPECT_TRUE(std::isnan(d(1, 0)));

  const std::string sym =
      tmp.write("s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n2 1 -inf\n");
  EXPECT_THROW((void)(read_matrix_market<std::int64_t, float>(sym)), ParseError);
  const auto g = read_matrix_market<std::int64_t, float>(sym, allow);
  ASSERT_EQ(g.nnz(), 2);  // mirrored
  EXPECT_TRUE(std::isinf(g.values()[0]) && g.values()[0] < 0);
  EXPECT_TRUE(std::isinf(g.values()[1]) && g.values()[1] < 0);
}

TEST(NonFinite, PatternGraphsFromRealFilesStillRefuseNonFiniteByDefault) {
  // Values are parsed and checked even when V = Pattern drops them (documented).
  TempDir tmp;
  const std::string p =
      tmp.write("p.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 nan\n");
  EXPECT_THROW((void)(read_matrix_market<std::int32_t, Pattern>(p)), ParseError);
}

TEST(NonFinite, EdgeListWeightsRefusedByDefaultNamingTheLineAndKeptOnRequest) {
  TempDir tmp;
  for (const auto& c : kNonFinite) {
    SCOPED_TRACE(c.token);
    const std::string p =
        tmp.write("nf.txt", std::string("# weighted\n0 1 0.5\n1 2 ") + c.token + "\n2 0 4\n");
    try {
      (void)read_edge_list<std::int32_t, double>(p);
      ADD_FAILURE() << "accepted a non-finite weight by default";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.line(), 3) << e.what();
      EXPECT_NE(std::string(e.what()).find("not finite"), std::string::npos) << e.what();
    }
    EdgeListOptions allow;
    allow.allow_nonfinite = true;
    const auto r = read_edge_list<std::int32_t, double>(p, allow);
    ASSERT_EQ(r.graph.nnz(), 3);
    // Labels 0,1,2 appear in that order, so vertex ids equal the labels: (1,2) is row 1's entry.
    ASSERT_EQ(r.graph.row_length(1), 1);
    expect_matches(r.graph.values()[r.graph.row_ptr()[1]], c);
  }
}

TEST(NonFinite, CsvEdgeListRefusesNanWeight) {
  TempDir tmp;
  const std::string p = tmp.write("nf.csv", "a,b,1\nb,c,NaN\n");
  EXPECT_THROW((void)(read_edge_list<std::int32_t, float>(p)), ParseError);
}

// --- int64 -> int32 narrowing at the file boundary ------------------------------------------

TEST(CheckedNarrowing, MatrixMarketRowsPastInt32RefusedForInt32Indices) {
  TempDir tmp;
  for (const char* size :
       {"2147483648 2 0", "2 2147483648 0", "3000000000 3000000000 0", "9223372036854775807 1 0"}) {
    SCOPED_TRACE(size);
    const std::string p = tmp.write(
        "big.mtx", std::string("%%MatrixMarket matrix coordinate pattern general\n") + size + "\n");
    // The header itself is valid and reports the 64-bit sizes.
    const auto h = read_matrix_market_header(p);
    EXPECT_GT(std::max(h.rows, h.cols), std::int64_t{2147483647});
    try {
      (void)read_matrix_market<std::int32_t, Pattern>(p);
      ADD_FAILURE() << "int32 read accepted a dimension past 2^31 - 1";
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_TRUE(m.find("32-bit") != std::string::npos || m.find("int64") != std::string::npos)
          << "message should say the index type is too small: " << m;
    }
    // The raw int64 reader accepts it without allocating from the header (no entries).
    const auto c = read_matrix_market_coo<std::int64_t>(p);
    EXPECT_EQ(c.coo.rows, h.rows);
    EXPECT_EQ(c.coo.size(), 0);
  }
}

TEST(CheckedNarrowing, MatrixMarketLastInt32RowIsAccepted) {
  TempDir tmp;
  const std::string p =
      tmp.write("edge.mtx",
                "%%MatrixMarket matrix coordinate pattern general\n2147483647 1 1\n2147483647 1\n");
  const auto c = read_matrix_market_coo<std::int32_t>(p);
  ASSERT_EQ(c.coo.size(), 1);
  EXPECT_EQ(c.coo.row[0], 2147483646);  // 0-based
  EXPECT_EQ(c.coo.rows, 2147483647);
}

TEST(CheckedNarrowing, DeclaredEntryCountPastInt32IsRefusedNotAllocated) {
  // LAGraph#403 shape: a header that promises more entries than the file holds must be refused
  // before anything is sized from it, for both index types.
  TempDir tmp;
  for (const char* size :
       {"2 2 3000000000", "2 2 18446744073709551615", "2 2 9223372036854775807"}) {
    SCOPED_TRACE(size);
    const std::string p =
        tmp.write("n.mtx", std::string("%%MatrixMarket matrix coordinate real general\n") + size +
                               "\n1 1 1\n");
    EXPECT_THROW((void)(read_matrix_market<std::int32_t, double>(p)), ParseError);
    EXPECT_THROW((void)(read_matrix_market<std::int64_t, double>(p)), ParseError);
  }
}

}  // namespace
}  // namespace spindle
