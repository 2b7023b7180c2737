// SPDX-License-Identifier: Apache-2.0
// sddmm against a dense oracle: every semiring x value / index / graph value type x shape x K
// (including K = 0), accumulators, Y given transposed, user-defined semirings and errors.
#include <gtest/gtest.h>

#include "ops_test_util.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/cpu/sddmm_impl.hpp"
#include "spindle/ops/sddmm.hpp"

namespace spindle {
namespace {

using test::DenseRef;

template <class T>
DenseMatrix<T> random_dense(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  DenseMatrix<T> m(rows, cols);
  for (auto& x : m.storage()) x = static_cast<T>(double(rng() % 13) / 4.0);
  return m;
}

// out in S's storage order (rows, then columns ascending): mul(S(i,j), ⊕_c mul(X(i,c), Y(j,c))).
template <class T, class V>
std::vector<T> oracle_sddmm(SemiringKind kind, const DenseRef& S, const DenseMatrix<T>& X,
                            const DenseMatrix<T>& Y) {
  std::vector<T> out;
  for (std::int64_t i = 0; i < S.rows; ++i) {
    for (std::int64_t j = 0; j < S.cols; ++j) {
      if (!S.has(i, j)) continue;
      std::vector<T> terms;
      for (std::int64_t c = 0; c < X.cols(); ++c) {
        terms.push_back(test::oracle_mul(kind, X(i, c), Y(j, c)));
      }
      out.push_back(test::oracle_mul(kind, static_cast<T>(test::graph_value<V>(S, i, j)),
                                     test::oracle_reduce(kind, terms)));
    }
  }
  return out;
}

template <class T>
void expect_values(const std::vector<T>& got, const std::vector<T>& want, bool exact,
                   const std::string& ctx) {
  ASSERT_EQ(got.size(), want.size()) << ctx;
  for (std::size_t k = 0; k < got.size(); ++k) {
    ASSERT_TRUE(test::close(got[k], want[k], exact))
        << ctx << " at " << k << ": got " << got[k] << " want " << want[k];
  }
}

TEST(Sddmm, EverySemiringTypeShapeAndKMatchesDenseOracle) {
  std::uint64_t seed = 3000;
  test::for_each_type([&](auto t, auto i, auto v) {
    using T = decltype(t);
    using I = decltype(i);
    using V = decltype(v);
    for (const auto& shape : test::standard_shapes()) {
      const DenseRef ref = test::make_shape(shape, ++seed);
      const auto S = test::to_graph<I, V>(ref);
      for (std::int64_t k : {0, 1, 5, 19}) {
        const DenseMatrix<T> X = random_dense<T>(ref.rows, k, ++seed);
        const DenseMatrix<T> Y = random_dense<T>(ref.cols, k, ++seed);
        for (SemiringKind kind : kBuiltinSemirings) {
          visit_semiring<T>(kind, [&](auto s) {
            std::vector<T> out;
            sddmm(out, s, S, X, Y);
            expect_values(out, oracle_sddmm<T, V>(kind, ref, X, Y), !test::is_plus_kind(kind),
                          std::string(to_string(kind)) + " " + to_string(value_kind_of<V>()) + " " +
                              std::to_string(ref.rows) + "x" + std::to_string(ref.cols) +
                              " K=" + std::to_string(k));
          });
        }
      }
    }
  });
}

TEST(Sddmm, AccumulatorAndTransposedY) {
  const DenseRef ref = test::random_matrix(40, 30, 31);
  const auto S = test::to_graph<std::int32_t, float>(ref);
  const DenseMatrix<float> X = random_dense<float>(40, 33, 32);
  const DenseMatrix<float> Y = random_dense<float>(30, 33, 33);
  const auto want = oracle_sddmm<float, float>(SemiringKind::PlusTimes, ref, X, Y);
  std::vector<float> out(want.size(), 2.0f);
  sddmm(out, Accum::plus(), semiring::plus_times<float>{}, S, X, Y);
  std::vector<float> want2 = want;
  for (auto& x : want2) x = 2.0f + x;
  expect_values(out, want2, false, "accum plus");
  DenseMatrix<float> Yt(33, 30);
  for (std::int64_t r = 0; r < 30; ++r) {
    for (std::int64_t c = 0; c < 33; ++c) Yt(c, r) = Y(r, c);
  }
  std::vector<float> out2;
  Descriptor d;
  d.transpose_b = true;
  sddmm(out2, semiring::plus_times<float>{}, S, X, Yt, d);
  expect_values(out2, want, false, "Y^T");
}

TEST(Sddmm, ShapeErrorsThrowDimensionMismatch) {
  const auto S = test::to_graph<std::int32_t, float>(test::random_matrix(20, 10, 34));
  const semiring::plus_times<float> s;
  std::vector<float> out;
  EXPECT_THROW(sddmm(out, s, S, DenseMatrix<float>(20, 4), DenseMatrix<float>(10, 5)),
               DimensionMismatch);
  EXPECT_THROW(sddmm(out, s, S, DenseMatrix<float>(19, 4), DenseMatrix<float>(10, 4)),
               DimensionMismatch);
  EXPECT_THROW(sddmm(out, s, S, DenseMatrix<float>(20, 4), DenseMatrix<float>(11, 4)),
               DimensionMismatch);
  std::vector<float> short_out(3);
  EXPECT_THROW(
      sddmm(short_out, Accum::plus(), s, S, DenseMatrix<float>(20, 4), DenseMatrix<float>(10, 4)),
      DimensionMismatch);
}

struct affine_plus {
  using value_type = double;
  static constexpr SemiringKind kind = SemiringKind::Custom;
  static constexpr bool has_terminal = false;
  static constexpr double identity() { return 0.0; }
  static constexpr double terminal() { return 0.0; }
  static constexpr double add(double a, double b) { return a + b; }
  static constexpr double mul(double a, double b) { return 10.0 * a + b; }
};

TEST(Sddmm, UserDefinedSemiringKeepsOperandOrder) {
  const DenseRef ref = test::random_matrix(15, 12, 35);
  const auto S = test::to_graph<std::int64_t, double>(ref);
  const DenseMatrix<double> X = random_dense<double>(15, 11, 36);
  const DenseMatrix<double> Y = random_dense<double>(12, 11, 37);
  std::vector<double> out;
  cpu::sddmm(out, Accum::none(), affine_plus{}, S, X, Y);
  std::size_t e = 0;
  for (std::int64_t i = 0; i < 15; ++i) {
    for (std::int64_t j = 0; j < 12; ++j) {
      if (!ref.has(i, j)) continue;
      double dot = 0;
      for (std::int64_t c = 0; c < 11; ++c) dot += 10.0 * X(i, c) + Y(j, c);
      ASSERT_NEAR(out[e], 10.0 * ref.at(i, j) + dot, 1e-9) << i << "," << j;
      ++e;
    }
  }
}

TEST(Sddmm, CpuPlanAndForcedGpuKernelFallBack) {
  const auto S = test::to_graph<std::int32_t, float>(test::random_matrix(30, 30, 38));
  using Sr = semiring::plus_times<float>;
  const Plan p = plan_for_sddmm<Sr>(S, 16, Descriptor{}.on(Device::Cpu));
  EXPECT_EQ(p.sddmm, SddmmKernel::CpuRowBalanced);
  const Plan f = plan_for_sddmm<Sr>(S, 16, Descriptor{}.on(Device::Cpu).force(SddmmKernel::Wmt));
  EXPECT_EQ(f.sddmm, SddmmKernel::CpuRowBalanced);
  EXPECT_NE(f.reason.find("fell back"), std::string::npos) << f.reason;
  if (!built_with_cuda()) {
    std::vector<float> out;
    EXPECT_THROW(sddmm(out, Sr{}, S, DenseMatrix<float>(30, 2), DenseMatrix<float>(30, 2),
                       Descriptor{}.on(Device::Cuda)),
                 Unsupported);
  }
}

}  // namespace
}  // namespace spindle
