// SPDX-License-Identifier: Apache-2.0
// Matrix Market reader on hand-made inputs: accepted spellings, and every refusal names the
// right line with the right reason; sizes from the file never size an allocation unchecked.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>

#include "loader_test_util.hpp"
#include "spindle/loaders/matrix_market.hpp"

namespace {

using namespace spindle;

class MmRobust : public ::testing::Test {
 protected:
  spindle_test::TempDir dir;
  std::string put(const std::string& text, const std::string& name = "m.mtx") {
    const std::string p = dir.file(name);
    spindle_test::write_text(p, text);
    return p;
  }
  // Expects a ParseError on `line` whose message contains `needle`.
  template <class F>
  void expect_parse_error(F&& f, std::int64_t line, const std::string& needle) {
    try {
      f();
      ADD_FAILURE() << "accepted; expected an error on line " << line << " about '" << needle
                    << "'";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.line(), line) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("m.mtx"), std::string::npos) << e.what();
    }
  }
  void refuse(const std::string& text, std::int64_t line, const std::string& needle) {
    const std::string p = put(text);
    expect_parse_error([&] { (void)read_matrix_market<std::int32_t, double>(p); }, line, needle);
  }
  Graph<std::int32_t, double> read(const std::string& text, MatrixMarketOptions o = {}) {
    return read_matrix_market<std::int32_t, double>(put(text), o);
  }
};

TEST_F(MmRobust, BannerIsCaseInsensitiveWithAnyBlanks) {
  const auto g = read("%%matrixmarket   MATRIX\tCoordinate  REAL   General \n2 2 1\n1 2 5\n");
  ASSERT_EQ(g.nnz(), 1);
  EXPECT_EQ(g.col_idx()[0], 1);
  EXPECT_EQ(g.values()[0], 5.0);
}

TEST_F(MmRobust, CommentsAndBlankLinesAnywhereAndCrlf) {
  const auto g = read(
      "%%MatrixMarket matrix coordinate real general\r\n\r\n% c\r\n   \r\n%%other\r\n3 3 3\r\n"
      "\r\n1 1 1.5\r\n% between\r\n\r\n  2 3 -2e3  \r\n3 1 +4\r\n\r\n");
  ASSERT_EQ(g.nnz(), 3);
  EXPECT_EQ(g.values()[0], 1.5);
  EXPECT_EQ(g.values()[1], -2000.0);
  EXPECT_EQ(g.values()[2], 4.0);
}

TEST_F(MmRobust, MissingFinalNewlineAndBom) {
  const auto g =
      read("\xEF\xBB\xBF%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n2 2");
  EXPECT_EQ(g.nnz(), 2);
}

TEST_F(MmRobust, BannerErrors) {
  refuse("%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "banner has 4 words");
  refuse("%%MatrixMarketX matrix coordinate real general\n1 1 0\n", 1, "banner starts with");
  refuse("%%MatrixMarket tensor coordinate real general\n1 1 0\n", 1, "unknown object");
  refuse("%%MatrixMarket matrix sparse real general\n1 1 0\n", 1, "unknown format");
  refuse("%%MatrixMarket matrix coordinate float general\n1 1 0\n", 1, "unknown field");
  refuse("%%MatrixMarket matrix coordinate real upper\n1 1 0\n", 1, "unknown symmetry");
  refuse("%%MatrixMarket matrix array pattern general\n1 1\n", 1, "array pattern");
  refuse("%%MatrixMarket matrix coordinate integer hermitian\n1 1 0\n", 1, "hermitian");
  refuse("%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", 1, "skew");
  refuse("", 1, "empty file");
  refuse("1 1 1\n1 1 1\n", 1, "banner");
}

TEST_F(MmRobust, SizeLineErrors) {
  const std::string b = "%%MatrixMarket matrix coordinate real general\n% c\n";
  refuse(b, 3, "end of file before the size line");
  refuse(b + "3 3\n", 3, "size line has 2 fields");
  refuse(b + "3 3 1 1\n", 3, "size line has 4 fields");
  refuse(b + "-3 3 1\n", 3, "negative number of rows");
  refuse(b + "3 x 1\n", 3, "number of columns");
  refuse(b + "3 3 1.5\n", 3, "number of entries");
  refuse(b + "99999999999999999999 3 1\n", 3, "too large");
  refuse(b + "3 3 10\n", 3, "only 9 cells");
  refuse("%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", 2, "must be square");
  refuse("%%MatrixMarket matrix array real general\n3 3 9\n", 2, "size line has 3 fields");
}

TEST_F(MmRobust, Lagraph403HugeEntryCountRefusedQuicklyWithoutAllocating) {
  const std::string p =
      put("%%MatrixMarket matrix coordinate real general\n2 2 18446744073709551615\n1 1 1\n");
  spindle_test::AllocationProbe probe;
  const auto t0 = std::chrono::steady_clock::now();
  expect_parse_error([&] { (void)read_matrix_market<std::int64_t, double>(p); }, 2, "too large");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 0.5);
  EXPECT_LT(probe.max_bytes(), std::size_t{1} << 20);
}

TEST_F(MmRobust, PlausibleButUnbackedCountsNeverSizeAllocations) {
  // 10^11 entries fit the 10^12 cells, but the file holds one line: the count must not size
  // anything (reservations are capped by the bytes in the file), and the file is truncated.
  const std::string p =
      put("%%MatrixMarket matrix coordinate real general\n1000000 1000000 100000000000\n1 1 1\n");
  {
    spindle_test::AllocationProbe probe;
    expect_parse_error([&] { (void)read_matrix_market_coo<std::int64_t>(p); }, 4, "truncated");
    EXPECT_LT(probe.max_bytes(), std::size_t{1} << 20);
  }
  // A dense array whose values could not fit the file is refused on the size line.
  const std::string q =
      put("%%MatrixMarket matrix array real general\n100000 100000\n1\n2\n", "m.mtx");
  spindle_test::AllocationProbe probe;
  expect_parse_error([&] { (void)read_matrix_market_dense<double>(q); }, 2, "declares");
  EXPECT_LT(probe.max_bytes(), std::size_t{1} << 20);
}

TEST_F(MmRobust, EntryErrorsNameTheLine) {
  const std::string b = "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n";
  refuse(b + "0 1 1\n", 4, "row index 0 is out of range 1..3");
  refuse(b + "1 4 1\n", 4, "column index 4 is out of range 1..3");
  refuse(b + "-1 1 1\n", 4, "expected the row index");
  refuse(b + "1 x 1\n", 4, "expected the column index");
  refuse(b + "1 1\n", 4, "missing value");
  refuse(b + "1\n", 4, "missing column index");
  refuse(b + "1 1 abc\n", 4, "expected a real value");
  refuse(b + "1 1 1.5x\n", 4, "expected a real value");
  refuse(b + "1 1 1.5 7\n", 4, "unexpected text after the entry");
  refuse(b + "1 2 3\n2 2 2\n", 5, "more entries than the 2 declared");
  refuse(b, 4, "truncated");
  refuse("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 2.5\n", 3,
         "expected an integer value");
  refuse("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 99999999999999999999\n", 3,
         "outside the 64-bit range");
  refuse("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3,
         "unexpected text after the entry");
  refuse("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n", 3,
         "nonzero diagonal");
}

TEST_F(MmRobust, NonFiniteRefusedByDefaultKeptOnRequest) {
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n1 2 nan\n2 1 -inf\n";
  refuse(text, 4, "NaN");
  MatrixMarketOptions o;
  o.allow_nonfinite = true;
  const auto g = read(text, o);
  ASSERT_EQ(g.nnz(), 3);
  EXPECT_TRUE(std::isnan(g.values()[1]));
  EXPECT_EQ(g.values()[2], -INFINITY);
  // A value beyond the double range reads as Inf, so it is refused the same way.
  refuse("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e999\n", 3, "Inf");
}

TEST_F(MmRobust, SymmetricExpansionAndSelfLoopPolicy) {
  const std::string text =
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n2 1 5\n3 2 -6\n";
  const auto g = read(text);
  // Oracle by hand: (0,0)=4, (1,0)=(0,1)=5, (2,1)=(1,2)=-6.
  ASSERT_EQ(g.nnz(), 5);
  EXPECT_EQ(g.row_ptr(), (std::vector<std::int32_t>{0, 2, 4, 5}));
  EXPECT_EQ(g.col_idx(), (std::vector<std::int32_t>{0, 1, 0, 2, 1}));
  EXPECT_EQ(g.values(), (std::vector<double>{4, 5, 5, -6, -6}));
  MatrixMarketOptions o;
  o.build.self_loops = SelfLoopPolicy::Drop;
  EXPECT_EQ(read(text, o).nnz(), 4);
}

TEST_F(MmRobust, SkewArrayAndIntegerArray) {
  const auto m = read_matrix_market_dense<double>(
      put("%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n"));
  // Strict lower triangle column by column: (1,0)=1, (2,0)=2, (2,1)=3, mirrored negated.
  const double want[3][3] = {{0, -1, -2}, {1, 0, -3}, {2, 3, 0}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(m(i, j), want[i][j]) << i << "," << j;
  }
  const auto s = read_matrix_market_dense<float>(
      put("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n"));
  EXPECT_EQ(s(0, 1), 2.0f);
  EXPECT_EQ(s(1, 0), 2.0f);
  EXPECT_EQ(s(1, 1), 3.0f);
  const std::string p = put("%%MatrixMarket matrix array real general\n2 2\n1.0\n2.0\n3.0\n");
  expect_parse_error([&] { (void)read_matrix_market_dense<double>(p); }, 6, "truncated");
}

TEST_F(MmRobust, DimensionsBeyondInt32AreRefusedForInt32) {
  const std::string p = put("%%MatrixMarket matrix coordinate pattern general\n3000000000 2 0\n");
  EXPECT_THROW((read_matrix_market<std::int32_t, Pattern>(p)), InvalidArgument);
  EXPECT_EQ(read_matrix_market_coo<std::int64_t>(p).coo.rows, 3000000000LL);
  // Legal, but 9e12 rows in a few bytes: refused by the dimension budget (ParseError naming the
  // size line and the option); trusted, CSR offsets for 9e12 rows cannot fit any machine:
  // OutOfMemory with numbers. Both before allocating.
  const std::string q =
      put("%%MatrixMarket matrix coordinate pattern general\n9000000000000 2 1\n1 1\n");
  spindle_test::AllocationProbe probe;
  expect_parse_error([&] { (void)read_matrix_market<std::int64_t, Pattern>(q); }, 2,
                     "trust_dimensions");
  MatrixMarketOptions trust;
  trust.trust_dimensions = true;
  try {
    (void)read_matrix_market<std::int64_t, Pattern>(q, trust);
    ADD_FAILURE() << "9e12 rows accepted";
  } catch (const OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("GB"), std::string::npos) << e.what();
  }
  EXPECT_LT(probe.max_bytes(), std::size_t{1} << 20);
}

TEST_F(MmRobust, EmptyAndOneByOne) {
  const auto e = read("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
  EXPECT_EQ(e.rows(), 0);
  EXPECT_EQ(e.nnz(), 0);
  const auto one = read("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 -0.5\n");
  ASSERT_EQ(one.nnz(), 1);
  EXPECT_EQ(one.values()[0], -0.5);
}

TEST_F(MmRobust, UnreadableFileIsAnError) {
  EXPECT_THROW((read_matrix_market<std::int32_t, double>(dir.file("missing.mtx"))), Error);
  EXPECT_THROW((read_matrix_market<std::int32_t, double>(dir.path())), Error);
}

}  // namespace
