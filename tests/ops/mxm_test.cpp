// SPDX-License-Identifier: Apache-2.0
// mxm (sparse x dense) against a dense oracle: every semiring x value / index / graph value type
// x shape x width N, transposes, accumulators, user-defined semirings, errors and planning.
#include <gtest/gtest.h>

#include "ops_test_util.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/cpu/mxm_impl.hpp"
#include "spindle/ops/mxm.hpp"

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

// C(i,n) = ⊕_k mul(E(i,k), B(k,n)) over k ascending; the identity for an empty row.
template <class T, class V>
DenseMatrix<T> oracle_mxm(SemiringKind kind, const DenseRef& E, const DenseMatrix<T>& B) {
  DenseMatrix<T> C(E.rows, B.cols());
  for (std::int64_t i = 0; i < E.rows; ++i) {
    for (std::int64_t n = 0; n < B.cols(); ++n) {
      std::vector<T> terms;
      for (std::int64_t k = 0; k < E.cols; ++k) {
        if (E.has(i, k)) {
          terms.push_back(
              test::oracle_mul(kind, static_cast<T>(test::graph_value<V>(E, i, k)), B(k, n)));
        }
      }
      C(i, n) = test::oracle_reduce(kind, terms);
    }
  }
  return C;
}

template <class T>
void expect_dense(const DenseMatrix<T>& got, const DenseMatrix<T>& want, bool exact,
                  const std::string& ctx) {
  ASSERT_EQ(got.rows(), want.rows()) << ctx;
  ASSERT_EQ(got.cols(), want.cols()) << ctx;
  for (std::int64_t k = 0; k < got.size(); ++k) {
    ASSERT_TRUE(test::close(got.data()[k], want.data()[k], exact))
        << ctx << " at " << k << ": got " << got.data()[k] << " want " << want.data()[k];
  }
}

TEST(Mxm, EverySemiringTypeShapeAndTransposeMatchesDenseOracle) {
  std::uint64_t seed = 2000;
  test::for_each_type([&](auto t, auto i, auto v) {
    using T = decltype(t);
    using I = decltype(i);
    using V = decltype(v);
    for (const auto& shape : test::standard_shapes()) {
      const DenseRef ref = test::make_shape(shape, ++seed);
      const auto A = test::to_graph<I, V>(ref);
      for (bool tr : {false, true}) {
        const DenseRef E = tr ? ref.transposed() : ref;
        for (std::int64_t n : {1, 5}) {
          const DenseMatrix<T> B = random_dense<T>(E.cols, n, ++seed);
          for (SemiringKind kind : kBuiltinSemirings) {
            visit_semiring<T>(kind, [&](auto s) {
              DenseMatrix<T> C;
              Descriptor d;
              d.transpose_a = tr;
              mxm(C, s, A, B, d);
              expect_dense(C, oracle_mxm<T, V>(kind, E, B), !test::is_plus_kind(kind),
                           std::string(to_string(kind)) + " " + to_string(value_kind_of<V>()) +
                               (tr ? " A^T " : " A ") + std::to_string(E.rows) + "x" +
                               std::to_string(E.cols) + " N=" + std::to_string(n));
            });
          }
        }
      }
    }
  });
}

TEST(Mxm, WideAndEmptyWidthsAccumulatorAndTransposedB) {
  const DenseRef ref = test::random_matrix(70, 50, 21);
  const auto A = test::to_graph<std::int64_t, float>(ref);
  for (std::int64_t n : {0, 17, 64}) {
    const DenseMatrix<double> B = random_dense<double>(50, n, 22);
    const auto want = oracle_mxm<double, float>(SemiringKind::PlusTimes, ref, B);
    DenseMatrix<double> C;
    mxm(C, semiring::plus_times<double>{}, A, B);
    expect_dense(C, want, false, "N=" + std::to_string(n));
    // Accumulate min into C = 1.
    DenseMatrix<double> C2(70, n, 1.0);
    mxm(C2, Accum::min(), semiring::plus_times<double>{}, A, B);
    DenseMatrix<double> want2 = want;
    for (auto& x : want2.storage()) x = std::min(1.0, x);
    expect_dense(C2, want2, false, "accum min N=" + std::to_string(n));
    // B given transposed.
    DenseMatrix<double> Bt(n, 50);
    for (std::int64_t r = 0; r < 50; ++r) {
      for (std::int64_t c = 0; c < n; ++c) Bt(c, r) = B(r, c);
    }
    DenseMatrix<double> C3;
    Descriptor d;
    d.transpose_b = true;
    mxm(C3, semiring::plus_times<double>{}, A, Bt, d);
    expect_dense(C3, want, false, "B^T N=" + std::to_string(n));
  }
}

TEST(Mxm, ShapeErrorsAndAliasingThrow) {
  const auto A = test::to_graph<std::int32_t, float>(test::random_matrix(20, 10, 23));
  const semiring::plus_times<float> s;
  DenseMatrix<float> C;
  EXPECT_THROW(mxm(C, s, A, DenseMatrix<float>(11, 4)), DimensionMismatch);
  DenseMatrix<float> C_bad(20, 3);
  EXPECT_THROW(mxm(C_bad, Accum::plus(), s, A, DenseMatrix<float>(10, 4)), DimensionMismatch);
  const auto Sq = test::to_graph<std::int32_t, float>(test::random_matrix(10, 10, 24));
  DenseMatrix<float> X(10, 10, 1.0f);
  EXPECT_THROW(mxm(X, s, Sq, X), InvalidArgument);
}

// mul(a, b) = 10a + b does not commute: the kernel must apply mul(A(i,k), B(k,n)).
struct affine_plus {
  using value_type = double;
  static constexpr SemiringKind kind = SemiringKind::Custom;
  static constexpr bool has_terminal = false;
  static constexpr double identity() { return 0.0; }
  static constexpr double terminal() { return 0.0; }
  static constexpr double add(double a, double b) { return a + b; }
  static constexpr double mul(double a, double b) { return 10.0 * a + b; }
};

TEST(Mxm, UserDefinedSemiringRunsThroughCpuHeader) {
  const DenseRef ref = test::random_matrix(30, 20, 25);
  const auto A = test::to_graph<std::int32_t, double>(ref);
  const DenseMatrix<double> B = random_dense<double>(20, 3, 26);
  DenseMatrix<double> C;
  cpu::mxm(C, Accum::none(), affine_plus{}, A, B);
  for (std::int64_t i = 0; i < 30; ++i) {
    for (std::int64_t n = 0; n < 3; ++n) {
      double s = 0;
      for (std::int64_t k = 0; k < 20; ++k) {
        if (ref.has(i, k)) s += 10.0 * ref.at(i, k) + B(k, n);
      }
      ASSERT_NEAR(C(i, n), s, 1e-9) << i << "," << n;
    }
  }
}

TEST(Mxm, CpuPlanAndForcedGpuKernelFallBack) {
  const auto A = test::to_graph<std::int32_t, float>(test::random_matrix(30, 30, 27));
  using S = semiring::plus_times<float>;
  const Plan p = plan_for_mxm<S>(A, 16, Descriptor{}.on(Device::Cpu));
  EXPECT_EQ(p.mxm, MxmKernel::CpuRowBalanced);
  EXPECT_EQ(p.op, OpKind::Mxm);
  const Plan f = plan_for_mxm<S>(A, 16, Descriptor{}.on(Device::Cpu).force(MxmKernel::RowCacheSeq));
  EXPECT_EQ(f.mxm, MxmKernel::CpuRowBalanced);
  EXPECT_FALSE(f.forced);
  EXPECT_NE(f.reason.find("fell back"), std::string::npos) << f.reason;
  if (!built_with_cuda()) {
    DenseMatrix<float> C;
    EXPECT_THROW(mxm(C, S{}, A, DenseMatrix<float>(30, 2), Descriptor{}.on(Device::Cuda)),
                 Unsupported);
  }
}

}  // namespace
}  // namespace spindle
