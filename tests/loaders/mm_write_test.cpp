// SPDX-License-Identifier: Apache-2.0
// Matrix Market writers: write -> read gives back the same bits for every value type, the text
// matches a naive parser, output is identical for any thread count, and files appear atomically.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "loader_test_util.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/loaders/matrix_market.hpp"

namespace {

using namespace spindle;
using spindle_test::random_coo;

struct Shape {
  std::int64_t rows, cols, entries;
};
const Shape kShapes[] = {{0, 0, 0},  {1, 1, 1},        {1, 1, 0},       {7, 3, 20},
                         {3, 9, 15}, {200, 200, 3000}, {1000, 50, 4000}};

template <class I, class V>
void round_trip_all_shapes() {
  spindle_test::TempDir dir;
  unsigned seed = 11;
  for (const Shape& s : kShapes) {
    const Graph<I, V> g = build_graph<I, V>(
        random_coo<I>(s.rows, s.cols, s.entries, ++seed, std::is_same_v<V, float>));
    const std::string p = dir.file("g.mtx");
    write_matrix_market(p, g);
    const Graph<I, V> back = read_matrix_market<I, V>(p);
    ASSERT_EQ(back.rows(), g.rows());
    ASSERT_EQ(back.cols(), g.cols());
    EXPECT_EQ(back.row_ptr(), g.row_ptr());
    EXPECT_EQ(back.col_idx(), g.col_idx());
    EXPECT_EQ(back.values(), g.values());  // bitwise: shortest round-trip text
    // Independent check of the text: the naive parser sees the same cells and field.
    const spindle_test::NaiveMm m = spindle_test::naive_read_mm(p);
    EXPECT_EQ(m.field, is_pattern_v<V> ? "pattern" : "real");
    EXPECT_EQ(m.declared, static_cast<std::int64_t>(g.nnz()));
    spindle_test::expect_graph_matches(g, m, "naive view of written file");
  }
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"g.mtx"}));  // no temporaries left
}

TEST(MatrixMarketWrite, RoundTripInt32Double) { round_trip_all_shapes<std::int32_t, double>(); }
TEST(MatrixMarketWrite, RoundTripInt32Float) { round_trip_all_shapes<std::int32_t, float>(); }
TEST(MatrixMarketWrite, RoundTripInt32Pattern) { round_trip_all_shapes<std::int32_t, Pattern>(); }
TEST(MatrixMarketWrite, RoundTripInt64Double) { round_trip_all_shapes<std::int64_t, double>(); }
TEST(MatrixMarketWrite, RoundTripInt64Float) { round_trip_all_shapes<std::int64_t, float>(); }
TEST(MatrixMarketWrite, RoundTripInt64Pattern) { round_trip_all_shapes<std::int64_t, Pattern>(); }

TEST(MatrixMarketWrite, SymmetricWritesLowerTriangleAndReadsBackEqual) {
  spindle_test::TempDir dir;
  BuildOptions sym;
  sym.symmetrize = true;
  sym.duplicates = DuplicatePolicy::KeepFirst;
  const auto g = build_graph<std::int32_t, double>(random_coo<std::int32_t>(60, 60, 500, 5), sym);
  MatrixMarketWriteOptions o;
  o.symmetry = MmSymmetry::Symmetric;
  o.comments = {"written by a test", "two\nlines"};
  const std::string p = dir.file("s.mtx");
  write_matrix_market(p, g, o);
  const std::string text = spindle_test::read_text(p);
  EXPECT_EQ(text.rfind("%%MatrixMarket matrix coordinate real symmetric\n% written by a test\n"
                       "% two lines\n",
                       0),
            0u);
  std::int64_t lower = 0;
  for (std::int32_t i = 0; i < g.rows(); ++i) {
    for (auto k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k) lower += g.col_idx()[k] <= i;
  }
  EXPECT_EQ(spindle_test::naive_read_mm(p).declared, lower);
  const auto back = read_matrix_market<std::int32_t, double>(p);
  EXPECT_EQ(back.col_idx(), g.col_idx());
  EXPECT_EQ(back.values(), g.values());
}

TEST(MatrixMarketWrite, NonSymmetricRefusedAndExistingFileUntouched) {
  spindle_test::TempDir dir;
  const std::string p = dir.file("keep.mtx");
  spindle_test::write_text(p, "old content");
  const auto g = build_graph<std::int32_t, double>(random_coo<std::int32_t>(30, 30, 100, 6));
  MatrixMarketWriteOptions o;
  o.symmetry = MmSymmetry::Symmetric;
  EXPECT_THROW(write_matrix_market(p, g, o), InvalidArgument);
  o.symmetry = MmSymmetry::Hermitian;
  EXPECT_THROW(write_matrix_market(p, g, o), InvalidArgument);
  EXPECT_EQ(spindle_test::read_text(p), "old content");
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"keep.mtx"}));
  EXPECT_THROW(write_matrix_market(dir.file("no/such/dir.mtx"), g), Error);
}

TEST(MatrixMarketWrite, OutputIdenticalForAnyThreadCount) {
  spindle_test::TempDir dir;
  Coo<std::int32_t> coo = generate_rmat<std::int32_t>(15, 24, 9);
  for (std::int64_t k = 0; k < coo.size(); ++k) coo.val.push_back(1.0 / static_cast<double>(k + 3));
  const auto g = build_graph<std::int32_t, double>(std::move(coo));
  ASSERT_GT(g.nnz(), 1 << 19);  // several formatting blocks of 2^18 entries
  std::string first;
  for (int threads : {1, 2, 3}) {
    MatrixMarketWriteOptions o;
    o.threads = threads;
    write_matrix_market(dir.file("t.mtx"), g, o);
    const std::string text = spindle_test::read_text(dir.file("t.mtx"));
    if (first.empty()) {
      first = text;
    } else {
      EXPECT_TRUE(text == first) << "threads " << threads;
    }
  }
}

template <class T>
void dense_round_trip() {
  spindle_test::TempDir dir;
  std::mt19937 rng(3);
  for (auto [r, c] : std::vector<std::pair<int, int>>{{0, 0}, {1, 1}, {1, 7}, {9, 1}, {33, 17}}) {
    DenseMatrix<T> m(r, c);
    for (int i = 0; i < r; ++i) {
      for (int j = 0; j < c; ++j) {
        m(i, j) = static_cast<T>(std::ldexp(static_cast<double>(rng()) - 2e9, -(int)(rng() % 60)));
      }
    }
    const std::string p = dir.file("d.mtx");
    write_matrix_market_dense(p, m);
    const auto back = read_matrix_market_dense<T>(p);
    ASSERT_EQ(back.rows(), r);
    ASSERT_EQ(back.cols(), c);
    EXPECT_EQ(back.storage(), m.storage());
    // The file is column-major: the second value line is m(1, 0) (or m(0, 1) for one row).
    if (r * c >= 2) {
      std::istringstream text(spindle_test::read_text(p));
      std::string line;
      std::getline(text, line);  // banner
      std::getline(text, line);  // size
      std::getline(text, line);
      std::getline(text, line);
      EXPECT_EQ(static_cast<T>(std::strtod(line.c_str(), nullptr)), r >= 2 ? m(1, 0) : m(0, 1));
    }
  }
}

TEST(MatrixMarketWrite, DenseRoundTripDouble) { dense_round_trip<double>(); }
TEST(MatrixMarketWrite, DenseRoundTripFloat) { dense_round_trip<float>(); }

}  // namespace
