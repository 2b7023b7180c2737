// SPDX-License-Identifier: Apache-2.0
// eWiseAdd / eWiseMult / apply / add_row_bias on vectors and dense matrices against oracles
// written from the GraphBLAS definitions; masks, accumulators, replace, aliasing, errors.
#include <gtest/gtest.h>

#include <cmath>

#include "ops_test_util.hpp"
#include "spindle/dense.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/ewise.hpp"

namespace spindle {
namespace {

using test::MaskCase;
using test::RefVec;

template <class T>
T oracle_unary(UnaryOp op, T x, T s) {
  switch (op) {
    case UnaryOp::Identity:
      return x;
    case UnaryOp::AInv:
      return -x;
    case UnaryOp::MInv:
      return T(1) / x;
    case UnaryOp::Abs:
      return x < 0 ? -x : x;
    case UnaryOp::One:
      return T(1);
    case UnaryOp::Relu:
      return std::max(x, T(0));
    case UnaryOp::Sqrt:
      return static_cast<T>(std::sqrt(x));
    case UnaryOp::RSqrt:
      return x == 0 ? T(0) : static_cast<T>(T(1) / std::sqrt(x));
    case UnaryOp::PlusScalar:
      return x + s;
    case UnaryOp::TimesScalar:
      return x * s;
    case UnaryOp::MinScalar:
      return std::min(x, s);
    case UnaryOp::MaxScalar:
      return std::max(x, s);
    case UnaryOp::DivByScalar:
      return x / s;
    case UnaryOp::ScalarDiv:
      return x == 0 ? T(0) : s / x;
    case UnaryOp::IsNonzero:
      return x != 0 ? T(1) : T(0);
  }
  return x;
}

const UnaryOp kUnaryOps[] = {UnaryOp::Identity,    UnaryOp::AInv,      UnaryOp::MInv,
                             UnaryOp::Abs,         UnaryOp::One,       UnaryOp::Relu,
                             UnaryOp::Sqrt,        UnaryOp::RSqrt,     UnaryOp::PlusScalar,
                             UnaryOp::TimesScalar, UnaryOp::MinScalar, UnaryOp::MaxScalar,
                             UnaryOp::DivByScalar, UnaryOp::ScalarDiv, UnaryOp::IsNonzero};
const BinaryOp kBinaryOps[] = {BinaryOp::First, BinaryOp::Second, BinaryOp::Plus, BinaryOp::Minus,
                               BinaryOp::Times, BinaryOp::Div,    BinaryOp::Min,  BinaryOp::Max,
                               BinaryOp::LOr,   BinaryOp::LAnd,   BinaryOp::Any,  BinaryOp::Pair};
const Accum kAccums[] = {Accum::none(), Accum::plus(), Accum::max(), Accum::with(BinaryOp::First)};

// Integer division by zero is undefined behaviour in C++; those cases only run for floats.
template <class T>
bool divides(UnaryOp op) {
  return std::is_floating_point_v<T> || (op != UnaryOp::MInv && op != UnaryOp::DivByScalar);
}
template <class T>
bool divides(BinaryOp op) {
  return std::is_floating_point_v<T> || op != BinaryOp::Div;
}

template <class T>
RefVec<T> oracle_ewise(const RefVec<T>& u, const RefVec<T>& v, BinaryOp op, bool is_union) {
  RefVec<T> t{u.v, u.p};
  for (std::size_t i = 0; i < u.v.size(); ++i) {
    if (u.p[i] && v.p[i]) {
      t.v[i] = test::oracle_binary(op, u.v[i], v.v[i]);
      t.p[i] = 1;
    } else if (is_union && (u.p[i] || v.p[i])) {
      t.v[i] = u.p[i] ? u.v[i] : v.v[i];
      t.p[i] = 1;
    } else {
      t.p[i] = 0;
    }
  }
  return t;
}

TEST(Ewise, AddAndMultMatchOracleForEveryOpTypeMaskAndAccumulator) {
  std::uint64_t seed = 300;
  test::for_each_vector_type([&](auto tag) {
    using T = decltype(tag);
    for (std::int64_t n : {0, 1, 257}) {
      for (const MaskCase& mask : test::all_masks(n, ++seed)) {
        for (bool replace : {false, true}) {
          for (Accum accum : kAccums) {
            for (BinaryOp op : kBinaryOps) {
              if (!divides<T>(op)) continue;
              for (double absent : {0.0, 0.4}) {
                const Vector<T> u = test::random_vector<T>(n, absent, ++seed);
                const Vector<T> v = test::random_vector<T>(n, absent, ++seed);
                const Vector<T> w0 = test::random_vector<T>(n, 0.3, ++seed);
                for (bool is_union : {true, false}) {
                  Vector<T> w = w0;
                  const RefVec<T> want = test::oracle_output(
                      test::ref_of(w0),
                      oracle_ewise(test::ref_of(u), test::ref_of(v), op, is_union), mask, accum,
                      replace);
                  const Descriptor d = Descriptor{}.with_replace(replace);
                  if (is_union) {
                    ewise_add(w, mask.mask(), accum, op, u, v, d);
                  } else {
                    ewise_mult(w, mask.mask(), accum, op, u, v, d);
                  }
                  test::expect_matches(w, want, true,
                                       test::type_name<T>() + (is_union ? " add " : " mult ") +
                                           to_string(op) + " " + mask.name() +
                                           " n=" + std::to_string(n));
                }
              }
            }
          }
        }
      }
    }
  });
}

TEST(Ewise, OutputMayAliasEitherInput) {
  const Vector<double> u0 = test::random_vector<double>(300, 0.3, 1);
  const Vector<double> v = test::random_vector<double>(300, 0.3, 2);
  const RefVec<double> want_add =
      oracle_ewise(test::ref_of(u0), test::ref_of(v), BinaryOp::Minus, true);
  Vector<double> u = u0;
  ewise_add(u, Mask{}, Accum::none(), BinaryOp::Minus, u, v);
  test::expect_matches(u, want_add, true, "w aliases u");
  Vector<double> v2 = v;
  const RefVec<double> want_mult =
      oracle_ewise(test::ref_of(u0), test::ref_of(v), BinaryOp::Times, false);
  ewise_mult(v2, Mask{}, Accum::none(), BinaryOp::Times, u0, v2);
  test::expect_matches(v2, want_mult, true, "w aliases v");
}

TEST(Ewise, DenseMatchesElementwiseOracleWithAndWithoutAccumulator) {
  std::mt19937_64 rng(7);
  DenseMatrix<float> A(13, 7);
  DenseMatrix<float> B(13, 7);
  for (auto& x : A.storage()) x = float(rng() % 9) - 4;
  for (auto& x : B.storage()) x = float(rng() % 9) - 4;
  for (BinaryOp op : kBinaryOps) {
    for (Accum accum : kAccums) {
      DenseMatrix<float> C(13, 7, 1.5f);
      ewise(C, accum, op, A, B);
      for (std::int64_t k = 0; k < A.size(); ++k) {
        const float t = test::oracle_binary(op, A.data()[k], B.data()[k]);
        const float want = accum.enabled ? test::oracle_binary(accum.op, 1.5f, t) : t;
        ASSERT_TRUE(test::close(C.data()[k], want, true)) << to_string(op) << " at " << k;
      }
    }
  }
  DenseMatrix<float> C;
  EXPECT_THROW(ewise(C, Accum::none(), BinaryOp::Plus, A, DenseMatrix<float>(13, 8)),
               DimensionMismatch);
  DenseMatrix<float> C_bad(2, 2);
  EXPECT_THROW(ewise(C_bad, Accum::plus(), BinaryOp::Plus, A, B), DimensionMismatch);
}

TEST(Ewise, SizeMismatchThrowsDimensionMismatch) {
  Vector<float> w;
  EXPECT_THROW(
      ewise_add(w, Mask{}, Accum::none(), BinaryOp::Plus, Vector<float>(4), Vector<float>(5)),
      DimensionMismatch);
  Vector<float> w3(3);
  EXPECT_THROW(
      ewise_mult(w3, Mask{}, Accum::plus(), BinaryOp::Plus, Vector<float>(4), Vector<float>(4)),
      DimensionMismatch);
}

TEST(Apply, VectorMatchesOracleForEveryUnaryOpTypeMaskAndAccumulator) {
  std::uint64_t seed = 500;
  test::for_each_vector_type([&](auto tag) {
    using T = decltype(tag);
    const std::int64_t n = 200;
    for (const MaskCase& mask : test::all_masks(n, ++seed)) {
      for (bool replace : {false, true}) {
        for (Accum accum : kAccums) {
          for (UnaryOp op : kUnaryOps) {
            if (!divides<T>(op)) continue;
            for (double absent : {0.0, 0.4}) {
              const Vector<T> u = test::random_vector<T>(n, absent, ++seed);
              Vector<T> w = test::random_vector<T>(n, 0.3, ++seed);
              const T s = T(3);
              RefVec<T> t = test::ref_of(u);
              for (std::int64_t i = 0; i < n; ++i) t.v[i] = oracle_unary(op, t.v[i], s);
              const RefVec<T> want = test::oracle_output(test::ref_of(w), t, mask, accum, replace);
              apply(w, mask.mask(), accum, Unary<T>::make(op, s), u,
                    Descriptor{}.with_replace(replace));
              test::expect_matches(w, want, true,
                                   test::type_name<T>() + " " + to_string(op) + " " + mask.name());
            }
          }
        }
      }
    }
  });
}

// apply_index: t(i) = i + s on u's structure (its values unread), through every mask, accumulator
// and replace, for every vector type; also in place (w = u) and into a w of another size.
TEST(Apply, IndexMatchesOracleForEveryTypeMaskAndAccumulator) {
  std::uint64_t seed = 900;
  test::for_each_vector_type([&](auto tag) {
    using T = decltype(tag);
    const std::int64_t n = 300;
    for (const MaskCase& mask : test::all_masks(n, ++seed)) {
      for (bool replace : {false, true}) {
        for (Accum accum : kAccums) {
          for (double absent : {0.0, 0.5}) {
            const Vector<T> u = test::random_vector<T>(n, absent, ++seed);
            Vector<T> w = test::random_vector<T>(n, 0.3, ++seed);
            const T s = T(-7);
            RefVec<T> t = test::ref_of(u);
            for (std::int64_t i = 0; i < n; ++i) t.v[i] = static_cast<T>(i) + s;
            const RefVec<T> want = test::oracle_output(test::ref_of(w), t, mask, accum, replace);
            apply_index(w, mask.mask(), accum, u, s, Descriptor{}.with_replace(replace));
            test::expect_matches(w, want, true, test::type_name<T>() + " " + mask.name());
          }
        }
      }
    }
  });
  Vector<double> u = test::random_vector<double>(50, 0.4, 3);
  RefVec<double> want = test::ref_of(u);
  for (std::int64_t i = 0; i < 50; ++i) want.v[i] = double(i) + 1.0;
  apply_index(u, Mask{}, Accum::none(), u, 1.0);
  test::expect_matches(u, want, true, "in place");
  Vector<float> w(3, 9.0f);
  apply_index(w, Mask{}, Accum::none(), Vector<float>(5, 0.0f), 10.0f);
  ASSERT_EQ(w.size(), 5);
  for (std::int64_t i = 0; i < 5; ++i) EXPECT_EQ(w[i], float(i) + 10.0f);
  EXPECT_THROW(apply_index(w, Mask{}, Accum::plus(), Vector<float>(7), 0.0f), DimensionMismatch);
}

TEST(Apply, VectorInPlaceReadsEachEntryBeforeWritingIt) {
  Vector<float> u = test::random_vector<float>(100, 0.3, 9);
  RefVec<float> want = test::ref_of(u);
  for (auto& x : want.v) x = x * 2.0f;
  apply(u, Mask{}, Accum::none(), Unary<float>::times(2.0f), u);
  test::expect_matches(u, want, true, "in place");
}

TEST(Apply, DenseAndRowBiasMatchOracle) {
  std::mt19937_64 rng(11);
  DenseMatrix<double> A(9, 5);
  for (auto& x : A.storage()) x = double(rng() % 9) - 4;
  for (UnaryOp op : kUnaryOps) {
    DenseMatrix<double> C;
    apply(C, Accum::none(), Unary<double>::make(op, 2.0), A);
    DenseMatrix<double> C2(9, 5, 1.0);
    apply(C2, Accum::plus(), Unary<double>::make(op, 2.0), A);
    for (std::int64_t k = 0; k < A.size(); ++k) {
      const double t = oracle_unary(op, A.data()[k], 2.0);
      ASSERT_TRUE(test::close(C.data()[k], t, true)) << to_string(op);
      ASSERT_TRUE(test::close(C2.data()[k], 1.0 + t, true)) << to_string(op);
    }
  }
  Vector<double> bias(5);
  for (std::int64_t j = 0; j < 5; ++j) bias[j] = double(j) - 2.5;
  bias.remove(3);  // an absent bias entry adds nothing
  for (UnaryOp op : {UnaryOp::Identity, UnaryOp::Relu}) {
    DenseMatrix<double> C = A;
    add_row_bias(C, bias, Unary<double>::make(op));
    for (std::int64_t i = 0; i < 9; ++i) {
      for (std::int64_t j = 0; j < 5; ++j) {
        const double b = j == 3 ? 0.0 : double(j) - 2.5;
        ASSERT_EQ(C(i, j), oracle_unary(op, A(i, j) + b, 0.0)) << i << "," << j;
      }
    }
  }
  DenseMatrix<double> C = A;
  EXPECT_THROW(add_row_bias(C, Vector<double>(4)), DimensionMismatch);
}

TEST(Ewise, CudaDeviceThrowsUnsupportedInCpuBuild) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  const Descriptor d = Descriptor{}.on(Device::Cuda);
  Vector<float> w(4);
  const Vector<float> u(4, 1.0f);
  EXPECT_THROW(ewise_add(w, Mask{}, Accum::none(), BinaryOp::Plus, u, u, d), Unsupported);
  EXPECT_THROW(ewise_mult(w, Mask{}, Accum::none(), BinaryOp::Plus, u, u, d), Unsupported);
  EXPECT_THROW(apply(w, Mask{}, Accum::none(), Unary<float>{}, u, d), Unsupported);
  EXPECT_THROW(apply_index(w, Mask{}, Accum::none(), u, 1.0f, d), Unsupported);
  DenseMatrix<float> C(2, 2);
  EXPECT_THROW(apply(C, Accum::none(), Unary<float>{}, C, d), Unsupported);
}

}  // namespace
}  // namespace spindle
