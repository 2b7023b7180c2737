// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <omp.h>

#include "spindle/coo_builder.hpp"
#include "spindle/detail/transpose_builder.hpp"
#include "spindle/error.hpp"
#include "spindle/graph.hpp"

namespace spindle {
namespace {

TEST(Graph, EmptyGraphHasZeroShapeAndStats) {
  Graph<std::int32_t, float> g;
  EXPECT_EQ(g.rows(), 0);
  EXPECT_EQ(g.nnz(), 0);
  EXPECT_EQ(g.stats().nnz, 0);
  EXPECT_EQ(g.transpose().rows(), 0);
}

TEST(Graph, ConstructorRejectsUnsortedColumns) {
  EXPECT_THROW((Graph<std::int32_t, float>(2, 3, {0, 2, 2}, {2, 1}, {1.f, 2.f})), InvalidArgument);
}

TEST(Graph, ConstructorRejectsColumnOutOfRange) {
  EXPECT_THROW((Graph<std::int32_t, float>(2, 3, {0, 1, 2}, {0, 3}, {1.f, 2.f})), IndexOutOfBounds);
}

TEST(Graph, ConstructorChecksOffsetsBeforeWalkingAnyRow) {
  // Row 0 claims 100 entries of 2: a walk row by row would read past the columns; the offsets
  // decrease at row 1, which is what the error names.
  try {
    (void)Graph<std::int32_t, Pattern>(2, 3, {0, 100, 2}, {0, 1});
    ADD_FAILURE() << "accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
  }
}

TEST(Graph, ConstructorAllowsDescentsOnlyAtRowStarts) {
  // Columns fall from row to row (also across an empty row): valid.
  const Graph<std::int32_t, Pattern> g(4, 3, {0, 2, 2, 4, 5}, {1, 2, 0, 1, 0});
  EXPECT_EQ(g.nnz(), 5);
  // A repeated or falling column inside a row: refused, naming the row.
  for (const auto& cols : {std::vector<std::int32_t>{1, 2, 0, 0, 0}, {1, 2, 1, 0, 0}}) {
    try {
      (void)Graph<std::int32_t, Pattern>(4, 3, {0, 2, 2, 4, 5}, cols);
      ADD_FAILURE() << "accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("row 2"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW((Graph<std::int64_t, Pattern>(2, 3, {0, 1, 2}, {0, -1})), IndexOutOfBounds);
}

TEST(Graph, ConstructorRejectsValueCountMismatch) {
  EXPECT_THROW((Graph<std::int32_t, double>(1, 3, {0, 2}, {0, 1}, {1.0})), InvalidArgument);
  EXPECT_THROW((Graph<std::int32_t, Pattern>(1, 3, {0, 2}, {0, 1}, {1})), InvalidArgument);
}

TEST(CooBuilder, SortsRowsAndSumsDuplicatesByDefaultForWeighted) {
  Coo<std::int32_t> coo;
  coo.rows = 3;
  coo.cols = 3;
  coo.row = {2, 0, 0, 2, 0};
  coo.col = {1, 2, 0, 1, 2};
  coo.val = {1, 2, 3, 4, 5};
  auto g = build_graph<std::int32_t, double>(coo);
  EXPECT_EQ(g.nnz(), 3);
  EXPECT_EQ(g.row_ptr(), (std::vector<std::int32_t>{0, 2, 2, 3}));
  EXPECT_EQ(g.col_idx(), (std::vector<std::int32_t>{0, 2, 1}));
  EXPECT_EQ(g.values(), (std::vector<double>{3, 7, 5}));
}

// build_graph against a naive construction (entries sorted by (row, column), duplicates summed in
// input order) for every index and value type, on random entries with and without duplicates,
// given in random order (the counting sort) or already in row order with the columns of a row
// shuffled (taken as they are), dense and sparse; the first and last rows are always empty. A
// graph with nothing merged away keeps the sorted arrays themselves (values converted when not
// double), the others compact them: all must be the naive CSR.
template <class I, class V>
void expect_build_matches_naive(bool duplicates, bool row_order, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::int64_t rows = 2003, cols = 1501;
  std::vector<std::tuple<I, I, double>> entries;
  std::vector<char> used(static_cast<std::size_t>(rows * cols), 0);
  for (int t = 0; t < count; ++t) {
    const auto i = static_cast<I>(1 + rng() % (rows - 2)), j = static_cast<I>(rng() % cols);
    char& u = used[static_cast<std::size_t>(i) * cols + j];
    if (u && !duplicates) continue;
    u = 1;
    entries.emplace_back(i, j, static_cast<double>(rng() % 1000) / 16.0 - 20.0);
  }
  if (row_order) {
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  }
  Coo<I> coo;
  coo.rows = static_cast<I>(rows);
  coo.cols = static_cast<I>(cols);
  for (const auto& [i, j, v] : entries) {
    coo.row.push_back(i);
    coo.col.push_back(j);
    if (!is_pattern_v<V>) coo.val.push_back(v);
  }
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  std::vector<I> rp(static_cast<std::size_t>(rows) + 1, 0), ci;
  std::vector<double> val;
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const auto& [i, j, v] = entries[k];
    if (k > 0 && std::get<0>(entries[k - 1]) == i && std::get<1>(entries[k - 1]) == j) {
      val.back() += v;
      continue;
    }
    ++rp[static_cast<std::size_t>(i) + 1];
    ci.push_back(j);
    val.push_back(v);
  }
  for (std::int64_t i = 0; i < rows; ++i) rp[i + 1] += rp[i];
  const auto g = build_graph<I, V>(std::move(coo));
  EXPECT_EQ(g.row_ptr(), rp);
  EXPECT_EQ(g.col_idx(), ci);
  if constexpr (!is_pattern_v<V>) {
    std::vector<V> want(val.size());
    for (std::size_t k = 0; k < val.size(); ++k) want[k] = static_cast<V>(val[k]);
    EXPECT_EQ(g.values(), want);
  } else {
    EXPECT_TRUE(g.values().empty());
  }
}

TEST(CooBuilder, MatchesANaiveBuildWithAndWithoutDuplicatesForEveryType) {
  for (const bool row_order : {false, true}) {
    for (const bool dup : {false, true}) {
      for (const int count : {150000, 300}) {
        SCOPED_TRACE(std::string(row_order ? "row order" : "any order") +
                     (dup ? ", duplicates, " : ", no duplicates, ") + std::to_string(count));
        expect_build_matches_naive<std::int32_t, float>(dup, row_order, count, 91);
        expect_build_matches_naive<std::int32_t, double>(dup, row_order, count, 92);
        expect_build_matches_naive<std::int32_t, Pattern>(dup, row_order, count, 93);
        expect_build_matches_naive<std::int64_t, float>(dup, row_order, count, 94);
        expect_build_matches_naive<std::int64_t, double>(dup, row_order, count, 95);
        expect_build_matches_naive<std::int64_t, Pattern>(dup, row_order, count, 96);
      }
    }
  }
}

TEST(CooBuilder, DuplicatePoliciesKeepFirstLastAndError) {
  Coo<std::int64_t> coo;
  coo.rows = 2;
  coo.cols = 2;
  coo.row = {0, 0, 0};
  coo.col = {1, 1, 1};
  coo.val = {1, 2, 3};
  BuildOptions o;
  o.duplicates = DuplicatePolicy::KeepFirst;
  EXPECT_EQ((build_graph<std::int64_t, float>(coo, o).values()), (std::vector<float>{1}));
  o.duplicates = DuplicatePolicy::KeepLast;
  EXPECT_EQ((build_graph<std::int64_t, float>(coo, o).values()), (std::vector<float>{3}));
  o.duplicates = DuplicatePolicy::Error;
  EXPECT_THROW((build_graph<std::int64_t, float>(coo, o)), InvalidArgument);
}

TEST(CooBuilder, PatternCollapsesDuplicatesAndSymmetrizes) {
  Coo<std::int32_t> coo;
  coo.rows = 3;
  coo.cols = 3;
  coo.row = {0, 1, 0, 2};
  coo.col = {1, 0, 1, 2};
  BuildOptions o;
  o.symmetrize = true;
  auto g = build_graph<std::int32_t, Pattern>(coo, o);
  EXPECT_EQ(g.nnz(), 3);  // (0,1), (1,0), (2,2)
  EXPECT_EQ(g.stats().self_loops, 1);
  o.self_loops = SelfLoopPolicy::Drop;
  EXPECT_EQ((build_graph<std::int32_t, Pattern>(coo, o).nnz()), 2);
}

TEST(CooBuilder, RejectsIndexOutsideShape) {
  Coo<std::int32_t> coo;
  coo.rows = 2;
  coo.cols = 2;
  coo.row = {0, 2};
  coo.col = {0, 0};
  EXPECT_THROW((build_graph<std::int32_t, Pattern>(coo)), IndexOutOfBounds);
}

TEST(CooBuilder, RefusesNonFiniteWhenAsked) {
  Coo<std::int32_t> coo;
  coo.rows = 1;
  coo.cols = 1;
  coo.row = {0};
  coo.col = {0};
  coo.val = {std::numeric_limits<double>::quiet_NaN()};
  BuildOptions o;
  o.allow_nonfinite = false;
  EXPECT_THROW((build_graph<std::int32_t, double>(coo, o)), InvalidArgument);
}

TEST(Graph, TransposeAndStatsMatchNaiveOnRandomGraph) {
  std::mt19937_64 rng(7);
  const int n = 300, m = 170;
  Coo<std::int32_t> coo;
  coo.rows = n;
  coo.cols = m;
  std::vector<std::vector<double>> dense(n, std::vector<double>(m, 0.0));
  for (int k = 0; k < 5000; ++k) {
    int i = static_cast<int>(rng() % n), j = static_cast<int>(rng() % m);
    if (i % 7 == 3) continue;  // empty rows
    double v = static_cast<double>(rng() % 100) + 1;
    coo.row.push_back(i);
    coo.col.push_back(j);
    coo.val.push_back(v);
    dense[i][j] += v;
  }
  auto g = build_graph<std::int32_t, double>(coo);
  const auto& t = g.transpose();
  ASSERT_EQ(t.rows(), m);
  ASSERT_EQ(t.cols(), n);
  ASSERT_EQ(t.nnz(), g.nnz());
  for (int j = 0; j < m; ++j) {
    for (auto k = t.row_ptr()[j]; k < t.row_ptr()[j + 1]; ++k) {
      EXPECT_EQ(t.values()[k], dense[t.col_idx()[k]][j]);
    }
  }
  std::int64_t empty = 0, maxr = 0, nnz = 0;
  for (int i = 0; i < n; ++i) {
    int len = 0;
    for (int j = 0; j < m; ++j) len += dense[i][j] != 0;
    empty += len == 0;
    maxr = std::max<std::int64_t>(maxr, len);
    nnz += len;
    EXPECT_EQ(g.out_degrees()[i], len);
  }
  EXPECT_EQ(g.stats().empty_rows, empty);
  EXPECT_EQ(g.stats().max_row, maxr);
  EXPECT_EQ(g.stats().nnz, nnz);
  EXPECT_NEAR(g.stats().avg_row, static_cast<double>(nnz) / n, 1e-12);
  for (int j = 0; j < m; ++j) EXPECT_EQ(g.in_degrees()[j], t.row_length(j));
}

// Restores the OpenMP thread count however a test's loop over thread counts ends (a failed
// ASSERT returns early).
struct ThreadCountGuard {
  int saved = omp_get_max_threads();
  ~ThreadCountGuard() { omp_set_num_threads(saved); }
};

// The transpose splits its work over threads from 65536 entries per thread on, and sorts in
// buckets of 2^14 columns: a graph with skewed and empty columns, large enough for several
// threads and seven buckets (the last one partial), built fresh for each thread count (the
// transpose is cached on the graph), with values and pattern-only, against a naive transpose:
// (column, row, value) triples sorted. Every transposed row must hold its entries in increasing
// row order.
template <class I>
void check_transpose_across_threads() {
  std::mt19937_64 rng(11);
  const std::int64_t n = 40009, m = 100003;
  Coo<I> coo;
  coo.rows = static_cast<I>(n);
  coo.cols = static_cast<I>(m);
  for (std::int64_t k = 0; k < 700000; ++k) {
    const std::int64_t i = static_cast<std::int64_t>(rng() % n);
    // Skewed columns (a few hot ones, spread over the buckets), and the columns divisible by 5
    // left empty (but column 0, which m - 1 wraps to).
    std::int64_t j = (rng() % 4 == 0) ? static_cast<std::int64_t>(rng() % 64) * 1531
                                      : static_cast<std::int64_t>(rng() % m);
    if (j % 5 == 0) j = (j + 1) % m;
    coo.row.push_back(static_cast<I>(i));
    coo.col.push_back(static_cast<I>(j));
    coo.val.push_back(static_cast<double>(rng() % 1000) + 1);
  }
  const auto base = build_graph<I, double>(coo);
  std::vector<std::tuple<std::int64_t, std::int64_t, double>> want;
  for (std::int64_t i = 0; i < n; ++i) {
    for (auto k = base.row_ptr()[i]; k < base.row_ptr()[i + 1]; ++k) {
      want.emplace_back(static_cast<std::int64_t>(base.col_idx()[k]), i, base.values()[k]);
    }
  }
  std::sort(want.begin(), want.end());
  const ThreadCountGuard guard;
  for (int threads : {1, 2, 3, 8}) {
    omp_set_num_threads(threads);
    const auto g = build_graph<I, double>(coo);
    const auto& t = g.transpose();
    ASSERT_EQ(t.rows(), m);
    ASSERT_EQ(t.cols(), n);
    ASSERT_EQ(static_cast<std::size_t>(t.nnz()), want.size()) << threads << " threads";
    std::size_t e = 0;
    for (std::int64_t j = 0; j < m; ++j) {
      ASSERT_EQ(static_cast<std::size_t>(t.row_ptr()[j]), e)
          << "row " << j << ", " << threads << " threads";
      for (auto k = t.row_ptr()[j]; k < t.row_ptr()[j + 1]; ++k, ++e) {
        ASSERT_EQ(std::get<0>(want[e]), j);
        ASSERT_EQ(static_cast<std::int64_t>(t.col_idx()[k]), std::get<1>(want[e]))
            << "entry " << e << ", " << threads << " threads";
        ASSERT_EQ(t.values()[k], std::get<2>(want[e]));
      }
    }
    ASSERT_EQ(static_cast<std::size_t>(t.row_ptr()[m]), want.size());
    const auto p = build_graph<I, Pattern>(coo);
    const auto& tp = p.transpose();
    ASSERT_EQ(tp.row_ptr(), t.row_ptr()) << threads << " threads, pattern";
    ASSERT_EQ(tp.col_idx(), t.col_idx()) << threads << " threads, pattern";
  }
}

TEST(Graph, TransposeMatchesNaiveForEveryThreadCount) {
  check_transpose_across_threads<std::int32_t>();
  check_transpose_across_threads<std::int64_t>();
}

// in_degrees counts on several threads into counts of their own from 2^20 entries on, with as
// many threads as the columns allow (threads x cols <= nnz): a graph of 1.5 M entries over 2000
// columns (so up to 8 threads here), one of them a hub in every row, against a naive count, for
// several thread counts (a fresh graph each: the degrees are cached). A small graph takes the
// plain loop.
TEST(Graph, InDegreesMatchANaiveCountOnEveryThreadCount) {
  std::mt19937_64 rng(5);
  const std::int64_t n = 3000, m = 2000;
  std::vector<std::int32_t> want(static_cast<std::size_t>(m), 0);
  Coo<std::int32_t> coo;
  coo.rows = static_cast<std::int32_t>(n);
  coo.cols = static_cast<std::int32_t>(m);
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<bool> seen(static_cast<std::size_t>(m), false);
    seen[1234] = true;  // the hub: in every row
    for (int e = 0; e < 499; ++e) seen[rng() % m] = true;
    for (std::int64_t j = 0; j < m; ++j) {
      if (!seen[static_cast<std::size_t>(j)]) continue;
      coo.row.push_back(static_cast<std::int32_t>(i));
      coo.col.push_back(static_cast<std::int32_t>(j));
      ++want[static_cast<std::size_t>(j)];
    }
  }
  ASSERT_GE(coo.row.size(), std::size_t{1} << 20);
  ASSERT_EQ(want[1234], n);
  const ThreadCountGuard guard;
  for (int threads : {1, 2, 3, 8}) {
    omp_set_num_threads(threads);
    const auto g = build_graph<std::int32_t, Pattern>(coo);
    EXPECT_EQ(g.in_degrees(), want) << threads << " threads";
  }
  Graph<std::int32_t, Pattern> small(2, 3, {0, 2, 3}, {0, 2, 2});
  EXPECT_EQ(small.in_degrees(), (std::vector<std::int32_t>{1, 0, 2}));
}

// The statistics sum squared deviations of the row lengths over every row: with the rows split
// by thread, the partial sums' grouping followed the thread count, and stdv_row (which the CUDA
// planner compares against thresholds) changed in its last bits with it. A power-law graph of
// 300 K rows (lengths whose squared deviations are not exact in double), fresh for each thread
// count (the statistics are cached), must give the same bits on 1, 2, 3 and 4 threads.
TEST(Graph, StatsAreBitIdenticalOnEveryThreadCount) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  const std::int64_t n = 300007;
  std::vector<std::int32_t> rp(1, 0), ci;
  for (std::int64_t i = 0; i < n; ++i) {
    const double x = unif(rng);
    const auto len = static_cast<std::int64_t>(x * x * x * x * 40);
    for (std::int64_t k = 0; k < len; ++k) ci.push_back(static_cast<std::int32_t>(k * 7 + 1));
    rp.push_back(static_cast<std::int32_t>(ci.size()));
  }
  const ThreadCountGuard guard;
  GraphStats ref;
  for (int threads : {1, 2, 3, 4}) {
    omp_set_num_threads(threads);
    const Graph<std::int32_t, Pattern> g(static_cast<std::int32_t>(n), 300, rp, ci);
    const GraphStats& s = g.stats();
    if (threads == 1) {
      ref = s;
      ASSERT_GT(ref.stdv_row, 0.0);
      continue;
    }
    EXPECT_EQ(std::memcmp(&s.stdv_row, &ref.stdv_row, sizeof(double)), 0)
        << threads << " threads: stdv_row " << s.stdv_row << " against " << ref.stdv_row;
    EXPECT_EQ(s.avg_row, ref.avg_row);
    EXPECT_EQ(s.max_row, ref.max_row);
    EXPECT_EQ(s.empty_rows, ref.empty_rows);
    EXPECT_EQ(s.rows_by_log2_length, ref.rows_by_log2_length);
    EXPECT_EQ(s.col_imbalance_est, ref.col_imbalance_est);
  }
}

// A rows x cols graph of about `per_row` entries per row (duplicates collapsed) whose columns are
// drawn with weight (j + 1)^-skew (0: uniform), scattered over the ids by a fixed permutation.
template <class I>
Graph<I, Pattern> column_skewed_graph(std::int64_t rows, std::int64_t cols, int per_row,
                                      double skew, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> cdf(static_cast<std::size_t>(cols));
  double total = 0.0;
  for (std::int64_t j = 0; j < cols; ++j) {
    total += std::pow(static_cast<double>(j + 1), -skew);
    cdf[static_cast<std::size_t>(j)] = total;
  }
  std::vector<I> perm(static_cast<std::size_t>(cols));
  for (std::int64_t j = 0; j < cols; ++j) perm[static_cast<std::size_t>(j)] = static_cast<I>(j);
  std::shuffle(perm.begin(), perm.end(), rng);
  std::uniform_real_distribution<double> unif(0.0, total);
  Coo<I> coo;
  coo.rows = static_cast<I>(rows);
  coo.cols = static_cast<I>(cols);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (int k = 0; k < per_row; ++k) {
      const auto j = std::lower_bound(cdf.begin(), cdf.end(), unif(rng)) - cdf.begin();
      coo.row.push_back(static_cast<I>(i));
      coo.col.push_back(perm[static_cast<std::size_t>(std::min<std::int64_t>(j, cols - 1))]);
    }
  }
  return build_graph<I, Pattern>(std::move(coo));
}

// The in-degree stdv/avg, counted.
template <class I>
double naive_column_imbalance(const Graph<I, Pattern>& g) {
  std::vector<double> d(static_cast<std::size_t>(g.cols()), 0.0);
  for (const I c : g.col_idx()) d[static_cast<std::size_t>(c)] += 1.0;
  const double avg = static_cast<double>(g.nnz()) / static_cast<double>(g.cols());
  double sq = 0.0;
  for (const double x : d) sq += (x - avg) * (x - avg);
  return std::sqrt(sq / static_cast<double>(g.cols())) / avg;
}

TEST(Graph, ColumnImbalanceIsExactBelowTheSampleAndEstimatedAboveIt) {
  // Up to nnz + cols = 2^17 every column is counted: exact, whatever the shape.
  for (const double skew : {0.0, 0.7, 1.2}) {
    const auto g = column_skewed_graph<std::int32_t>(700, 900, 12, skew, 5);
    ASSERT_LE(static_cast<std::int64_t>(g.nnz()) + g.cols(), kColumnImbalanceExactMax);
    EXPECT_NEAR(g.stats().col_imbalance_est, naive_column_imbalance(g), 1e-9) << skew;
  }
  // Every column alike: 0; no entries: 0; statistics built by hand: negative (not estimated).
  const Graph<std::int32_t, Pattern> diag(3, 3, {0, 1, 2, 3}, {0, 1, 2});
  EXPECT_EQ(diag.stats().col_imbalance_est, 0.0);
  EXPECT_EQ((Graph<std::int32_t, Pattern>(4, 5, {0, 0, 0, 0, 0}, {})).stats().col_imbalance_est,
            0.0);
  EXPECT_LT(GraphStats{}.col_imbalance_est, 0.0);
  // Draws: 8 sqrt(cols) within [2048, 65536].
  EXPECT_EQ(column_imbalance_draws(1), 2048);
  EXPECT_EQ(column_imbalance_draws(65536), 2048);
  EXPECT_EQ(column_imbalance_draws(std::int64_t{1} << 22), 16384);
  EXPECT_EQ(column_imbalance_draws(std::int64_t{1} << 40), 65536);
  // Above: drawn, close to the count, for both index types, the same value every time, and far
  // apart for uniform and skewed columns (the planner's relabelling threshold is 2).
  for (const double skew : {0.0, 0.8, 1.1}) {
    const auto g32 = column_skewed_graph<std::int32_t>(60000, 65536, 16, skew, 9);
    const auto g64 = column_skewed_graph<std::int64_t>(60000, 65536, 16, skew, 9);
    ASSERT_GT(static_cast<std::int64_t>(g32.nnz()) + g32.cols(), 4 * kColumnImbalanceExactMax);
    const double want = naive_column_imbalance(g32);
    const double got = g32.stats().col_imbalance_est;
    // The estimate's spread: sqrt(cols (1 + cv^2) / (s^2 / 2)) on cv^2; 5 of those, and 5%.
    const double s = static_cast<double>(column_imbalance_draws(65536));
    const double cv2_tol = 5.0 * std::sqrt(65536.0 * (1.0 + want * want) / (0.5 * s * s));
    EXPECT_NEAR(got * got, want * want, cv2_tol + 0.05 * want * want) << skew << ": " << want;
    EXPECT_EQ(g64.stats().col_imbalance_est, got) << skew;  // same entries, same draws
    const Graph<std::int32_t, Pattern> again(g32.rows(), g32.cols(), g32.row_ptr(), g32.col_idx());
    EXPECT_EQ(again.stats().col_imbalance_est, got) << skew;
    if (skew == 0.0) {
      EXPECT_LT(got, 1.0);
    } else if (skew == 1.1) {
      EXPECT_GT(got, 4.0);
    }
  }
  // 2^20 columns: 8,192 draws, read by several threads; the same value on every thread count.
  const auto wide = column_skewed_graph<std::int32_t>(20000, std::int64_t{1} << 20, 64, 0.9, 13);
  ASSERT_EQ(column_imbalance_draws(wide.cols()), 8192);
  const double want = naive_column_imbalance(wide);
  const ThreadCountGuard guard;
  double first = -1.0;
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    const GraphStats s = compute_stats<std::int32_t>(wide.rows(), wide.cols(),
                                                     wide.row_ptr().data(), wide.col_idx().data());
    if (threads == 1) {
      first = s.col_imbalance_est;
      EXPECT_NEAR(first * first, want * want,
                  5.0 * std::sqrt((1 << 20) * (1.0 + want * want) / (0.5 * 8192.0 * 8192.0)) +
                      0.05 * want * want)
          << want;
    }
    EXPECT_EQ(s.col_imbalance_est, first) << threads << " threads";
  }
}

TEST(Graph, WithValuesConvertsAndPatternGivesOnes) {
  Graph<std::int32_t, Pattern> p(2, 2, {0, 1, 2}, {1, 0});
  auto f = p.with_values<float>();
  EXPECT_EQ(f.values(), (std::vector<float>{1.f, 1.f}));
  EXPECT_EQ(f.with_values<Pattern>().nnz(), 2);
}

// A builder standing in for a backend's (the CUDA one sorts on the device) for float graphs:
// counts its calls and answers with whatever the test set up.
struct FakeTransposeBuilder final : detail::TransposeBuilder {
  using detail::TransposeBuilder::build;
  int calls = 0;
  bool accept = false;
  detail::TransposeParts<std::int32_t, float> parts;  // handed over when accepting
  bool build(const Graph<std::int32_t, float>&,
             detail::TransposeParts<std::int32_t, float>& out) override {
    ++calls;
    if (accept) out = std::move(parts);
    return accept;
  }
};

struct MarkerSlot : detail::ExtensionSlot {
  int value = 0;
};

// Graph::transpose() asks the builder installed on its thread (and only when nothing is cached):
// a builder that declines leaves the host's build; one that accepts has its arrays and extensions
// adopted as they are; arrays of the wrong sizes are refused and nothing is cached. The guards
// nest and put back what was installed before.
TEST(Graph, TransposeAsksTheInstalledBuilderAndAdoptsWhatItBuilds) {
  // 3 x 4: [[0 1 0 2] [0 0 0 0] [3 0 4 0]], A^T is 4 x 3.
  const auto make = [] {
    return Graph<std::int32_t, float>(3, 4, {0, 2, 2, 4}, {1, 3, 0, 2}, {1.f, 2.f, 3.f, 4.f});
  };
  const std::vector<std::int32_t> t_rp = {0, 1, 2, 3, 4}, t_ci = {2, 0, 2, 0};
  const std::vector<float> t_val = {3.f, 1.f, 4.f, 2.f};
  EXPECT_EQ(detail::current_transpose_builder(), nullptr);
  FakeTransposeBuilder fake;
  {
    const detail::ScopedTransposeBuilder on(&fake);
    EXPECT_EQ(detail::current_transpose_builder(), &fake);
    {
      const detail::ScopedTransposeBuilder off(nullptr);
      EXPECT_EQ(detail::current_transpose_builder(), nullptr);
    }
    EXPECT_EQ(detail::current_transpose_builder(), &fake);

    // Declined: the host's transpose.
    const auto a = make();
    const auto& t = a.transpose();
    EXPECT_EQ(fake.calls, 1);
    EXPECT_EQ(t.row_ptr(), t_rp);
    EXPECT_EQ(t.col_idx(), t_ci);
    EXPECT_EQ(t.values(), t_val);
    (void)a.transpose();  // cached: not asked again
    EXPECT_EQ(fake.calls, 1);

    // Accepted: the builder's arrays (deliberately not A^T, to tell them apart) and its slot.
    const auto b = make();
    fake.accept = true;
    fake.parts.row_ptr = {0, 0, 1, 3, 4};
    fake.parts.col_idx = {1, 0, 2, 1};
    fake.parts.values = {7.f, 8.f, 9.f, 10.f};
    auto slot = std::make_unique<MarkerSlot>();
    slot->value = 42;
    fake.parts.extensions.emplace_back("test.marker", std::move(slot));
    const auto& u = b.transpose();
    EXPECT_EQ(fake.calls, 2);
    EXPECT_EQ(u.rows(), 4);
    EXPECT_EQ(u.cols(), 3);
    EXPECT_EQ(u.row_ptr(), (std::vector<std::int32_t>{0, 0, 1, 3, 4}));
    EXPECT_EQ(u.col_idx(), (std::vector<std::int32_t>{1, 0, 2, 1}));
    EXPECT_EQ(u.values(), (std::vector<float>{7.f, 8.f, 9.f, 10.f}));
    bool made = false;
    const MarkerSlot& found = u.extension<MarkerSlot>("test.marker", [&] {
      made = true;
      return std::make_unique<MarkerSlot>();
    });
    EXPECT_FALSE(made);
    EXPECT_EQ(found.value, 42);

    // Wrong sizes: refused, nothing cached; the host builds it once no builder is installed.
    const auto c = make();
    fake.parts = {};
    fake.parts.row_ptr = {0, 1, 2, 3};  // 4 offsets for 4 rows: one short
    fake.parts.col_idx = t_ci;
    fake.parts.values = t_val;
    EXPECT_THROW((void)c.transpose(), Error);
    EXPECT_FALSE(c.has_transpose());
    const detail::ScopedTransposeBuilder off(nullptr);
    EXPECT_EQ(c.transpose().row_ptr(), t_rp);
    EXPECT_EQ(fake.calls, 3);
  }
  EXPECT_EQ(detail::current_transpose_builder(), nullptr);
}

}  // namespace
}  // namespace spindle
