// SPDX-License-Identifier: Apache-2.0
// The cuBLAS dense product (ops/cuda/gemm) against a naive double-precision product: the plain
// path, tuning mode (timed once per shape, then the remembered winner) and, through the test
// hook, every algorithm of cublasLt's heuristic list that tuning may pick.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "cuda_test_util.hpp"
#include "ops/cuda/gemm/gemm.hpp"
#include "spindle/algorithms/dense_gemm.hpp"
#include "spindle/algorithms/gcn.hpp"

namespace spindle {
namespace {

using Shape = std::array<std::int64_t, 3>;  // m, k, n

/// Clears the TF32 switch (FP32 tolerances below) and the forcing hook, and restores both.
class GemmCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* v = std::getenv("SPINDLE_GEMM_TF32");
    if (v != nullptr) saved_ = v;
    unsetenv("SPINDLE_GEMM_TF32");
  }
  void TearDown() override {
    detail::cuda::debug_gemm_force_lt(-1);
    if (!saved_.empty()) setenv("SPINDLE_GEMM_TF32", saved_.c_str(), 1);
  }
  std::string saved_;
};

template <class T>
struct Problem {
  DenseMatrix<T> A, B;
  std::vector<double> ref;
  double scale = 1e-30;  // the largest sum of |products| of one element
};

template <class T>
Problem<T> make_problem(const Shape& s) {
  const auto [m, k, n] = s;
  Problem<T> p{random_features<T>(m, k, static_cast<std::uint64_t>(m + 2 * k)),
               random_features<T>(k, n, static_cast<std::uint64_t>(k + 3 * n + 1)),
               std::vector<double>(static_cast<std::size_t>(m * n), 0.0)};
  const DenseMatrix<T>& A = p.A;
  const DenseMatrix<T>& B = p.B;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0, mag = 0.0;
      for (std::int64_t t = 0; t < k; ++t) {
        sum += double(A(i, t)) * double(B(t, j));
        mag += std::fabs(double(A(i, t)) * double(B(t, j)));
      }
      p.ref[static_cast<std::size_t>(i * n + j)] = sum;
      p.scale = std::max(p.scale, mag);
    }
  return p;
}

/// The largest error of C against the naive product relative to the largest |products| sum (NaN
/// counts as infinite).
template <class T>
double rel_error(const DenseMatrix<T>& C, const Problem<T>& p) {
  double worst = 0.0;
  for (std::int64_t e = 0; e < C.size(); ++e) {
    const double d = std::fabs(double(C.data()[e]) - p.ref[static_cast<std::size_t>(e)]);
    worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(worst, d);
  }
  return worst / p.scale;
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s{{2000, 128, 128}, {1001, 33, 7}, {3, 1, 5},
                                    {64, 0, 4},       {0, 8, 8},     {4097, 128, 32}};
  return s;
}

template <class T>
void check_tuned(double tol) {
  for (const Shape& s : shapes()) {
    const Problem<T> p = make_problem<T>(s);
    const auto [m, k, n] = s;
    for (int call = 0; call < 2; ++call) {
      DenseMatrix<T> C(m, n, std::numeric_limits<T>::quiet_NaN());
      const std::string summary = gemm_tuned(C, p.A, p.B, Device::Cuda);
      const std::string what = std::to_string(m) + "x" + std::to_string(k) + "x" +
                               std::to_string(n) + " call " + std::to_string(call) + ": " + summary;
      ASSERT_EQ(C.rows(), m) << what;
      ASSERT_EQ(C.cols(), n) << what;
      if (m == 0 || k == 0) {
        EXPECT_NE(summary.find("nothing to tune"), std::string::npos) << what;
      } else if (call == 1) {
        EXPECT_NE(summary.find("(cached: nothing timed)"), std::string::npos) << what;
      } else {
        // The first call of this process for the shape, unless the test is repeated.
        EXPECT_TRUE(summary.find("fastest of") != std::string::npos ||
                    summary.find("cached") != std::string::npos)
            << what;
      }
      const DenseMatrix<T>& Cc = C;
      EXPECT_LE(rel_error(Cc, p), tol) << what;
    }
  }
}

TEST_F(GemmCuda, TunedMatchesANaiveProductAndRemembersItsWinner) {
  SPINDLE_REQUIRE_CUDA();
  check_tuned<float>(1e-5);
  check_tuned<double>(1e-12);
}

// Every algorithm tuning may pick, run on its own: a wrong layout or operand order in the
// cublasLt path shows here whichever candidate wins the timing.
template <class T>
void check_every_lt_algorithm(double tol) {
  for (const Shape& s : shapes()) {
    const auto [m, k, n] = s;
    if (m == 0 || k == 0) continue;
    const Problem<T> p = make_problem<T>(s);
    int ran = 0;
    for (int i = 0; i < 8; ++i) {
      detail::cuda::debug_gemm_force_lt(i);
      DenseMatrix<T> C(m, n, std::numeric_limits<T>::quiet_NaN());
      std::string summary;
      try {
        summary = gemm_tuned(C, p.A, p.B, Device::Cuda);
      } catch (const InvalidArgument&) {
        break;  // the heuristic list is shorter
      }
      ++ran;
      const std::string what =
          std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + ": " + summary;
      EXPECT_NE(summary.find("forced"), std::string::npos) << what;
      const DenseMatrix<T>& Cc = C;
      EXPECT_LE(rel_error(Cc, p), tol) << what;
    }
    detail::cuda::debug_gemm_force_lt(-1);
    EXPECT_GE(ran, 1) << m << "x" << k << "x" << n << ": cublasLt offered no algorithm";
  }
}

TEST_F(GemmCuda, EveryCublasLtCandidateMatchesANaiveProduct) {
  SPINDLE_REQUIRE_CUDA();
  check_every_lt_algorithm<float>(1e-5);
  check_every_lt_algorithm<double>(1e-12);
}

TEST_F(GemmCuda, PlainProductMatchesANaiveProduct) {
  SPINDLE_REQUIRE_CUDA();
  for (const Shape& s : shapes()) {
    const Problem<float> p = make_problem<float>(s);
    DenseMatrix<float> C(s[0], s[2], std::numeric_limits<float>::quiet_NaN());
    gemm(C, p.A, p.B, Device::Cuda);
    const DenseMatrix<float>& Cc = C;
    EXPECT_LE(rel_error(Cc, p), 1e-5) << s[0] << "x" << s[1] << "x" << s[2];
  }
}

}  // namespace
}  // namespace spindle
