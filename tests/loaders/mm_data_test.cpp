// SPDX-License-Identifier: Apache-2.0
// Matrix Market reader against the shared data folder: every valid file matches a naive
// line-by-line parser written here; every malformed file is refused with a ParseError.
#include <gtest/gtest.h>

#include <string>

#include "loader_test_util.hpp"
#include "spindle/loaders/matrix_market.hpp"

namespace {

using namespace spindle;
using spindle_test::files_in;
using spindle_test::graphs_dir;
using spindle_test::naive_read_mm;

bool is_special(const std::string& name) {
  return name == "complex.mtx" || name == "full.mtx" || name == "west0067_noheader.mtx";
}

template <class I, class V>
void check_all_graph_files() {
  const auto names = files_in(graphs_dir(), ".mtx");
  ASSERT_GE(names.size(), 20u);
  for (const std::string& name : names) {
    if (is_special(name)) continue;
    const std::string path = graphs_dir() + "/" + name;
    const spindle_test::NaiveMm m = naive_read_mm(path);
    ASSERT_TRUE(m.ok) << name;
    MatrixMarketOptions opt;
    if (m.first_nonfinite_line != 0) {
      // NaN / Inf are refused by default with the line of the first one.
      try {
        (void)read_matrix_market<I, V>(path);
        ADD_FAILURE() << name << ": non-finite value accepted by default";
      } catch (const ParseError& e) {
        EXPECT_EQ(e.line(), m.first_nonfinite_line) << name << ": " << e.what();
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      }
      opt.allow_nonfinite = true;
    }
    const Graph<I, V> g = read_matrix_market<I, V>(path, opt);
    spindle_test::expect_graph_matches(g, m, name);
    const MatrixMarketHeader h = read_matrix_market_header(path);
    EXPECT_EQ(h.rows, m.rows) << name;
    EXPECT_EQ(h.cols, m.cols) << name;
    EXPECT_EQ(h.entries, m.declared) << name;
  }
}

TEST(MatrixMarketData, EveryGraphFileMatchesNaiveParserInt32Double) {
  SPINDLE_REQUIRE_DATA();
  check_all_graph_files<std::int32_t, double>();
}

TEST(MatrixMarketData, EveryGraphFileMatchesNaiveParserInt64Float) {
  SPINDLE_REQUIRE_DATA();
  check_all_graph_files<std::int64_t, float>();
}

TEST(MatrixMarketData, EveryGraphFileMatchesNaiveParserPattern) {
  SPINDLE_REQUIRE_DATA();
  check_all_graph_files<std::int32_t, Pattern>();
}

TEST(MatrixMarketData, SymmetricFilesExpandToTwiceTheOffDiagonalCount) {
  SPINDLE_REQUIRE_DATA();
  // Hand-checked counts: karate.mtx stores 78 strictly-lower pattern entries -> 156 after
  // mirroring; 1138_bus stores 2596 lower entries of which 1138 are diagonal ->
  // 1138 + 2 * 1458 = 4054.
  EXPECT_EQ((read_matrix_market<std::int32_t, Pattern>(graphs_dir() + "/karate.mtx").nnz()), 156);
  EXPECT_EQ((read_matrix_market<std::int32_t, double>(graphs_dir() + "/1138_bus.mtx").nnz()), 4054);
  MatrixMarketOptions keep;
  keep.expand_symmetry = false;
  EXPECT_EQ((read_matrix_market<std::int32_t, double>(graphs_dir() + "/1138_bus.mtx", keep).nnz()),
            2596);
}

TEST(MatrixMarketData, SkewSymmetricMirrorsNegated) {
  SPINDLE_REQUIRE_DATA();
  const auto g = read_matrix_market<std::int32_t, double>(graphs_dir() + "/skew_int32.mtx");
  const auto& t = g.transpose();
  ASSERT_EQ(g.row_ptr(), t.row_ptr());
  ASSERT_EQ(g.col_idx(), t.col_idx());
  for (std::size_t k = 0; k < g.values().size(); ++k) EXPECT_EQ(g.values()[k], -t.values()[k]);
}

TEST(MatrixMarketData, ComplexFileIsUnsupported) {
  SPINDLE_REQUIRE_DATA();
  EXPECT_THROW((read_matrix_market<std::int32_t, double>(graphs_dir() + "/complex.mtx")),
               Unsupported);
  EXPECT_THROW((read_matrix_market_dense<double>(graphs_dir() + "/complex.mtx")), Unsupported);
  // The header alone is valid and says complex.
  EXPECT_EQ(read_matrix_market_header(graphs_dir() + "/complex.mtx").field, MmField::Complex);
}

TEST(MatrixMarketData, HeaderlessFileRefusedUnlessAsked) {
  SPINDLE_REQUIRE_DATA();
  const std::string path = graphs_dir() + "/west0067_noheader.mtx";
  try {
    (void)read_matrix_market<std::int32_t, double>(path);
    FAIL() << "headerless file accepted";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(std::string(e.what()).find("banner"), std::string::npos) << e.what();
  }
  MatrixMarketOptions opt;
  opt.headerless = true;
  const auto g = read_matrix_market<std::int32_t, double>(path, opt);
  // Same entries as the file with a header.
  spindle_test::expect_graph_matches(g, naive_read_mm(graphs_dir() + "/west0067.mtx"),
                                     "west0067_noheader vs west0067");
}

TEST(MatrixMarketData, JumbledFileEqualsOrderedFile) {
  SPINDLE_REQUIRE_DATA();
  const auto a = read_matrix_market<std::int32_t, double>(graphs_dir() + "/west0067.mtx");
  const auto b = read_matrix_market<std::int32_t, double>(graphs_dir() + "/west0067_jumbled.mtx");
  EXPECT_EQ(a.row_ptr(), b.row_ptr());
  EXPECT_EQ(a.col_idx(), b.col_idx());
  EXPECT_EQ(a.values(), b.values());
}

TEST(MatrixMarketData, DuplicatePolicyDecidesRepeatedEntry) {
  SPINDLE_REQUIRE_DATA();
  const std::string path = graphs_dir() + "/duplicates.mtx";  // (2,2) = 3.4 then 7.1
  MatrixMarketOptions opt;
  auto value_22 = [&](const MatrixMarketOptions& o) {
    const auto g = read_matrix_market<std::int32_t, double>(path, o);
    EXPECT_EQ(g.nnz(), 2);
    return g.values()[1];
  };
  EXPECT_DOUBLE_EQ(value_22(opt), 3.4 + 7.1);
  opt.build.duplicates = DuplicatePolicy::KeepFirst;
  EXPECT_EQ(value_22(opt), 3.4);
  opt.build.duplicates = DuplicatePolicy::KeepLast;
  EXPECT_EQ(value_22(opt), 7.1);
  opt.build.duplicates = DuplicatePolicy::Error;
  EXPECT_THROW((read_matrix_market<std::int32_t, double>(path, opt)), InvalidArgument);
}

TEST(MatrixMarketData, DenseArrayFileIsColumnMajor) {
  SPINDLE_REQUIRE_DATA();
  const std::string path = graphs_dir() + "/full.mtx";
  const auto m = read_matrix_market_dense<double>(path);
  ASSERT_EQ(m.rows(), 3);
  ASSERT_EQ(m.cols(), 3);
  // The file lists .646 .709 .754 (column 0) then .276 .679 .655 (column 1) ...
  EXPECT_EQ(m(0, 0), 0.646);
  EXPECT_EQ(m(1, 0), 0.709);
  EXPECT_EQ(m(2, 0), 0.754);
  EXPECT_EQ(m(0, 1), 0.276);
  EXPECT_EQ(m(2, 2), 0.498);
  EXPECT_THROW((read_matrix_market<std::int32_t, double>(path)), InvalidArgument);
}

TEST(MatrixMarketData, EveryBadFileRefusedWithLineAndFileName) {
  SPINDLE_REQUIRE_DATA();
  const auto names = files_in(spindle_test::bad_dir(), ".mtx");
  ASSERT_GE(names.size(), 14u);
  for (const std::string& name : names) {
    const std::string path = spindle_test::bad_dir() + "/" + name;
    for (int variant = 0; variant < 3; ++variant) {
      try {
        if (variant == 0) (void)read_matrix_market<std::int32_t, double>(path);
        if (variant == 1) (void)read_matrix_market<std::int64_t, Pattern>(path);
        if (variant == 2) (void)read_matrix_market_dense<double>(path);
        ADD_FAILURE() << name << " accepted (variant " << variant << ")";
      } catch (const ParseError& e) {
        EXPECT_GT(e.line(), 0) << name << ": " << e.what();
        EXPECT_EQ(e.file(), path);
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      } catch (const InvalidArgument& e) {
        // Only the dense reader on a well-formed coordinate header may say "wrong format".
        EXPECT_EQ(variant, 2) << name << ": " << e.what();
      }
    }
  }
}

}  // namespace
