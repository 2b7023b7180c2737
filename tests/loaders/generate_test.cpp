// SPDX-License-Identifier: Apache-2.0
// Generators: bit-identical for any thread count, exact sizes, ids in range, the R-MAT quadrant
// split matches its probabilities, and scrambling is a bijection of the vertex ids.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "spindle/loaders/generate.hpp"

namespace {

using namespace spindle;

template <class F>
void for_threads(F&& f) {
  const int saved = omp_get_max_threads();
  for (int t : {1, 2, 3, 7}) {
    omp_set_num_threads(t);
    f(t);
  }
  omp_set_num_threads(saved);
}

TEST(Generate, RmatIdenticalForAnyThreadCount) {
  Coo<std::int64_t> first;
  for_threads([&](int t) {
    Coo<std::int64_t> c = generate_rmat<std::int64_t>(13, 16, 42);
    if (t == 1) {
      first = std::move(c);
    } else {
      EXPECT_EQ(c.row, first.row) << t;
      EXPECT_EQ(c.col, first.col) << t;
    }
  });
  EXPECT_EQ(first.rows, 1 << 13);
  EXPECT_EQ(first.size(), 16 << 13);
  EXPECT_TRUE(first.val.empty());
}

TEST(Generate, UniformIdenticalForAnyThreadCountAndInRange) {
  Coo<std::int32_t> first;
  for_threads([&](int t) {
    Coo<std::int32_t> c = generate_uniform<std::int32_t>(12, 20, 7);
    if (t == 1) {
      first = std::move(c);
    } else {
      EXPECT_EQ(c.row, first.row);
      EXPECT_EQ(c.col, first.col);
    }
  });
  ASSERT_EQ(first.size(), 20 << 12);
  const auto [lo, hi] = std::minmax_element(first.row.begin(), first.row.end());
  EXPECT_GE(*lo, 0);
  EXPECT_LT(*hi, 1 << 12);
  // Uniform: every vertex's out-degree is near 20 (Poisson; 20 +- 7 sigma covers all 4096).
  std::vector<int> deg(1 << 12, 0);
  for (auto r : first.row) ++deg[r];
  for (int d : deg) {
    EXPECT_GT(d, 0);
    EXPECT_LT(d, 52);
  }
}

TEST(Generate, SeedsGiveDifferentGraphs) {
  EXPECT_NE(generate_rmat<std::int32_t>(10, 8, 1).col, generate_rmat<std::int32_t>(10, 8, 2).col);
  EXPECT_NE(generate_uniform<std::int32_t>(10, 8, 1).col,
            generate_uniform<std::int32_t>(10, 8, 2).col);
}

TEST(Generate, RmatQuadrantFractionsMatchProbabilities) {
  RmatParams p;
  p.scramble = false;
  const int scale = 12;
  const auto c = generate_rmat<std::int32_t>(scale, 32, 5, p);
  const std::int32_t half = 1 << (scale - 1);
  double q[4] = {0, 0, 0, 0};
  for (std::int64_t k = 0; k < c.size(); ++k) q[(c.row[k] >= half) * 2 + (c.col[k] >= half)] += 1;
  const double m = static_cast<double>(c.size());  // 131072 draws: sigma of a fraction < 0.0014
  EXPECT_NEAR(q[0] / m, 0.57, 0.01);
  EXPECT_NEAR(q[1] / m, 0.19, 0.01);
  EXPECT_NEAR(q[2] / m, 0.19, 0.01);
  EXPECT_NEAR(q[3] / m, 0.05, 0.01);
}

TEST(Generate, ScramblingIsABijectionOfTheUnscrambledGraph) {
  RmatParams plain;
  plain.scramble = false;
  const auto a = generate_rmat<std::int32_t>(11, 8, 99, plain);
  const auto b = generate_rmat<std::int32_t>(11, 8, 99);
  ASSERT_EQ(a.size(), b.size());
  std::map<std::int32_t, std::int32_t> fwd, inv;
  auto relate = [&](std::int32_t x, std::int32_t y) {
    auto [it, fresh] = fwd.emplace(x, y);
    EXPECT_EQ(it->second, y);  // a function
    auto [jt, fresh2] = inv.emplace(y, x);
    EXPECT_EQ(jt->second, x);  // injective
    (void)fresh;
    (void)fresh2;
  };
  for (std::int64_t k = 0; k < a.size(); ++k) {
    relate(a.row[k], b.row[k]);
    relate(a.col[k], b.col[k]);
  }
  // Scrambling moves the heavy vertex 0 somewhere else (for this seed) but keeps its degree.
  EXPECT_NE(fwd.at(0), 0);
}

TEST(Generate, DegenerateAndInvalidArguments) {
  const auto one = generate_rmat<std::int32_t>(0, 3, 1);
  EXPECT_EQ(one.rows, 1);
  EXPECT_EQ(one.size(), 3);
  EXPECT_EQ(one.row, (std::vector<std::int32_t>{0, 0, 0}));
  EXPECT_EQ(generate_uniform<std::int64_t>(5, 0, 1).size(), 0);
  EXPECT_THROW(generate_rmat<std::int32_t>(31, 1, 1), InvalidArgument);
  EXPECT_THROW(generate_rmat<std::int64_t>(-1, 1, 1), InvalidArgument);
  EXPECT_THROW(generate_uniform<std::int64_t>(4, -1, 1), InvalidArgument);
  EXPECT_THROW(generate_rmat<std::int64_t>(4, 1, 1, 0.6, 0.3, 0.3), InvalidArgument);
  EXPECT_THROW(generate_rmat<std::int64_t>(4, 1, 1, -0.1, 0.3, 0.3), InvalidArgument);
  EXPECT_THROW(generate_rmat<std::int64_t>(40, 1 << 30, 1), InvalidArgument);
}

TEST(Generate, DefaultGraphHasNoLoopsNoDuplicatesAndUnitValues) {
  const auto g = make_default_graph<std::int32_t, float>();
  EXPECT_EQ(g.rows(), 1 << kDefaultGraphScale);
  EXPECT_LE(g.nnz(), kDefaultGraphEdgeFactor << kDefaultGraphScale);
  EXPECT_GT(g.nnz(), (kDefaultGraphEdgeFactor << kDefaultGraphScale) / 2);
  EXPECT_EQ(g.stats().self_loops, 0);
  for (float v : g.values()) ASSERT_EQ(v, 1.0f);
  const auto p = make_default_graph<std::int64_t, Pattern>();
  EXPECT_EQ(static_cast<std::int64_t>(p.nnz()), static_cast<std::int64_t>(g.nnz()));
}

}  // namespace
