// SPDX-License-Identifier: Apache-2.0
// Generators: bit-identical for any thread count, exact sizes, ids in range, the R-MAT quadrant
// split matches its probabilities, and scrambling is a bijection of the vertex ids. Meshes are
// exactly the 4-neighbour grid (checked against a naive edge set), power laws have the degree
// law their exponent names, bipartite graphs are rectangular, and the benchmarks' names map to
// these generators or are refused.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
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

TEST(Generate, MeshIsTheFourNeighbourGridInBothDirections) {
  for (const int scale : {0, 1, 5, 6}) {
    for (const bool scramble : {false, true}) {
      Coo<std::int32_t> first;
      for_threads([&](int t) {
        Coo<std::int32_t> c = generate_mesh<std::int32_t>(scale, 9, scramble);
        if (t == 1) {
          first = std::move(c);
        } else {
          EXPECT_EQ(c.row, first.row);
          EXPECT_EQ(c.col, first.col);
        }
      });
      const std::int64_t w = std::int64_t{1} << ((scale + 1) / 2),
                         h = std::int64_t{1} << (scale / 2);
      ASSERT_EQ(first.rows, w * h);
      // Naive oracle on raw ids; scrambled ids are mapped back through the bijection seen on the
      // entries (checked to be one).
      std::set<std::pair<std::int64_t, std::int64_t>> want;
      for (std::int64_t y = 0; y < h; ++y) {
        for (std::int64_t x = 0; x < w; ++x) {
          const std::int64_t v = y * w + x;
          if (x + 1 < w) want.insert({v, v + 1}), want.insert({v + 1, v});
          if (y + 1 < h) want.insert({v, v + w}), want.insert({v + w, v});
        }
      }
      ASSERT_EQ(first.size(), static_cast<std::int64_t>(want.size())) << scale;
      std::set<std::pair<std::int64_t, std::int64_t>> got;
      for (std::int64_t e = 0; e < first.size(); ++e) got.insert({first.row[e], first.col[e]});
      EXPECT_EQ(got.size(), want.size()) << "duplicate entries at scale " << scale;
      if (!scramble) {
        EXPECT_EQ(got, want) << scale;
      } else {
        // Same degree sequence multiset, no self-loops, ids in range.
        std::map<std::int64_t, int> dg, dw;
        for (const auto& [a, b] : got) {
          EXPECT_NE(a, b);
          EXPECT_LT(a, first.rows);
          ++dg[a];
        }
        for (const auto& [a, b] : want) ++dw[a];
        std::multiset<int> sg, sw;
        for (const auto& [v, d] : dg) sg.insert(d);
        for (const auto& [v, d] : dw) sw.insert(d);
        EXPECT_EQ(sg, sw) << scale;
      }
    }
  }
  EXPECT_THROW(generate_mesh<std::int32_t>(31, 1, false), InvalidArgument);
}

TEST(Generate, PowerLawDegreesFollowTheExponent) {
  // Ordered ids: vertex i's expected share is w(i) / sum w, w(i) = (i + 1)^(-1 / (exponent - 1)).
  // Vertex 0's count over 2^20 draws must be within 5 sigma of that share, and the share of the
  // top 1% of vertices must fall as the exponent grows (lighter tail).
  const int scale = 14;
  const std::int64_t ef = 32;
  double previous_top = 1.0;
  for (const double ex : {2.1, 2.5, 3.0}) {
    const auto c = generate_powerlaw<std::int64_t>(scale, ef, ex, 3, false);
    ASSERT_EQ(c.size(), ef << scale);
    const std::int64_t n = std::int64_t{1} << scale;
    std::vector<std::int64_t> deg(static_cast<std::size_t>(n), 0);
    for (std::int64_t e = 0; e < c.size(); ++e) {
      ASSERT_GE(c.col[e], 0);
      ASSERT_LT(c.col[e], n);
      ++deg[static_cast<std::size_t>(c.col[e])];
    }
    const double beta = 1.0 / (ex - 1.0);
    // The continuous weight of [0, 1) against [0, n): the share the inverse CDF gives vertex 0.
    const double share0 = (std::pow(2.0, 1.0 - beta) - 1.0) / (std::pow(n + 1.0, 1.0 - beta) - 1.0);
    const double draws = static_cast<double>(c.size());
    const double mean = share0 * draws, sigma = std::sqrt(draws * share0 * (1 - share0));
    EXPECT_NEAR(static_cast<double>(deg[0]), mean, 5 * sigma) << ex;
    std::int64_t top = 0;
    for (std::int64_t i = 0; i < n / 100; ++i) top += deg[static_cast<std::size_t>(i)];
    const double top_share = static_cast<double>(top) / draws;
    EXPECT_LT(top_share, previous_top) << ex;
    previous_top = top_share;
    // The top 1%'s share is the continuous model's F(n / 100).
    const double f_top =
        (std::pow(n / 100 + 1.0, 1.0 - beta) - 1.0) / (std::pow(n + 1.0, 1.0 - beta) - 1.0);
    const double sig_top = std::sqrt(draws * f_top * (1 - f_top));
    EXPECT_NEAR(static_cast<double>(top), f_top * draws, 5 * sig_top) << ex;
  }
  // Scrambling permutes ids: the same multiset of degrees.
  const auto a = generate_powerlaw<std::int32_t>(10, 8, 2.1, 5, false);
  const auto b = generate_powerlaw<std::int32_t>(10, 8, 2.1, 5, true);
  std::vector<int> da(1024, 0), db(1024, 0);
  for (std::int64_t e = 0; e < a.size(); ++e) ++da[a.col[e]], ++db[b.col[e]];
  EXPECT_NE(da, db);
  std::sort(da.begin(), da.end());
  std::sort(db.begin(), db.end());
  EXPECT_EQ(da, db);
  EXPECT_THROW(generate_powerlaw<std::int32_t>(10, 8, 1.5, 1, true), InvalidArgument);
  EXPECT_THROW(generate_powerlaw<std::int32_t>(10, 8, 10.5, 1, true), InvalidArgument);
  EXPECT_THROW(generate_powerlaw<std::int32_t>(10, 8, std::nan(""), 1, true), InvalidArgument);
}

TEST(Generate, BipartiteIsRectangularAndNamesMapToGenerators) {
  const auto b = generate_bipartite<std::int32_t>(12, 10, 8, 2.2, 4);
  EXPECT_EQ(b.rows, 1 << 12);
  EXPECT_EQ(b.cols, 1 << 10);
  ASSERT_EQ(b.size(), 8 << 12);
  for (std::int64_t e = 0; e < b.size(); ++e) {
    ASSERT_LT(b.row[e], b.rows);
    ASSERT_LT(b.col[e], b.cols);
  }
  // Names: the same entries as the generator they name.
  EXPECT_EQ(generate_named<std::int32_t>("rmat10", 8, 2).col,
            generate_rmat<std::int32_t>(10, 8, 2).col);
  EXPECT_EQ(generate_named<std::int32_t>("uniform9", 8, 2).col,
            generate_uniform<std::int32_t>(9, 8, 2).col);
  EXPECT_EQ(generate_named<std::int32_t>("mesh8", 8, 2).col,
            generate_mesh<std::int32_t>(8, 2, false).col);
  EXPECT_EQ(generate_named<std::int32_t>("mesh8-r", 8, 2).col,
            generate_mesh<std::int32_t>(8, 2, true).col);
  EXPECT_EQ(generate_named<std::int32_t>("plaw9-g2.5", 8, 2).col,
            generate_powerlaw<std::int32_t>(9, 8, 2.5, 2, true).col);
  EXPECT_EQ(generate_named<std::int32_t>("plaw9-g2.5-o", 8, 2).col,
            generate_powerlaw<std::int32_t>(9, 8, 2.5, 2, false).col);
  EXPECT_EQ(generate_named<std::int32_t>("bip12", 8, 4).col,
            generate_bipartite<std::int32_t>(12, 10, 8, 2.2, 4).col);
  // bipsym: every user-item entry in both directions, items numbered after the users.
  const auto s = generate_named<std::int32_t>("bipsym12", 8, 4);
  EXPECT_EQ(s.rows, (1 << 12) + (1 << 10));
  EXPECT_EQ(s.rows, s.cols);
  ASSERT_EQ(s.size(), 2 * b.size());
  for (std::int64_t e = 0; e < b.size(); ++e) {
    ASSERT_EQ(s.row[2 * e], b.row[e]);
    ASSERT_EQ(s.col[2 * e], b.col[e] + (1 << 12));
    ASSERT_EQ(s.row[2 * e + 1], s.col[2 * e]);
    ASSERT_EQ(s.col[2 * e + 1], s.row[2 * e]);
  }
  for (const char* bad :
       {"", "rmat", "rmatx", "rmat-3", "rmat123", "mesh", "mesh8-x", "plaw9", "plaw9-g", "plaw9-gx",
        "plaw9-g2.5x", "plaw9-g1e1", "plaw-g2.1", "bip1", "bipsym", "grid9", "rmat22 "}) {
    EXPECT_THROW(generate_named<std::int32_t>(bad, 4, 1), InvalidArgument) << bad;
  }
  EXPECT_THROW(generate_named<std::int32_t>("rmat31", 4, 1), InvalidArgument);
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
