// SPDX-License-Identifier: Apache-2.0
// GCN inference against a naive dense implementation written here (dense Â, triple loops).

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "alg_test_utils.hpp"
#include "spindle/algorithms/gcn.hpp"
#include "spindle/ops/gemm.hpp"

namespace spindle::test {
namespace {

using Mat = std::vector<std::vector<double>>;

/// Â = D^-1/2 (A + I) D^-1/2 as a dense matrix: a unit self-loop only where none is stored.
Mat dense_a_hat(const Dense& A, bool transpose) {
  const std::int64_t n = A.n;
  Mat t(n, std::vector<double>(n, 0.0));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t r = transpose ? j : i, c = transpose ? i : j;
      if (A.has(r, c)) t[i][j] = A.at(r, c);
    }
  for (std::int64_t i = 0; i < n; ++i) {
    const bool stored = transpose ? A.has(i, i) : A.has(i, i);
    if (!stored) t[i][i] = 1.0;
  }
  std::vector<double> d(n, 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) d[i] += t[i][j];
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double di = d[i] == 0 ? 0.0 : 1.0 / std::sqrt(d[i]);
      const double dj = d[j] == 0 ? 0.0 : 1.0 / std::sqrt(d[j]);
      t[i][j] *= di * dj;
    }
  return t;
}

template <class T>
Mat to_mat(const DenseMatrix<T>& m) {
  Mat r(m.rows(), std::vector<double>(m.cols()));
  for (std::int64_t i = 0; i < m.rows(); ++i)
    for (std::int64_t j = 0; j < m.cols(); ++j) r[i][j] = m(i, j);
  return r;
}

Mat matmul(const Mat& a, const Mat& b, std::int64_t cols_b) {
  Mat c(a.size(), std::vector<double>(cols_b, 0.0));
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t k = 0; k < b.size(); ++k)
      for (std::int64_t j = 0; j < cols_b; ++j) c[i][j] += a[i][k] * b[k][j];
  return c;
}

template <class T>
Mat naive_gcn(const Mat& a_hat, const DenseMatrix<T>& X, const GcnModel<T>& model) {
  Mat h = to_mat(X);
  for (std::size_t l = 0; l < model.num_layers(); ++l) {
    const auto& W = model.weights[l];
    Mat z = matmul(matmul(a_hat, h, W.rows()), to_mat(W), W.cols());
    for (auto& row : z)
      for (std::int64_t j = 0; j < W.cols(); ++j) {
        row[j] += model.biases[l][j];
        if (l + 1 < model.num_layers()) row[j] = std::max(row[j], 0.0);
      }
    h = z;
  }
  return h;
}

template <class T>
double max_abs_diff(const DenseMatrix<T>& got, const Mat& want) {
  EXPECT_EQ(got.rows(), static_cast<std::int64_t>(want.size()));
  double m = 0.0;
  for (std::int64_t i = 0; i < got.rows(); ++i)
    for (std::int64_t j = 0; j < got.cols(); ++j)
      m = std::max(m, std::fabs(double(got(i, j)) - want[i][j]));
  return m;
}

/// Non-zero biases so the bias path is checked (glorot_model gives zeros).
template <class T>
GcnModel<T> model_with_biases(std::int64_t in, const std::vector<std::int64_t>& sizes,
                              std::uint64_t seed) {
  auto m = glorot_model<T>(in, sizes, seed);
  for (std::size_t l = 0; l < m.num_layers(); ++l)
    for (std::int64_t j = 0; j < m.biases[l].size(); ++j) m.biases[l][j] = T(0.01 * (j % 7) - 0.03);
  return m;
}

TEST(Gcn, MatchesNaiveDenseImplementationInBothOrders) {
  for (Family f : kFamilies) {
    for (std::int64_t n : {1, 17, 90}) {
      const auto g = random_graph<std::int32_t, Pattern>(f, n, 300 + n);
      const auto X = random_features<double>(n, 12, 7);
      const auto model = model_with_biases<double>(12, {20, 6, 3}, 11);  // widen, then narrow
      const Mat want = naive_gcn(dense_a_hat(to_dense(g), false), X, model);
      for (GcnOrder order : {GcnOrder::Auto, GcnOrder::AggregateFirst, GcnOrder::TransformFirst}) {
        GcnOptions o;
        o.order = order;
        o.device = Device::Cpu;
        SCOPED_TRACE(std::string(family_name(f)) + " n=" + std::to_string(n) + " order " +
                     std::to_string(int(order)));
        EXPECT_LE(max_abs_diff(gcn_inference(g, X, model, o), want), 1e-12);
      }
    }
  }
}

TEST(Gcn, FloatMatchesDoubleNaive) {
  const auto g = random_graph<std::int64_t, float>(Family::PowerLaw, 200, 3);
  const auto Xd = random_features<double>(200, 32, 1);
  const auto Xf = random_features<float>(200, 32, 1);
  const auto md = model_with_biases<double>(32, {16, 8}, 4);
  const auto mf = model_with_biases<float>(32, {16, 8}, 4);
  const Mat want = naive_gcn(dense_a_hat(to_dense(g, false), false), Xd, md);
  GcnOptions o;
  o.device = Device::Cpu;
  EXPECT_LE(max_abs_diff(gcn_inference(g, Xf, mf, o), want), 1e-4);
}

TEST(Gcn, WeightedAndInEdgeVariantsMatchNaive) {
  const auto g = random_graph<std::int32_t, double>(Family::EmptyRows, 60, 8, 0.2, 3.0);
  const auto X = random_features<double>(60, 5, 2);
  const auto model = model_with_biases<double>(5, {7, 2}, 6);
  for (bool weighted : {false, true}) {
    for (bool in_edges : {false, true}) {
      GcnOptions o;
      o.weighted = weighted;
      o.in_edges = in_edges;
      o.device = Device::Cpu;
      const Mat want = naive_gcn(dense_a_hat(to_dense(g, weighted), in_edges), X, model);
      SCOPED_TRACE(std::string(weighted ? "weighted" : "pattern") + (in_edges ? " in" : " out"));
      EXPECT_LE(max_abs_diff(gcn_inference(g, X, model, o), want), 1e-12);
    }
  }
}

TEST(Gcn, NormalizedGraphIsReusableAndEqualsDenseAHat) {
  const auto g = random_graph<std::int32_t, Pattern>(Family::SelfLoops, 30, 2);
  const auto a_hat = gcn_normalize<double>(g);
  const Mat want = dense_a_hat(to_dense(g), false);
  for (std::int32_t i = 0; i < a_hat.rows(); ++i) {
    double row = 0.0;
    for (std::int32_t k = a_hat.row_ptr()[i]; k < a_hat.row_ptr()[i + 1]; ++k) {
      EXPECT_NEAR(a_hat.values()[k], want[i][a_hat.col_idx()[k]], 1e-15);
      row += want[i][a_hat.col_idx()[k]];
    }
    double full = 0.0;
    for (double v : want[i]) full += v;
    EXPECT_NEAR(row, full, 1e-15);  // no entry of the dense Â is missing from the graph
  }
  const auto X = random_features<double>(30, 4, 9);
  const auto model = model_with_biases<double>(4, {3}, 1);
  GcnOptions o;
  o.device = Device::Cpu;
  const auto a = gcn_inference_normalized(a_hat, X, model, o);
  const auto b = gcn_inference(g, X, model, o);
  EXPECT_EQ(a.storage(), b.storage());
}

TEST(Gcn, WorkspaceReuseGivesTheSameResultEveryCall) {
  const auto g = random_graph<std::int32_t, Pattern>(Family::PowerLaw, 70, 12);
  const auto a_hat = gcn_normalize<double>(g);
  const auto model = model_with_biases<double>(6, {9, 9, 4}, 2);  // includes an equal-width layer
  GcnOptions o;
  o.device = Device::Cpu;
  GcnWorkspace<double> ws;
  for (std::uint64_t seed : {1, 2, 1}) {
    const auto X = random_features<double>(70, 6, seed);
    const auto want = gcn_inference_normalized(a_hat, X, model, o);
    const DenseMatrix<double>& got = gcn_inference_normalized(a_hat, X, model, ws, o);
    EXPECT_EQ(got.storage(), want.storage());
    EXPECT_LE(max_abs_diff(got, naive_gcn(dense_a_hat(to_dense(g), false), X, model)), 1e-12);
  }
}

TEST(Gcn, OrderRulePicksTheNarrowerSideForAggregation) {
  EXPECT_TRUE(gcn_aggregate_first(16, 128, GcnOrder::Auto));
  EXPECT_FALSE(gcn_aggregate_first(128, 32, GcnOrder::Auto));
  // Equal widths transform first, so the bias and activation fuse into the SpMM epilogue.
  EXPECT_FALSE(gcn_aggregate_first(64, 64, GcnOrder::Auto));
  EXPECT_TRUE(gcn_aggregate_first(128, 32, GcnOrder::AggregateFirst));
  EXPECT_FALSE(gcn_aggregate_first(16, 128, GcnOrder::TransformFirst));
}

TEST(Gcn, ReportsEveryStepInOrderWithoutChangingTheResult) {
  const auto g = random_graph<std::int32_t, Pattern>(Family::PowerLaw, 50, 3);
  const auto a_hat = gcn_normalize<double>(g);
  // 4 -> 8 aggregates first (narrower input), 8 -> 3 transforms first.
  const auto model = model_with_biases<double>(4, {8, 3}, 5);
  const auto X = random_features<double>(50, 4, 6);
  GcnOptions o;
  o.device = Device::Cpu;
  const auto want = gcn_inference_normalized(a_hat, X, model, o);
  std::vector<GcnStage> seen;
  o.on_stage = [&](const GcnStage& st) { seen.push_back(st); };
  const auto got = gcn_inference_normalized(a_hat, X, model, o);
  EXPECT_EQ(got.storage(), want.storage());
  using K = GcnStage::Kind;
  struct Want {
    K kind;
    std::size_t layer;
    std::int64_t in, out;
    bool bias, relu;
  };
  const Want steps[] = {{K::Aggregate, 0, 4, 4, false, false},
                        {K::Transform, 0, 4, 8, false, false},
                        {K::Bias, 0, 8, 8, true, true},
                        {K::Transform, 1, 8, 3, false, false},
                        {K::Aggregate, 1, 3, 3, true, false}};
  ASSERT_EQ(seen.size(), std::size(steps));
  for (std::size_t i = 0; i < seen.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    EXPECT_EQ(seen[i].kind, steps[i].kind);
    EXPECT_EQ(seen[i].layer, steps[i].layer);
    EXPECT_EQ(seen[i].in_width, steps[i].in);
    EXPECT_EQ(seen[i].out_width, steps[i].out);
    EXPECT_EQ(seen[i].bias, steps[i].bias);
    EXPECT_EQ(seen[i].relu, steps[i].relu);
  }
}

TEST(Gcn, GlorotWeightsAreSeededAndBounded) {
  const auto a = glorot_model<float>(128, {128, 32}, 42);
  const auto b = glorot_model<float>(128, {128, 32}, 42);
  const auto c = glorot_model<float>(128, {128, 32}, 43);
  ASSERT_EQ(a.num_layers(), 2u);
  EXPECT_EQ(a.weights[0].rows(), 128);
  EXPECT_EQ(a.weights[0].cols(), 128);
  EXPECT_EQ(a.weights[1].rows(), 128);
  EXPECT_EQ(a.weights[1].cols(), 32);
  EXPECT_EQ(a.weights[1].storage(), b.weights[1].storage());
  EXPECT_NE(a.weights[1].storage(), c.weights[1].storage());
  const double limit = std::sqrt(6.0 / (128 + 32));
  double mean = 0.0;
  for (float w : a.weights[1].storage()) {
    EXPECT_LE(std::fabs(w), limit);
    mean += w;
  }
  EXPECT_NEAR(mean / a.weights[1].size(), 0.0, 0.02);
  for (std::int64_t j = 0; j < 32; ++j) EXPECT_EQ(a.biases[1][j], 0.0f);
  EXPECT_THROW(glorot_model<float>(0, {4}, 1), InvalidArgument);
  EXPECT_THROW(glorot_model<float>(4, {}, 1), InvalidArgument);
  EXPECT_THROW(glorot_model<float>(4, {3, 0}, 1), InvalidArgument);
}

TEST(Gcn, RefusesShapesThatDoNotChain) {
  const auto g = random_graph<std::int32_t, Pattern>(Family::Uniform, 10, 1);
  const auto model = glorot_model<double>(4, {3, 2}, 1);
  GcnOptions o;
  o.device = Device::Cpu;
  EXPECT_THROW(gcn_inference(g, random_features<double>(10, 5, 1), model, o), DimensionMismatch);
  EXPECT_THROW(gcn_inference(g, random_features<double>(9, 4, 1), model, o), DimensionMismatch);
  auto bad = model;
  bad.biases[0] = Vector<double>(4, 0.0);
  EXPECT_THROW(gcn_inference(g, random_features<double>(10, 4, 1), bad, o), DimensionMismatch);
  bad = model;
  bad.biases.pop_back();
  EXPECT_THROW(gcn_inference(g, random_features<double>(10, 4, 1), bad, o), InvalidArgument);
  EXPECT_THROW(gcn_inference(g, random_features<double>(10, 4, 1), GcnModel<double>{}, o),
               InvalidArgument);
}

TEST(Gemm, MatchesTripleLoopOnOddShapes) {
  for (auto [m, k, n] : std::vector<std::array<std::int64_t, 3>>{
           {1, 1, 1}, {7, 0, 3}, {0, 5, 2}, {33, 130, 17}, {200, 3, 600}}) {
    const auto A = random_features<double>(m, k, m + k);
    const auto B = random_features<double>(k, n, k + n);
    DenseMatrix<double> C;
    gemm(C, A, B, Device::Cpu);
    ASSERT_EQ(C.rows(), m);
    ASSERT_EQ(C.cols(), n);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0.0;
        for (std::int64_t t = 0; t < k; ++t) s += A(i, t) * B(t, j);
        EXPECT_NEAR(C(i, j), s, 1e-12) << m << "x" << k << "x" << n;
      }
  }
  DenseMatrix<float> C;
  EXPECT_THROW(gemm(C, DenseMatrix<float>(2, 3), DenseMatrix<float>(4, 2), Device::Cpu),
               DimensionMismatch);
  EXPECT_THROW(gemm_tuned(C, DenseMatrix<float>(2, 3), DenseMatrix<float>(4, 2), Device::Cpu),
               DimensionMismatch);
}

TEST(Gemm, TuningModeOnTheCpuIsThePlainProductAndReportsNothing) {
  const auto A = random_features<double>(45, 19, 4);
  const auto B = random_features<double>(19, 6, 5);
  DenseMatrix<double> plain, tuned(45, 6, std::nan(""));
  gemm(plain, A, B, Device::Cpu);
  EXPECT_EQ(gemm_tuned(tuned, A, B, Device::Cpu), "");
  ASSERT_EQ(tuned.rows(), 45);
  ASSERT_EQ(tuned.cols(), 6);
  for (std::int64_t e = 0; e < plain.size(); ++e) EXPECT_EQ(tuned.data()[e], plain.data()[e]);
}

}  // namespace
}  // namespace spindle::test
