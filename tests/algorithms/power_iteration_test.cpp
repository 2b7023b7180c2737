// SPDX-License-Identifier: Apache-2.0
// Power iteration and eigenvector centrality against power methods written here in double, and
// against eigenvalues known in closed form.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "alg_test_utils.hpp"
#include "spindle/algorithms/power_iteration.hpp"

namespace spindle::test {
namespace {

struct Eig {
  std::vector<double> x;
  double lambda = 0.0;
  int iterations = 0;
};

/// y = M x with M = A (transpose = false) or Aᵀ, over the edge list.
std::vector<double> mul(const Edges& A, const std::vector<double>& x, bool transpose) {
  std::vector<double> y(A.n, 0.0);
  for (const auto& e : A.e) {
    if (transpose) {
      y[e.v] += e.w * x[e.u];
    } else {
      y[e.u] += e.w * x[e.v];
    }
  }
  return y;
}

/// The documented iteration, written independently: plain mode x0 = 1/√n, L1 change < tol;
/// centrality mode = networkx (x0 = 1/n, M = Aᵀ, shift 1, Σ|Δ| < n·tol).
Eig oracle(const Edges& A, bool centrality, double shift, double tol, int max_iter) {
  const std::int64_t n = A.n;
  Eig r;
  std::vector<double> x(n, centrality ? 1.0 / double(n) : 1.0 / std::sqrt(double(n)));
  for (int it = 1; it <= max_iter; ++it) {
    std::vector<double> y = mul(A, x, centrality);
    double norm = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
      y[i] += shift * x[i];
      norm += y[i] * y[i];
    }
    norm = std::sqrt(norm);
    if (norm == 0.0) norm = 1.0;
    double change = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
      y[i] /= norm;
      change += std::fabs(y[i] - x[i]);
    }
    x = y;
    r.iterations = it;
    if (change < (centrality ? tol * double(n) : tol)) break;
  }
  const auto mx = mul(A, x, centrality);
  double num = 0.0, den = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    num += x[i] * mx[i];
    den += x[i] * x[i];
  }
  r.lambda = den > 0 ? num / den : 0.0;
  r.x = x;
  return r;
}

template <class I, class V>
Graph<I, V> symmetric_random(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<std::int64_t> any(0, n - 1);
  std::uniform_real_distribution<double> w(0.5, 2.0);
  Coo<I> coo;
  coo.rows = coo.cols = static_cast<I>(n);
  auto add = [&](std::int64_t i, std::int64_t j, double v) {
    coo.row.push_back(static_cast<I>(i));
    coo.col.push_back(static_cast<I>(j));
    coo.val.push_back(v);
  };
  for (std::int64_t i = 0; i + 1 < n; ++i) {  // a path keeps it connected
    const double v = w(gen);
    add(i, i + 1, v);
    add(i + 1, i, v);
  }
  for (std::int64_t e = 0; e < 3 * n; ++e) {
    const std::int64_t i = any(gen), j = any(gen);
    const double v = w(gen);
    add(i, j, v);
    if (i != j) add(j, i, v);
  }
  BuildOptions bo;
  bo.duplicates = DuplicatePolicy::KeepFirst;  // keeps the two mirrored values equal
  return build_graph<I, V>(std::move(coo), bo);
}

TEST(PowerIteration, PlainModeMatchesOraclePowerMethodIterateForIterate) {
  for (std::int64_t n : {1, 5, 60, 257}) {
    for (bool weighted : {false, true}) {
      const auto g = symmetric_random<std::int32_t, double>(n, 40 + n);
      const Edges e = to_edges(g, weighted);
      PowerIterationOptions o;
      o.weighted = weighted;
      o.tol = 1e-10;
      o.max_iter = 2000;
      o.device = Device::Cpu;
      const auto want = oracle(e, false, 0.0, o.tol, o.max_iter);
      const auto got = power_iteration<double>(g, o);
      SCOPED_TRACE("n=" + std::to_string(n) + (weighted ? " weighted" : ""));
      EXPECT_EQ(got.iterations, want.iterations);
      EXPECT_LE(l1(got.vector, want.x), 1e-12);
      EXPECT_NEAR(got.eigenvalue, want.lambda, 1e-10 * std::max(1.0, std::fabs(want.lambda)));
      EXPECT_TRUE(got.converged);
      // A converged eigenpair: ‖Mx − λx‖ small against λ.
      EXPECT_LE(got.residual, 1e-4 * std::max(1.0, got.eigenvalue));
    }
  }
}

TEST(PowerIteration, EigenvalueOfCompleteGraphIsNMinusOne) {
  std::vector<std::pair<int, int>> edges;
  const int n = 9;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) edges.push_back({i, j});
  const auto g = graph_from_edges<std::int64_t, Pattern>(n, edges);
  PowerIterationOptions o;
  o.device = Device::Cpu;
  const auto r = power_iteration<double>(g, o);
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(r.eigenvalue, n - 1, 1e-12);
  EXPECT_LE(r.residual, 1e-12);
  for (int v = 0; v < n; ++v) EXPECT_NEAR(r.vector[v], 1.0 / std::sqrt(double(n)), 1e-12);
}

TEST(PowerIteration, AVanishingIterateIsReportedNotPassedOffAsAnEigenvector) {
  // A path 0 -> 1 -> 2 -> 3 is nilpotent: A^4 = 0, so the plain iterate becomes exactly zero
  // after 4 steps (networkx's `or 1` keeps it there and the stop test then passes).
  const auto g = graph_from_edges<std::int32_t, Pattern>(4, {{0, 1}, {1, 2}, {2, 3}});
  PowerIterationOptions o;
  o.device = Device::Cpu;
  const auto r = power_iteration<double>(g, o);
  EXPECT_TRUE(r.vanished);
  EXPECT_EQ(r.eigenvalue, 0.0);
  for (int v = 0; v < 4; ++v) EXPECT_EQ(r.vector[v], 0.0);
  // With a shift the iterate never vanishes: (A + I) is invertible.
  o.shift = 1.0;
  o.max_iter = 5;
  const auto s = power_iteration<double>(g, o);
  EXPECT_FALSE(s.vanished);
  // On a graph with a cycle it does not vanish either.
  const auto c =
      power_iteration<double>(graph_from_edges<std::int32_t, Pattern>(3, {{0, 1}, {1, 2}, {2, 0}}),
                              PowerIterationOptions{});
  EXPECT_FALSE(c.vanished);
}

TEST(PowerIteration, ShiftSeparatesTheBipartitePairOfAStar) {
  // Star K_{1,m}: eigenvalues ±√m. Unshifted, the iterate alternates between two vectors and
  // never settles; A + I makes √m + 1 strictly dominant.
  const int m = 16;
  std::vector<std::pair<int, int>> edges;
  for (int v = 1; v <= m; ++v) {
    edges.push_back({0, v});
    edges.push_back({v, 0});
  }
  const auto g = graph_from_edges<std::int32_t, Pattern>(m + 1, edges);
  PowerIterationOptions o;
  o.device = Device::Cpu;
  o.tol = 1e-12;
  o.max_iter = 200;
  const auto plain = power_iteration<double>(g, o);
  EXPECT_FALSE(plain.converged);
  o.shift = 1.0;
  const auto shifted = power_iteration<double>(g, o);
  EXPECT_TRUE(shifted.converged);
  EXPECT_NEAR(shifted.eigenvalue, std::sqrt(double(m)), 1e-9);
  EXPECT_LE(shifted.residual, 1e-6);
  const auto want = oracle(to_edges(g), false, 1.0, o.tol, o.max_iter);
  EXPECT_LE(l1(shifted.vector, want.x), 1e-12);
}

TEST(PowerIteration, CentralityModeReplaysNetworkxIterationOnDirectedGraphs) {
  for (Family f : kFamilies) {
    const auto g = random_graph<std::int32_t, Pattern>(f, 120, 99);
    PowerIterationOptions o;
    o.centrality = true;
    o.max_iter = 1000;
    o.device = Device::Cpu;
    const auto want = oracle(to_edges(g), true, 1.0, o.tol, o.max_iter);
    const auto got = power_iteration<double>(g, o);
    SCOPED_TRACE(family_name(f));
    EXPECT_EQ(got.iterations, want.iterations);
    EXPECT_LE(l1(got.vector, want.x), 1e-12);
    EXPECT_NEAR(got.eigenvalue, want.lambda, 1e-9 * std::max(1.0, std::fabs(want.lambda)));
  }
}

TEST(PowerIteration, FloatAgreesWithDoubleOnRandomGraphs) {
  const auto g = symmetric_random<std::int64_t, float>(300, 5);
  PowerIterationOptions o;
  o.device = Device::Cpu;
  o.tol = 1e-5;
  o.max_iter = 1000;
  o.shift = 1.0;
  const auto d = power_iteration<double>(g, o);
  const auto f = power_iteration<float>(g, o);
  EXPECT_NEAR(f.eigenvalue, d.eigenvalue, 1e-4 * d.eigenvalue);
  double diff = 0.0;
  for (int v = 0; v < 300; ++v) diff += std::fabs(double(f.vector[v]) - d.vector[v]);
  EXPECT_LE(diff, 1e-3);
}

TEST(PowerIteration, RefusesBadOptions) {
  const auto g = symmetric_random<std::int32_t, Pattern>(10, 1);
  PowerIterationOptions o;
  o.tol = -1;
  EXPECT_THROW(power_iteration<double>(g, o), InvalidArgument);
  o = {};
  o.max_iter = -2;
  EXPECT_THROW(power_iteration<double>(g, o), InvalidArgument);
  o = {};
  o.shift = std::nan("");
  EXPECT_THROW(power_iteration<double>(g, o), InvalidArgument);
  Coo<std::int32_t> rect;
  rect.rows = 3;
  rect.cols = 2;
  EXPECT_THROW(power_iteration<double>(build_graph<std::int32_t, Pattern>(rect)), InvalidArgument);
}

}  // namespace
}  // namespace spindle::test
